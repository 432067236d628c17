// Close the current version of a memory in system time with no successor ("we were wrong to record it"); no row when a concurrent writer closed it first.
// mode: write
// returns: optional
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
// :param now => datetime()
// :param reason => 'recorded by mistake'
// :param origin => 'user'
// :param actor => 'browser'
// Lock first, then check: a concurrent update or retract that closed the version commits before
// this write lock is granted, and the check after it sees that close (checked before the lock,
// both writers passed and the later one overwrote the earlier one's close). The version is
// found by `current` and checked by `system_to` (both set by every close), so the check is not
// a property value Cypher read, and cached, before the lock.
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id})
WHERE m.current = true
SET m.write_lock = true
REMOVE m.write_lock
// A version that began after $now was written by a concurrent writer after this one read the
// clock: closing it at $now would end it before it began, so that is a conflict too.
WITH m
WHERE m.system_to IS NULL AND NOT coalesce(m.system_from > $now, false)
SET m.system_to = $now, m.current = false, m.retracted_reason = $reason, m.retracted_by_origin = $origin, m.retracted_by_actor = $actor
RETURN m {.*, embedding: null} AS memory
