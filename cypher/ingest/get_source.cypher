// The :Source of a namespace with this content hash, else with this text hash (the same text with other line endings, a byte-order mark or trailing white space); the oldest, should a race have made two.
// mode: read
// returns: optional
// :param namespace => 'default'
// :param sha256 => 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
// :param text_sha256 => 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
CALL () {
  MATCH (s:Source {namespace: $namespace, sha256: $sha256})
  WHERE s.system_to IS NULL
  RETURN s, 0 AS rank
  UNION
  MATCH (s:Source {namespace: $namespace, text_sha256: $text_sha256})
  WHERE s.system_to IS NULL
  RETURN s, 1 AS rank
}
RETURN s.uid AS uid, s.name AS name, s.format AS format, s.sha256 AS sha256,
       s.size_bytes AS size_bytes, s.status AS status, s.unit_count AS unit_count,
       coalesce(s.units_refused_json, []) AS units_refused_json,
       coalesce(s.units_failed, []) AS units_failed, s.system_from AS system_from
ORDER BY rank, s.system_from, s.uid
LIMIT 1
