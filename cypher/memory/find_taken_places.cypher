// For each would-be memory placed in an episode, the oldest current memory holding the same place (namespace, episode, position) with other normalised content or another kind, if any and no current memory there has the row's content and kind (the main door refuses a second, different turn at one place; an equal repeat stays idempotent).
// mode: read
// returns: many
// :param namespace => 'default'
// :param rows => [{index: 0, episode: 'session-2024-05-08', position: 3, content_norm: 'caroline: hi', kind: 'observation'}]
UNWIND $rows AS row
CALL (row) {
  MATCH (m:Memory {namespace: $namespace, episode: row.episode, position: row.position})
  WHERE m.system_to IS NULL AND (m.content_norm <> row.content_norm OR m.kind <> row.kind)
    AND NOT EXISTS {
      MATCH (same:Memory {namespace: $namespace, episode: row.episode, position: row.position})
      WHERE same.system_to IS NULL AND same.content_norm = row.content_norm
        AND same.kind = row.kind
    }
  RETURN m
  ORDER BY m.system_from
  LIMIT 1
}
RETURN row.index AS index, m.memory_id AS memory_id
