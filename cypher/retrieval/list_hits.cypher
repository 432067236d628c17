// The memory versions behind ranked retrieval hits, each with whether a lineage-visible trace PRODUCED any version of it and, for a trace, the memory ids it PRODUCED.
// mode: read
// returns: many
// :param namespace => 'default'
// :param uids => ['uid-of-a-memory-version']
// :param lineage_origins => ['ingestion', 'maintenance', 'user']
UNWIND $uids AS uid
MATCH (m:Memory {namespace: $namespace, uid: uid})
CALL (m) {
  OPTIONAL MATCH (t:ReasoningTrace)-[:PRODUCED]->(:Memory {namespace: $namespace, memory_id: m.memory_id})
  WHERE t.namespace = $namespace AND t.created_by_origin IN $lineage_origins
  RETURN count(t) > 0 AS has_reasoning
}
CALL (m) {
  OPTIONAL MATCH (m:ReasoningTrace)-[:PRODUCED]->(p:Memory {namespace: $namespace})
  RETURN collect(DISTINCT p.memory_id) AS produced
}
RETURN m {.*, embedding: null, task_embedding: null, search_ns: null} AS memory, has_reasoning, produced
