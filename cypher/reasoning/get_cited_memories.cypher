// The current versions of the memories a write wants to cite, and the retracted last version of each retracted one (`current` false); ids never stored are absent.
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_ids => ['some-memory-id']
// Only a retraction sets `retracted_reason`, on the version it closes (the last one), so an id
// gives one row: the versions of an id are read by the index anyway, this adds no lookup.
UNWIND $memory_ids AS memory_id
MATCH (m:Memory {namespace: $namespace, memory_id: memory_id})
WHERE m.system_to IS NULL OR m.retracted_reason IS NOT NULL
RETURN m.memory_id AS memory_id, m.uid AS uid, m.version AS version, m.content AS content, m.kind AS kind, m.system_to IS NULL AS current
