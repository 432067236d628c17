// Memories whose content holds a format character (Unicode category Cf: zero-width space and joiners, soft hyphen, bidirectional marks, BOM), whose stored match form (content_norm) may still hold it: the next $limit after uid $after, in uid order, with their content and match form (the caller compares it with `normalise_for_match`).
// mode: read
// returns: many
// :param namespace => null
// :param after => ''
// :param limit => 1000
MATCH (m:Memory)
WHERE m.uid > $after AND m.content IS NOT NULL
  AND ($namespace IS NULL OR m.namespace = $namespace)
  AND m.content =~ '(?s).*\\p{Cf}.*'
RETURN m.uid AS uid, m.content AS content, m.content_norm AS content_norm
ORDER BY uid
LIMIT $limit
