// Link ADR decisions related by amends / builds-on: (newer)-[:AMENDS]->(older) between current versions, either side's links counting; pairs already linked are skipped.
// mode: write
// returns: many
// :param namespace => 'default'
// :param memory_id => 'memory-id-of-this-decision'
// :param name => '22'
// :param amends => ['13']
// :param amended_by => []
// :param origin => 'ingestion'
// :param actor => 'ingest-cli'
// :param now => datetime('2024-01-01T00:00:00Z')
MATCH (me:Memory {namespace: $namespace, memory_id: $memory_id})
WHERE me.system_to IS NULL
MATCH (v:Memory {namespace: $namespace, kind: 'decision'})
WHERE v.system_to IS NULL AND v.adr_name IS NOT NULL AND v.memory_id <> $memory_id
WITH me, v,
     v.adr_name IN $amends AS me_newer,
     ($name IN coalesce(v.adr_amends, []) OR v.adr_name IN $amended_by) AS v_newer
WHERE me_newer OR v_newer
WITH CASE WHEN me_newer THEN me ELSE v END AS newer,
     CASE WHEN me_newer THEN v ELSE me END AS older
WHERE NOT EXISTS {
  MATCH (:Memory {namespace: $namespace, memory_id: newer.memory_id})-[:AMENDS]->(:Memory {namespace: $namespace, memory_id: older.memory_id})
}
CREATE (newer)-[:AMENDS {reason: 'ADR ' + newer.adr_name + ' amends or builds on ADR ' + older.adr_name, origin: $origin, actor: $actor, created_at: $now}]->(older)
RETURN newer.memory_id AS memory_id, older.memory_id AS amends_memory_id
