// Current memory versions of one namespace whose created_by_origin is missing or not in the policy: how many, and a sample of their ids.
// mode: read
// returns: one
// :param namespace => 'default'
// :param recognized => ['ingestion', 'maintenance', 'user']
// :param sample_size => 20
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.system_to IS NULL
  AND (m.created_by_origin IS NULL OR NOT m.created_by_origin IN $recognized)
WITH m ORDER BY m.system_from DESC, m.uid
WITH collect(coalesce(m.memory_id, m.uid)) AS ids
RETURN size(ids) AS count, ids[..$sample_size] AS sample
