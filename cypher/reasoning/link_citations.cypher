// A step CITES the exact version (uid) of each memory it relied on.
// mode: write
// returns: one
// :param namespace => 'default'
// :param trace_uid => 'uid-of-trace'
// :param cites => [{step: 2, uid: 'uid-of-memory-version'}]
MATCH (t:ReasoningTrace {namespace: $namespace, uid: $trace_uid})
UNWIND $cites AS cite
MATCH (t)-[:HAS_STEP {index: cite.step}]->(s:ReasoningStep)
MATCH (m:Memory {namespace: $namespace, uid: cite.uid})
MERGE (s)-[:CITES]->(m)
RETURN count(*) AS linked
