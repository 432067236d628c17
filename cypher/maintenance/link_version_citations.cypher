// A step of a trace CITES an exact version (memory_id + version) of a memory, current or not: maintenance cites evidence that changed, even retracted.
// mode: write
// returns: one
// :param namespace => 'default'
// :param trace_uid => 'uid-of-trace'
// :param cites => [{step: 1, memory_id: 'evidence-memory-id', version: 1}]
MATCH (t:ReasoningTrace {namespace: $namespace, uid: $trace_uid})
UNWIND $cites AS cite
MATCH (t)-[:HAS_STEP {index: cite.step}]->(s:ReasoningStep)
MATCH (m:Memory {namespace: $namespace, memory_id: cite.memory_id, version: cite.version})
MERGE (s)-[:CITES]->(m)
RETURN count(*) AS linked
