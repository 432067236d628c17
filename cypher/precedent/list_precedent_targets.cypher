// For each retrieval hit (a memory version uid), the memories of $kinds it stands for as a precedent: itself, or what the trace PRODUCED.
// mode: read
// returns: many
// :param namespace => 'default'
// :param uids => ['uid-of-a-memory-version']
// :param kinds => ['decision']
UNWIND $uids AS uid
MATCH (m:Memory {namespace: $namespace, uid: uid})
OPTIONAL MATCH (m:ReasoningTrace)-[:PRODUCED]->(p:Memory)
WHERE p.namespace = $namespace AND p.kind IN $kinds
WITH uid, m, collect(DISTINCT p.memory_id) AS produced
RETURN uid, m.memory_id AS memory_id, m.kind AS kind, m.content AS content,
       CASE WHEN m.kind IN $kinds THEN [m.memory_id] ELSE produced END AS targets
