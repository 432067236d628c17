// Whether a memory exists at all in a namespace, when its last version was closed and, when another memory's SUPERSEDES edge closed it (a corrected value of the same key from the same valid time), that memory's id (for clear 404s).
// mode: read
// returns: optional
// :param namespace => 'default'
// :param memory_id => 'some-memory-id'
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id})
WITH m ORDER BY m.version DESC
WITH collect(m)[0] AS last
OPTIONAL MATCH (other:Memory {namespace: $namespace})-[:SUPERSEDES]->(last)
WHERE other.memory_id <> last.memory_id
WITH last, min(other.memory_id) AS replaced_by
RETURN last.memory_id AS memory_id, last.version AS version, last.system_to AS system_to,
       last.retracted_reason AS retracted_reason, replaced_by
