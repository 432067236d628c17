// A decision (all versions) with every trace that produced it, its steps and the evidence they cite, as a graph.
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_id => 'decision-memory-id'
MATCH (d:Memory {namespace: $namespace, memory_id: $memory_id})
OPTIONAL MATCH produced = (t:ReasoningTrace)-[:PRODUCED]->(d)
OPTIONAL MATCH steps = (t)-[:HAS_STEP]->(s:ReasoningStep)
OPTIONAL MATCH cites = (s)-[:CITES]->(:Memory)
OPTIONAL MATCH rejects = (s)-[:REJECTS]->(:ReasoningStep)
OPTIONAL MATCH versions = (d)-[:SUPERSEDES*0..]->(:Memory)
RETURN d, produced, steps, cites, rejects, versions
