// Memories hidden from recall, search and lineage because their origin (created_by_origin) is missing or not one the policy recognizes, newest first.
// mode: read
// returns: many
// :params {namespace: 'default', recognized: ['user', 'ingestion', 'maintenance']}
// :param namespace => 'default'
// :param recognized => ['user', 'ingestion', 'maintenance']
MATCH (m:Memory {namespace: $namespace})
WHERE m.system_to IS NULL
  AND (m.created_by_origin IS NULL OR NOT m.created_by_origin IN $recognized)
RETURN coalesce(m.created_by_origin, '(missing)') AS origin, m.kind AS kind, m.version AS version,
       m.content AS content, m.system_from AS recorded, m.memory_id AS memory_id
ORDER BY recorded DESC
