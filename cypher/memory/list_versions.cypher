// Every version of a memory, oldest first, with its four times, both provenances and why it was written (change_reason; versions written before it was stored get their SUPERSEDES link's reason from the start-up migration).
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id})
RETURN m {.*, embedding: null} AS memory
ORDER BY m.version
