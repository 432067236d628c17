// The memory versions behind ranked retrieval hits, each with whether a lineage-visible trace PRODUCED any version of it and, for a trace, the memory ids it PRODUCED; the four period bounds as UTC ISO-8601 text (parsed by datetime.fromisoformat: the driver's DateTime hydration in Python cost ~0.1 ms a value, most of this query's time).
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
RETURN m {.*, embedding: null, task_embedding: null, search_ns: null,
          valid_from: CASE WHEN m.valid_from IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: m.valid_from, timezone: 'Z'})) ELSE m.valid_from END,
          valid_to: CASE WHEN m.valid_to IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: m.valid_to, timezone: 'Z'})) ELSE m.valid_to END,
          system_from: CASE WHEN m.system_from IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: m.system_from, timezone: 'Z'})) ELSE m.system_from END,
          system_to: CASE WHEN m.system_to IS :: ZONED DATETIME NOT NULL THEN toString(datetime({datetime: m.system_to, timezone: 'Z'})) ELSE m.system_to END
       } AS memory, has_reasoning, produced
