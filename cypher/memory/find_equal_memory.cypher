// The current memory of the same kind, key and normalised content, created through the same origin, at the same place in its material when unkeyed (episode, position), and still valid at the new memory's start (and, for an explicit start ($explicit), begun by it), if one exists (idempotent create; another origin's equal memory is not this writer's: its provenance and visibility differ; an equal memory that had stopped being true, or was not yet, by $valid_from is another claim: a keyed value that returns to an earlier one, a fact true again after it was invalidated).
// mode: read
// returns: optional
// :param namespace => 'default'
// :param kind => 'fact'
// :param content_norm => 'alice lives in district 1'
// :param subject => null
// :param attribute => null
// :param origin => 'user'
// :param valid_from => datetime()
// :param explicit => true
// :param episode => null
// :param position => null
MATCH (m:Memory {namespace: $namespace, content_norm: $content_norm})
WHERE m.kind = $kind AND m.system_to IS NULL AND m.created_by_origin = $origin
  AND coalesce(m.subject, '') = coalesce($subject, '') AND coalesce(m.attribute, '') = coalesce($attribute, '')
  AND (m.valid_to IS NULL OR m.valid_to > $valid_from) AND (NOT $explicit OR m.valid_from <= $valid_from)
  // Unkeyed, the same place in the material: the same words at another turn or in another
  // session are another memory (`equality_of`).
  AND ($subject IS NOT NULL OR (coalesce(m.episode, '') = coalesce($episode, '') AND coalesce(m.position, -1) = coalesce($position, -1)))
RETURN m {.*, embedding: null} AS memory
ORDER BY m.system_from
LIMIT 1
