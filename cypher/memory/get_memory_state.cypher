// Whether a memory exists at all in a namespace, and when its last version was closed (for clear 404s).
// mode: read
// returns: optional
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id})
WITH m ORDER BY m.version DESC
WITH collect(m)[0] AS last
RETURN last.memory_id AS memory_id, last.version AS version, last.system_to AS system_to,
       last.retracted_reason AS retracted_reason
