// A decision's story as a table, one row per step: the trace (origin, task, version it produced), the step (index, kind, status, rejected by), and each cited version with whether it still holds.
// mode: read
// returns: many
// :params {namespace: 'default', decision: ''}
// :param namespace => 'default'
// :param decision => ''
// $decision: the decision's memory_id, or words from its content, any case, or '' for the decision changed last.
MATCH (d:Decision {namespace: $namespace})
WHERE d.system_to IS NULL
  AND ($decision = '' OR d.memory_id = $decision OR toLower(d.content) CONTAINS toLower($decision))
WITH d ORDER BY d.memory_id = $decision DESC, d.system_from DESC LIMIT 1
MATCH (t:ReasoningTrace)-[:PRODUCED]->(v:Decision {namespace: d.namespace, memory_id: d.memory_id})
MATCH (t)-[:HAS_STEP]->(s:ReasoningStep)
CALL (s) {
  OPTIONAL MATCH (r:ReasoningStep)-[:REJECTS]->(s)
  RETURN min(r.index) AS rejected_by
}
CALL (s) {
  OPTIONAL MATCH (s)-[:CITES]->(e:Memory)
  WITH e ORDER BY e.memory_id, e.version
  RETURN collect(e.kind + ' v' + e.version + CASE
    WHEN e.system_to IS NOT NULL THEN ' (no longer valid: replaced or retracted ' + toString(e.system_to) + ')'
    WHEN e.valid_to IS NOT NULL AND e.valid_to <= datetime() THEN ' (no longer valid: invalidated ' + toString(e.valid_to) + ')'
    ELSE ' (still valid)' END + ': ' + left(e.content, 80)) AS cites
}
CALL (d) {
  OPTIONAL MATCH (:Decision {namespace: d.namespace, memory_id: d.memory_id})-[o:HAD_OUTCOME]->(obs:Observation)
  RETURN collect(o.result + ': ' + obs.content) AS outcomes
}
RETURN s.index AS step, s.kind AS kind, s.status AS status, rejected_by, s.content AS content, cites,
       t.created_by_origin + ' (produced v' + v.version + '): ' + t.task_text AS trace,
       t.system_from AS recorded, outcomes,
       'v' + d.version + ' ' + d.status + ' ' + d.confidence + ': ' + d.content AS decision_now
ORDER BY recorded, step
