// The current memory of the same kind, key and normalised content, if one exists (idempotent create).
// mode: read
// returns: optional
// :param namespace => 'default'
// :param kind => 'fact'
// :param content_norm => 'alice lives in district 1'
// :param subject => null
// :param attribute => null
MATCH (m:Memory {namespace: $namespace, content_norm: $content_norm})
WHERE m.kind = $kind AND m.system_to IS NULL
  AND coalesce(m.subject, '') = coalesce($subject, '') AND coalesce(m.attribute, '') = coalesce($attribute, '')
RETURN m {.*, embedding: null} AS memory
ORDER BY m.system_from
LIMIT 1
