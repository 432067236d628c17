// When the first outcome of a decision was observed (its observation's valid_from), over every version of the decision; null when it has none (a decision's valid_from may not move past it).
// mode: read
// returns: one
// :param namespace => 'default'
// :param memory_id => 'some-decision-id'
MATCH (d:Decision {namespace: $namespace, memory_id: $memory_id})
OPTIONAL MATCH (d)-[:HAD_OUTCOME]->(o:Observation {namespace: $namespace})
RETURN min(o.valid_from) AS observed_at
