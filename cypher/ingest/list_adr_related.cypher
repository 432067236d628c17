// Current ADR decisions that this ADR supersedes (role older) or is superseded by (role newer), by normalised ADR name, links on either side counting.
// A decision answers to each of its names (`adr_aliases`: its title's number and its file's slug; `adr_name` alone when ingested before aliases).
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_id => 'memory-id-of-this-decision'
// :param names => ['57']
// :param supersedes => ['45']
// :param superseded_by => []
MATCH (v:Memory {namespace: $namespace, kind: 'decision'})
WHERE v.adr_name IS NOT NULL AND v.memory_id <> $memory_id
WITH v, coalesce(v.adr_aliases, [v.adr_name]) AS its_names
WITH v,
     (any(n IN its_names WHERE n IN $supersedes)
      OR any(n IN $names WHERE n IN coalesce(v.adr_superseded_by, []))) AS older,
     (any(n IN its_names WHERE n IN $superseded_by)
      OR any(n IN $names WHERE n IN coalesce(v.adr_supersedes, []))) AS newer
WHERE older OR newer
WITH DISTINCT v.memory_id AS related_id, CASE WHEN older THEN 'older' ELSE 'newer' END AS role
MATCH (d:Memory {namespace: $namespace, memory_id: related_id})
WHERE d.system_to IS NULL
WITH d, role,
     CASE role WHEN 'older' THEN $memory_id ELSE related_id END AS newer_id,
     CASE role WHEN 'older' THEN related_id ELSE $memory_id END AS older_id
RETURN d {.*, embedding: null} AS memory, role,
       EXISTS {
         MATCH (n:Memory {namespace: $namespace, memory_id: newer_id})-[:SUPERSEDES]->(o:Memory {namespace: $namespace, memory_id: older_id})
       } AS linked
ORDER BY role, d.system_from
