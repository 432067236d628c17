// A piece of evidence and what rests on it, as a table: each cited version (still valid or not), the step citing it, its trace and what that produced now.
// mode: read
// returns: many
// :params {namespace: 'default', evidence_id: ''}
// :param namespace => 'default'
// :param evidence_id => ''
// $evidence_id: the evidence's memory_id, or '' for the cited memory changed last.
CALL () {
  MATCH (:ReasoningStep)-[:CITES]->(c:Memory {namespace: $namespace})
  WHERE $evidence_id = '' OR c.memory_id = $evidence_id
  MATCH (latest:Memory {namespace: $namespace, memory_id: c.memory_id})
  RETURN latest.memory_id AS evidence_id ORDER BY latest.system_from DESC LIMIT 1
}
MATCH (e:Memory {namespace: $namespace, memory_id: evidence_id})<-[:CITES]-(s:ReasoningStep)<-[:HAS_STEP]-(t:ReasoningTrace)
CALL (t) {
  OPTIONAL MATCH (now:Memory)-[:SUPERSEDES*0..]->(:Memory)<-[:PRODUCED]-(t)
  WHERE now.system_to IS NULL
  RETURN collect(DISTINCT now.kind + ' v' + now.version + coalesce(' ' + now.status, '') + ': ' + now.content) AS led_to
}
RETURN e.kind + ' v' + e.version + ': ' + e.content AS cited_version,
       e.system_to IS NULL AND (e.valid_to IS NULL OR e.valid_to > datetime()) AS still_valid,
       t.created_by_origin + ': ' + t.task_text AS trace, s.index AS step, s.kind AS kind,
       s.content AS step_content, led_to, e.memory_id AS evidence_id
ORDER BY trace, step
