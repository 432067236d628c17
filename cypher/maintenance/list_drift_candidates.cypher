// Current decisions whose producing reasoning (traces of $origins that PRODUCED any version) cites evidence, with the cited versions whose drift is already accounted for.
// mode: read
// returns: many
// :param namespace => 'default'
// :param origins => ['user', 'ingestion']
// :param now => datetime()
MATCH (d:Decision {namespace: $namespace})
WHERE d.system_to IS NULL
  AND d.created_by_origin IN $origins
  AND (d.valid_to IS NULL OR d.valid_to > $now)
  AND coalesce(d.status, 'active') <> 'retracted'
  AND EXISTS {
    MATCH (t:ReasoningTrace {namespace: $namespace})-[:PRODUCED]->(:Memory {namespace: $namespace, memory_id: d.memory_id})
    WHERE t.created_by_origin IN $origins
      AND EXISTS { (t)-[:HAS_STEP]->(:ReasoningStep)-[:CITES]->(:Memory) }
  }
CALL (d) {
  MATCH (v:Memory {namespace: $namespace, memory_id: d.memory_id})
  UNWIND coalesce(v.drift_evidence, []) AS key
  RETURN collect(DISTINCT key) AS accounted
}
RETURN d.memory_id AS memory_id, d.version AS version, d.content AS content, d.confidence AS confidence, accounted
ORDER BY d.system_from, d.memory_id
