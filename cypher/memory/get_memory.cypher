// The version of a memory we believed at $known_at (null = now); if $as_of is given, only one valid then.
// mode: read
// returns: optional
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
// :param as_of => null
// :param known_at => null
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id})
WHERE CASE WHEN $known_at IS NULL THEN m.system_to IS NULL
           ELSE m.system_from <= $known_at AND (m.system_to IS NULL OR m.system_to > $known_at) END
  AND ($as_of IS NULL OR (m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of)))
RETURN m {.*, embedding: null} AS memory
ORDER BY m.version DESC
LIMIT 1
