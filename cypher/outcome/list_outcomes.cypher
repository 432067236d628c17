// The outcomes of decisions (HAD_OUTCOME from any version, matched by memory_id) recorded by $known_at and observed by $as_of, oldest observation first.
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_ids => ['decision-memory-id']
// :param as_of => null
// :param known_at => null
UNWIND $memory_ids AS decision_id
MATCH (d:Decision {namespace: $namespace, memory_id: decision_id})-[h:HAD_OUTCOME]->(first:Observation)
WHERE first.namespace = $namespace AND ($known_at IS NULL OR h.at <= $known_at)
MATCH (o:Observation {namespace: $namespace, memory_id: first.memory_id})
WHERE CASE WHEN $known_at IS NULL THEN o.system_to IS NULL
           ELSE o.system_from <= $known_at AND (o.system_to IS NULL OR o.system_to > $known_at) END
  AND ($as_of IS NULL OR o.valid_from <= $as_of)
OPTIONAL MATCH (first)-[:CITES]->(c:Memory)
WITH decision_id, d, h, o, collect(DISTINCT c.memory_id) AS cites
RETURN decision_id, d.version AS decision_version, h.result AS result, h.at AS recorded_at,
       o {.*, embedding: null} AS observation, cites
ORDER BY decision_id, o.valid_from, h.at
