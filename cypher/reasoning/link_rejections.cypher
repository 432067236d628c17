// A later step REJECTS an earlier hypothesis, whose status becomes rejected.
// mode: write
// returns: one
// :param namespace => 'default'
// :param trace_uid => 'uid-of-trace'
// :param pairs => [{by: 3, rejected: 1}]
MATCH (t:ReasoningTrace {namespace: $namespace, uid: $trace_uid})
UNWIND $pairs AS pair
MATCH (t)-[:HAS_STEP {index: pair.by}]->(by:ReasoningStep)
MATCH (t)-[:HAS_STEP {index: pair.rejected}]->(h:ReasoningStep)
CREATE (by)-[:REJECTS]->(h)
SET h.status = 'rejected'
RETURN count(*) AS linked
