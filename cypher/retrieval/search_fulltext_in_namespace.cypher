// Fulltext candidates of one namespace: the query holds a required clause on the namespace's token (+search_ns:<token>^0), so the index returns only the caller's memories (fetched counts them: fewer than k proves every match was asked for); beside them, when $browser_k > 0 (the namespace may hold memories without search_ns), the browser query's answer (memories typed into Neo4j Browser, no search_ns; other namespaces' too, by the analysed raw namespace) is checked for the caller's; kinds, system time, valid time and visibility are filtered after; visible and unrecognized apart. Each hit is a list [uid, memory_id, kind, score, quality_verdict, quality_score, episode, position, search_text, the length of the memory's own text in it: content and its identifier parts] (Hit.COLUMNS: the driver decodes lists about twice as fast as maps).
// mode: read
// returns: one
// values: plain
// :param index_name => 'memory_content'
// :param k => 100
// :param query => '+search_ns:ns29303041^0 +search_text:(test_upload fail)'
// :param browser_query => '+namespace:"deep"^0 -search_ns:ns29303041 +content:(test_upload fail)'
// :param browser_k => 20
// :param namespace => 'deep'
// :param kinds => null
// :param as_of => datetime()
// ($as_of null: every valid time, a history search that names no as_of)
// :param closed_after => datetime()
// :param known_at => null
// :param include_superseded => false
// :param origins => ['ingestion', 'user']
// :param recognized => ['ingestion', 'maintenance', 'user']
CALL db.index.fulltext.queryNodes($index_name, $query, {limit: $k}) YIELD node, score
WITH collect({node: node, score: score}) AS raw
CALL () {
  WITH 1 AS one WHERE $browser_k > 0
  CALL db.index.fulltext.queryNodes($index_name, $browser_query, {limit: $browser_k}) YIELD node, score
  RETURN collect({node: node, score: score}) AS typed
}
CALL (raw, typed) {
  UNWIND raw + typed AS hit
  WITH hit.node AS m, hit.score AS score
  WHERE m.namespace = $namespace
    AND m:Memory AND NOT m:ReasoningStep
    AND ($kinds IS NULL OR m.kind IN $kinds)
  WITH m, score, m.created_by_origin AS origin,
       CASE
         WHEN $include_superseded THEN $known_at IS NULL OR m.system_from <= $known_at
         WHEN $known_at IS NULL THEN m.system_to IS NULL OR m.system_to > $closed_after
         ELSE m.system_from <= $known_at AND (m.system_to IS NULL OR m.system_to > $known_at)
       END
       AND ($as_of IS NULL OR m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of)) AS in_time
  RETURN
    collect(CASE WHEN in_time AND origin IN $origins AND m.uid IS NOT NULL AND m.memory_id IS NOT NULL
                 THEN [m.uid, m.memory_id, m.kind, score, m.quality_verdict, m.quality_score,
                       m.episode, m.position, m.search_text, size(m.content) + coalesce(size(m.search_parts) + 1, 0)] END) AS hits,
    collect(CASE WHEN (origin IS NULL OR NOT origin IN $recognized) AND coalesce(in_time, true)
                 THEN {memory_id: coalesce(m.memory_id, m.uid), origin: origin} END) AS unrecognized
}
RETURN size(raw) AS fetched, hits, unrecognized
