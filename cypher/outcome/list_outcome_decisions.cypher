// Current decisions created through $origins with at least one outcome, with the outcomes outcome-confidence already accounted for on any version.
// mode: read
// returns: many
// :param namespace => 'default'
// :param origins => ['ingestion', 'user']
// :param now => datetime()
MATCH (d:Decision {namespace: $namespace})
WHERE d.system_to IS NULL
  AND d.created_by_origin IN $origins
  AND (d.valid_to IS NULL OR d.valid_to > $now)
  AND coalesce(d.status, 'active') <> 'retracted'
  AND EXISTS { (:Decision {namespace: $namespace, memory_id: d.memory_id})-[:HAD_OUTCOME]->(:Observation) }
CALL (d) {
  MATCH (v:Decision {namespace: $namespace, memory_id: d.memory_id})
  UNWIND coalesce(v.outcome_evidence, []) AS key
  RETURN collect(DISTINCT key) AS accounted
}
RETURN d.memory_id AS memory_id, d.version AS version, d.content AS content, d.confidence AS confidence, accounted
ORDER BY d.system_from, d.memory_id
