// The last version of each memory a write wants to cite, with whether it is current, whether it was retracted and, when another memory's SUPERSEDES edge closed it (a corrected value of the same key from the same valid time), that memory's id; ids never stored in the namespace are absent. A last version closed but not retracted is a concurrent update whose new version is not visible yet (`cited_memories` reads again).
// mode: read
// returns: many
// :param namespace => 'default'
// :param memory_ids => ['some-memory-id']
UNWIND $memory_ids AS memory_id
MATCH (m:Memory {namespace: $namespace, memory_id: memory_id})
WITH memory_id, m ORDER BY m.version DESC
WITH memory_id, collect(m)[0] AS m
OPTIONAL MATCH (other:Memory {namespace: $namespace})-[:SUPERSEDES]->(m)
WHERE other.memory_id <> m.memory_id
WITH m, min(other.memory_id) AS replaced_by
RETURN m.memory_id AS memory_id, m.uid AS uid, m.version AS version, m.content AS content, m.kind AS kind,
       m.system_to IS NULL AS current, m.retracted_reason IS NOT NULL AS retracted, replaced_by
