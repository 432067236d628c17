// A decision's story as a graph: its versions (the current one first), every trace that produced one (user's and maintenance's), each trace's steps in order with rejected hypotheses, the evidence cited (a stale version beside the version that replaced it) and outcomes.
// mode: read
// returns: optional
// :params {namespace: 'default', decision: ''}
// :param namespace => 'default'
// :param decision => ''
// $decision: the decision's memory_id, or words from its content, any case, or '' for the decision changed last.
MATCH (d:Decision {namespace: $namespace})
WHERE d.system_to IS NULL
  AND ($decision = '' OR d.memory_id = $decision OR toLower(d.content) CONTAINS toLower($decision))
WITH d ORDER BY d.memory_id = $decision DESC, d.system_from DESC LIMIT 1
OPTIONAL MATCH versions = (d)-[:SUPERSEDES*1..]->(:Decision)
WITH d, collect(versions) AS versions
OPTIONAL MATCH produced = (t:ReasoningTrace)-[:PRODUCED]->(:Decision {namespace: d.namespace, memory_id: d.memory_id})
CALL (t) {
  OPTIONAL MATCH steps = (t)-[:HAS_STEP {index: 0}]->(:ReasoningStep)-[:NEXT*0..]->(last:ReasoningStep)
  WHERE NOT (last)-[:NEXT]->()
  OPTIONAL MATCH served = (t)-[:SERVED]->(:Task)
  RETURN steps, served
}
CALL (t) {
  OPTIONAL MATCH (t)-[:HAS_STEP]->(s:ReasoningStep)
  OPTIONAL MATCH rejects = (s)-[:REJECTS]->(:ReasoningStep)
  OPTIONAL MATCH cites = (s)-[:CITES]->(e:Memory)
  OPTIONAL MATCH replaced_by = (:Memory {namespace: e.namespace, memory_id: e.memory_id})-[:SUPERSEDES]->(e)
  RETURN collect(rejects) AS rejects, collect(cites) AS cites, collect(replaced_by) AS replaced_by
}
OPTIONAL MATCH outcomes = (:Decision {namespace: d.namespace, memory_id: d.memory_id})-[:HAD_OUTCOME]->(:Observation)
RETURN d AS decision, versions, collect(DISTINCT produced) AS traces, collect(DISTINCT served) AS tasks,
       collect(DISTINCT steps) AS steps, collect(rejects) AS rejects, collect(cites) AS cites,
       collect(replaced_by) AS replaced_by, collect(DISTINCT outcomes) AS outcomes
