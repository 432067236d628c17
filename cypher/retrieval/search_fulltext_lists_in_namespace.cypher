// Fulltext candidates of one namespace, one list per query word: each list takes the index's matches (up to k), filters kinds, system time, valid time and visibility, and keeps its per_list shortest (characters of the lexical field, then uid), so which memories a list keeps depends on the namespace's own texts, not on the index's scores; visible and unrecognized apart, each deduplicated over the lists. Each hit is a list [uid, memory_id, kind, score, quality_verdict, quality_score, episode, position, search_text, the length of the memory's own text in it: content and its identifier parts] (Hit.COLUMNS: the driver decodes lists about twice as fast as maps).
// mode: read
// returns: one
// values: plain
// :param index_name => 'memory_content'
// :param queries => ['+search_ns:ns29303041^0 +search_text:(upload)', '+search_ns:ns29303041^0 +search_text:(fail)']
// :param k => 1000
// :param per_list => 40
// :param namespace => 'deep'
// :param kinds => null
// :param as_of => datetime()
// ($as_of null: every valid time, a history search that names no as_of)
// :param closed_after => datetime()
// :param known_at => null
// :param include_superseded => false
// :param origins => ['ingestion', 'user']
// :param recognized => ['ingestion', 'maintenance', 'user']
UNWIND $queries AS query
CALL (query) {
  CALL db.index.fulltext.queryNodes($index_name, query, {limit: $k}) YIELD node
  WITH collect(node) AS raw
  CALL (raw) {
    UNWIND raw AS m
    WITH m ORDER BY size(coalesce(m.search_text, m.content, '')), coalesce(m.uid, m.memory_id)
    WHERE m.namespace = $namespace
      AND m:Memory AND NOT m:ReasoningStep
      AND ($kinds IS NULL OR m.kind IN $kinds)
      AND m.created_by_origin IN $origins AND m.uid IS NOT NULL AND m.memory_id IS NOT NULL
      AND CASE
            WHEN $include_superseded THEN $known_at IS NULL OR m.system_from <= $known_at
            WHEN $known_at IS NULL THEN m.system_to IS NULL OR m.system_to > $closed_after
            ELSE m.system_from <= $known_at AND (m.system_to IS NULL OR m.system_to > $known_at)
          END
      AND ($as_of IS NULL OR m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of))
    LIMIT $per_list
    RETURN collect(m) AS shown
  }
  CALL (raw) {
    UNWIND raw AS m
    WITH m
    WHERE (m.created_by_origin IS NULL OR NOT m.created_by_origin IN $recognized)
      AND m.namespace = $namespace
      AND m:Memory AND NOT m:ReasoningStep
      AND ($kinds IS NULL OR m.kind IN $kinds)
      AND coalesce(CASE
            WHEN $include_superseded THEN $known_at IS NULL OR m.system_from <= $known_at
            WHEN $known_at IS NULL THEN m.system_to IS NULL OR m.system_to > $closed_after
            ELSE m.system_from <= $known_at AND (m.system_to IS NULL OR m.system_to > $known_at)
          END
          AND ($as_of IS NULL OR m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of)), true)
    WITH m ORDER BY size(coalesce(m.search_text, m.content, '')), coalesce(m.uid, m.memory_id)
    LIMIT $per_list
    RETURN collect(m) AS hidden
  }
  RETURN size(raw) AS fetched, shown, hidden
}
WITH max(fetched) AS fetched, collect(shown) AS shown, collect(hidden) AS hidden
CALL (shown) {
  UNWIND shown AS list
  UNWIND list AS m
  WITH DISTINCT m
  RETURN collect([m.uid, m.memory_id, m.kind, 0.0, m.quality_verdict, m.quality_score,
                  m.episode, m.position, m.search_text, size(m.content) + coalesce(size(m.search_parts) + 1, 0)]) AS hits
}
CALL (hidden) {
  UNWIND hidden AS list
  UNWIND list AS m
  WITH DISTINCT m
  RETURN collect({memory_id: coalesce(m.memory_id, m.uid), origin: m.created_by_origin}) AS unrecognized
}
RETURN fetched, hits, unrecognized
