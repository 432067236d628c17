// Every version of a memory, oldest first, with its four times and both provenances, and why each later version was written (change_reason: stored on the version since 2026-12-05, else the reason of its SUPERSEDES link to the version before).
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id})
CALL (m) {
  OPTIONAL MATCH (m)-[s:SUPERSEDES]->(:Memory {namespace: $namespace, memory_id: $memory_id})
  RETURN collect(s.reason)[0] AS linked
}
RETURN m {.*, embedding: null, change_reason: coalesce(m.change_reason, linked)} AS memory
ORDER BY m.version
