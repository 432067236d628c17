// The trace PRODUCED this memory version.
// mode: write
// returns: one
// :param namespace => 'default'
// :param trace_uid => 'uid-of-trace'
// :param memory_uid => 'uid-of-memory-version'
MATCH (t:ReasoningTrace {namespace: $namespace, uid: $trace_uid})
MATCH (m:Memory {namespace: $namespace, uid: $memory_uid})
MERGE (t)-[:PRODUCED]->(m)
RETURN count(*) AS linked
