// Vector candidates among every version of one namespace (as_of/known_at reads, superseded versions), filtered inside the vector index on namespace and kind, then system time, valid time and visibility; visible and unrecognized apart. Each hit is a list [uid, memory_id, kind, score, quality_verdict, quality_score, episode, position] (Hit.COLUMNS: the driver decodes lists about twice as fast as maps).
// mode: read
// returns: one
// values: plain
// :param embedding => [i IN range(1, 384) | 0.05103103630798288]
// :param namespace => 'default'
// :param kinds => ['decision', 'fact', 'observation', 'procedure', 'reasoning']
// :param k => 100
// :param as_of => datetime()
// ($as_of null: every valid time, a history search that names no as_of)
// :param known_at => null
// :param include_superseded => false
// :param origins => ['ingestion', 'user']
// :param recognized => ['ingestion', 'maintenance', 'user']
CYPHER 25
// Neo4j 2026.09 fails a filtered SEARCH whose filter matches no indexed node ("Index ... out of
// bounds"), so the search runs only when the namespace holds at least one match.
OPTIONAL MATCH (probe:Memory)
WHERE probe.namespace = $namespace AND probe.kind IN $kinds AND probe.embedding IS NOT NULL
WITH probe LIMIT 1
CALL (probe) {
  WITH probe WHERE probe IS NOT NULL
  MATCH (m:Memory)
    SEARCH m IN (
      VECTOR INDEX memory_embedding
      FOR $embedding
      WHERE m.namespace = $namespace AND m.kind IN $kinds
      LIMIT $k
    ) SCORE AS score
  RETURN collect({m: m, score: score}) AS raw
}
CALL (raw) {
  UNWIND raw AS hit
  WITH hit.m AS m, hit.score AS score, hit.m.created_by_origin AS origin
  WITH m, score, origin,
       CASE
         WHEN $include_superseded THEN $known_at IS NULL OR m.system_from <= $known_at
         WHEN $known_at IS NULL THEN m.system_to IS NULL
         ELSE m.system_from <= $known_at AND (m.system_to IS NULL OR m.system_to > $known_at)
       END
       AND ($as_of IS NULL OR m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of)) AS in_time
  RETURN
    collect(CASE WHEN in_time AND origin IN $origins AND m.uid IS NOT NULL AND m.memory_id IS NOT NULL
                 THEN [m.uid, m.memory_id, m.kind, score, m.quality_verdict, m.quality_score,
                       m.episode, m.position] END) AS hits,
    collect(CASE WHEN (origin IS NULL OR NOT origin IN $recognized) AND coalesce(in_time, true)
                 THEN {memory_id: coalesce(m.memory_id, m.uid), origin: origin} END) AS unrecognized
}
RETURN size(raw) AS fetched, hits, unrecognized
