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
// Each cited version and how its memory stands now (its last version): retracted, invalidated
// (closed in valid time), replaced by a later version, or still valid.
CALL (s) {
  OPTIONAL MATCH (s)-[:CITES]->(e:Memory)
  OPTIONAL CALL (e) {
    MATCH (l:Memory {namespace: e.namespace, memory_id: e.memory_id})
    RETURN l AS last ORDER BY l.version DESC LIMIT 1
  }
  WITH e, last ORDER BY e.memory_id, e.version
  RETURN collect(e.kind + ' v' + e.version + CASE
    WHEN last.retracted_reason IS NOT NULL THEN ' (no longer valid: retracted ' + toString(last.system_to) + ')'
    WHEN last.valid_to IS NOT NULL AND last.valid_to <= datetime() THEN ' (no longer valid: invalidated ' + toString(last.valid_to) + ')'
    WHEN last.version > e.version THEN ' (replaced by v' + last.version + ' ' + toString(e.system_to) + ')'
    WHEN e.system_to IS NOT NULL THEN ' (no longer valid: closed ' + toString(e.system_to) + ')'
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
