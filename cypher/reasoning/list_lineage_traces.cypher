// The traces that PRODUCED any version of a memory, whatever their origin among $origins, oldest first.
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_id => 'decision-memory-id'
// :param origins => ['user', 'ingestion', 'maintenance']
MATCH (t:ReasoningTrace {namespace: $namespace})-[:PRODUCED]->(v:Memory {namespace: $namespace, memory_id: $memory_id})
WHERE t.created_by_origin IN $origins
RETURN DISTINCT t.memory_id AS trace_id, t.system_from AS system_from
ORDER BY system_from
