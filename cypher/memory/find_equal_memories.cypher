// For each of many would-be memories, the current memory of the same kind, key and normalised content, created through the same origin, at the same place in its material when unkeyed (episode, position), and still valid at the row's valid_from (begun by it when explicit), if one exists (batch create; see find_equal_memory).
// mode: read
// returns: many
// :param namespace => 'default'
// :param rows => [{index: 0, kind: 'fact', content_norm: 'alice lives in district 1', subject: null, attribute: null, origin: 'user', valid_from: datetime(), explicit: true, episode: null, position: null}]
UNWIND $rows AS row
CALL (row) {
  MATCH (m:Memory {namespace: $namespace, content_norm: row.content_norm})
  WHERE m.kind = row.kind AND m.system_to IS NULL AND m.created_by_origin = row.origin
    AND coalesce(m.subject, '') = coalesce(row.subject, '') AND coalesce(m.attribute, '') = coalesce(row.attribute, '')
    AND (m.valid_to IS NULL OR m.valid_to > row.valid_from) AND (NOT row.explicit OR m.valid_from <= row.valid_from)
    AND (row.subject IS NOT NULL OR (coalesce(m.episode, '') = coalesce(row.episode, '') AND coalesce(m.position, -1) = coalesce(row.position, -1)))
  RETURN m
  ORDER BY m.system_from
  LIMIT 1
}
RETURN row.index AS index, m {.*, embedding: null} AS memory
