// One trace as a path: task, then its steps in NEXT order, with what it produced.
// mode: read
// returns: many
// :param namespace => 'default'
// :param trace_id => 'trace-memory-id'
MATCH (t:ReasoningTrace {namespace: $namespace, memory_id: $trace_id})-[:HAS_STEP {index: 0}]->(first:ReasoningStep)
MATCH chain = (first)-[:NEXT*0..]->(last:ReasoningStep)
WHERE NOT (last)-[:NEXT]->()
OPTIONAL MATCH served = (t)-[:SERVED]->(:Task)
OPTIONAL MATCH produced = (t)-[:PRODUCED]->(:Memory)
RETURN t, chain, served, produced
