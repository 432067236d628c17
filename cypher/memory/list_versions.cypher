// Every version of a memory, oldest first, with its four times and both provenances.
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id})
RETURN m {.*, embedding: null} AS memory
ORDER BY m.version
