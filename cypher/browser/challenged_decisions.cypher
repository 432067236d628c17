// Decisions now challenged, and why: the version change that challenged each, the reasoning behind it and the cited evidence that changed since (beside its newer version).
// mode: read
// returns: one
// :params {namespace: 'default'}
// :param namespace => 'default'
MATCH (d:Decision {namespace: $namespace, status: 'challenged'})
WHERE d.system_to IS NULL
OPTIONAL MATCH challenge = (d)-[:SUPERSEDES*0..]->(:Decision {status: 'challenged'})-[:SUPERSEDES]->(:Decision {status: 'active'})
CALL (d) {
  OPTIONAL MATCH stale = (:Decision {namespace: d.namespace, memory_id: d.memory_id})<-[:PRODUCED]-(t:ReasoningTrace)-[:HAS_STEP]->(:ReasoningStep)-[:CITES]->(e:Memory)<-[:SUPERSEDES]-(:Memory)
  WHERE t.created_by_origin <> 'maintenance' AND e.memory_id <> d.memory_id
  RETURN collect(stale) AS stale
}
RETURN collect(DISTINCT d) AS decisions, collect(challenge) AS challenges, collect(stale) AS stale_evidence
