// The current facts of a namespace created through $origins and true at $now, with their embeddings (the candidate jobs' input).
// mode: read
// returns: many
// :param namespace => 'default'
// :param origins => ['user', 'ingestion']
// :param now => datetime()
MATCH (f:Fact {namespace: $namespace})
WHERE f.system_to IS NULL
  AND f.created_by_origin IN $origins
  AND f.valid_from <= $now
  AND (f.valid_to IS NULL OR f.valid_to > $now)
RETURN f.memory_id AS memory_id, f.version AS version, f.content AS content,
       f.subject AS subject, f.attribute AS attribute, f.embedding AS embedding
ORDER BY memory_id
