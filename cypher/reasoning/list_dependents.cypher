// The current versions of memories produced by reasoning whose steps cite any version of a memory.
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_id => 'evidence-memory-id'
// :param origins => ['user', 'ingestion', 'maintenance']
MATCH (:Memory {namespace: $namespace, memory_id: $memory_id})<-[:CITES]-(:ReasoningStep)<-[:HAS_STEP]-(t:ReasoningTrace)-[:PRODUCED]->(p:Memory)
WHERE t.namespace = $namespace AND t.created_by_origin IN $origins
WITH DISTINCT p.memory_id AS produced_id, collect(DISTINCT t.memory_id) AS trace_ids
MATCH (d:Memory {namespace: $namespace, memory_id: produced_id})
WHERE d.system_to IS NULL
RETURN d {.*, embedding: null} AS memory, trace_ids
ORDER BY d.system_from
