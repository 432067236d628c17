// Reasoning traces of one namespace whose task is nearest the query (Cypher 25 SEARCH on memory_task_embedding, filtered on namespace and current in the index), then valid time and visibility; visible and unrecognized apart.
// mode: read
// returns: one
// :param embedding => [i IN range(1, 384) | 0.05103103630798288]
// :param namespace => 'default'
// :param k => 20
// :param as_of => datetime()
// :param origins => ['ingestion', 'user']
// :param recognized => ['ingestion', 'maintenance', 'user']
CYPHER 25
// Neo4j 2026.09 fails a filtered SEARCH whose filter matches no indexed node, so the search
// runs only when the namespace holds at least one current trace with a task embedding (the
// probe seeks memory_namespace_kind, so other namespaces' traces are never scanned).
OPTIONAL MATCH (probe:Memory)
WHERE probe.namespace = $namespace AND probe.kind = 'reasoning' AND probe:ReasoningTrace AND probe.current = true AND probe.task_embedding IS NOT NULL
WITH probe LIMIT 1
CALL (probe) {
  WITH probe WHERE probe IS NOT NULL
  MATCH (m:ReasoningTrace)
    SEARCH m IN (
      VECTOR INDEX memory_task_embedding
      FOR $embedding
      WHERE m.namespace = $namespace AND m.current = true
      LIMIT $k
    ) SCORE AS score
  RETURN collect({m: m, score: score}) AS raw
}
CALL (raw) {
  UNWIND raw AS hit
  WITH hit.m AS m, hit.score AS score, hit.m.created_by_origin AS origin
  WITH m, score, origin,
       m.system_to IS NULL AND m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) AS in_time
  RETURN
    collect(CASE WHEN in_time AND origin IN $origins AND m.uid IS NOT NULL AND m.memory_id IS NOT NULL
                 THEN {uid: m.uid, memory_id: m.memory_id, kind: m.kind, score: score,
                       quality_verdict: m.quality_verdict, quality_score: m.quality_score,
                       episode: m.episode, position: m.position} END) AS hits,
    collect(CASE WHEN (origin IS NULL OR NOT origin IN $recognized) AND coalesce(in_time, true)
                 THEN {memory_id: coalesce(m.memory_id, m.uid), origin: origin} END) AS unrecognized
}
RETURN size(raw) AS fetched, hits, unrecognized
