// Decisions now challenged as a table: when, by whom and why, and which step's evidence changed (what it said then, what it says now).
// mode: read
// returns: many
// :params {namespace: 'default'}
// :param namespace => 'default'
MATCH (d:Decision {namespace: $namespace, status: 'challenged'})
WHERE d.system_to IS NULL
CALL (d) {
  OPTIONAL MATCH (:Decision {namespace: d.namespace, memory_id: d.memory_id, status: 'challenged'})-[s:SUPERSEDES]->(:Decision {status: 'active'})
  RETURN s.at AS challenged_at, s.actor AS challenged_by, s.reason AS reason LIMIT 1
}
CALL (d) {
  OPTIONAL MATCH (:Decision {namespace: d.namespace, memory_id: d.memory_id})<-[:PRODUCED]-(t:ReasoningTrace)-[:HAS_STEP]->(step:ReasoningStep)-[:CITES]->(e:Memory)
  WHERE t.created_by_origin <> 'maintenance' AND e.memory_id <> d.memory_id AND e.system_to IS NOT NULL
  OPTIONAL MATCH (now:Memory {namespace: e.namespace, memory_id: e.memory_id})
  WHERE now.system_to IS NULL
  RETURN collect('step ' + step.index + ' cited ' + e.kind + ' v' + e.version + ' "' + e.content + '" -> '
    + CASE WHEN now IS NULL THEN 'retracted' ELSE 'now v' + now.version + ' "' + now.content + '"' END) AS changed_evidence
}
RETURN d.content AS decision, reason, changed_evidence, d.version AS version, d.confidence AS confidence,
       challenged_at, challenged_by, d.memory_id AS memory_id
ORDER BY challenged_at DESC
