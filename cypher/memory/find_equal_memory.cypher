// The current memory of the same kind, key and normalised content, created through the same origin, if one exists (idempotent create; another origin's equal memory is not this writer's: its provenance and visibility differ).
// mode: read
// returns: optional
// :param namespace => 'default'
// :param kind => 'fact'
// :param content_norm => 'alice lives in district 1'
// :param subject => null
// :param attribute => null
// :param origin => 'user'
MATCH (m:Memory {namespace: $namespace, content_norm: $content_norm})
WHERE m.kind = $kind AND m.system_to IS NULL AND m.created_by_origin = $origin
  AND coalesce(m.subject, '') = coalesce($subject, '') AND coalesce(m.attribute, '') = coalesce($attribute, '')
RETURN m {.*, embedding: null} AS memory
ORDER BY m.system_from
LIMIT 1
