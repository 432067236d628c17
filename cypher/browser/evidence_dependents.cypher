// A piece of evidence and what rests on it, as a graph: its versions, the steps citing any of them, their traces and what those produced (up to the current version).
// mode: read
// returns: optional
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
MATCH (e:Memory {namespace: $namespace, memory_id: evidence_id})
OPTIONAL MATCH versions = (e)-[:SUPERSEDES]->(:Memory)
WITH evidence_id, collect(e) AS evidence, collect(versions) AS versions
MATCH rests = (:Memory {namespace: $namespace, memory_id: evidence_id})<-[:CITES]-(:ReasoningStep)<-[:HAS_STEP]-(t:ReasoningTrace)
OPTIONAL MATCH led_to = (now:Memory)-[:SUPERSEDES*0..]->(:Memory)<-[:PRODUCED]-(t)
WHERE now.system_to IS NULL
RETURN evidence, versions, collect(DISTINCT rests) AS rests_on_it, collect(DISTINCT led_to) AS led_to
