// The current versions of the memories a trace wants to cite (missing ids are simply absent).
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_ids => ['some-memory-id']
UNWIND $memory_ids AS memory_id
MATCH (m:Memory {namespace: $namespace, memory_id: memory_id})
WHERE m.system_to IS NULL
RETURN m.memory_id AS memory_id, m.uid AS uid, m.version AS version, m.content AS content, m.kind AS kind
