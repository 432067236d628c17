// Close the current version of a memory in system time with no successor ("we were wrong to record it").
// mode: write
// returns: optional
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
// :param now => datetime()
// :param reason => 'recorded by mistake'
// :param origin => 'user'
// :param actor => 'browser'
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id})
WHERE m.system_to IS NULL
SET m.system_to = $now, m.current = false, m.retracted_reason = $reason, m.retracted_by_origin = $origin, m.retracted_by_actor = $actor
RETURN m {.*, embedding: null} AS memory
