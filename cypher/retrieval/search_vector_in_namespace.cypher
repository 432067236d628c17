// Vector candidates among the current versions of one namespace, filtered inside the vector index (Cypher 25 SEARCH on memory_embedding's filter properties namespace, kind, current), and, when $task_k > 0, the current traces whose task is nearest the query (SEARCH on memory_task_embedding, filtered on namespace and current): one round trip for both; then system time (a version closed after $closed_after (shortly before the read began) is kept: an update may have committed while the read ran, and the read-back gives the memory's current version), valid time and visibility; visible and unrecognized apart. Each hit is a list [uid, memory_id, kind, score, quality_verdict, quality_score, episode, position] (Hit.COLUMNS: the driver decodes lists about twice as fast as maps).
// mode: read
// returns: one
// values: plain
// :param embedding => [i IN range(1, 384) | 0.05103103630798288]
// :param namespace => 'default'
// :param kinds => ['decision', 'fact', 'observation', 'procedure', 'reasoning']
// :param k => 100
// :param task_k => 20
// :param as_of => datetime()
// :param closed_after => datetime()
// :param origins => ['ingestion', 'user']
// :param recognized => ['ingestion', 'maintenance', 'user']
CYPHER 25
// Neo4j 2026.09 fails a filtered SEARCH whose filter matches no indexed node ("Index ... out of
// bounds"), so each search runs only when the namespace holds at least one match (the probes
// seek memory_namespace_kind, so other namespaces' memories are never scanned).
CALL () {
  OPTIONAL MATCH (probe:Memory)
  WHERE probe.namespace = $namespace AND probe.kind IN $kinds AND probe.current = true AND probe.embedding IS NOT NULL
  WITH probe LIMIT 1
  CALL (probe) {
    WITH probe WHERE probe IS NOT NULL
    MATCH (m:Memory)
      SEARCH m IN (
        VECTOR INDEX memory_embedding
        FOR $embedding
        WHERE m.namespace = $namespace AND m.current = true AND m.kind IN $kinds
        LIMIT $k
      ) SCORE AS score
    RETURN collect({m: m, score: score}) AS raw
  }
  RETURN raw
}
CALL () {
  OPTIONAL MATCH (probe:Memory)
  WHERE $task_k > 0 AND probe.namespace = $namespace AND probe.kind = 'reasoning' AND probe:ReasoningTrace AND probe.current = true AND probe.task_embedding IS NOT NULL
  WITH probe LIMIT 1
  CALL (probe) {
    WITH probe WHERE probe IS NOT NULL
    MATCH (m:ReasoningTrace)
      SEARCH m IN (
        VECTOR INDEX memory_task_embedding
        FOR $embedding
        WHERE m.namespace = $namespace AND m.current = true
        LIMIT $task_k
      ) SCORE AS score
    RETURN collect({m: m, score: score}) AS task_raw
  }
  RETURN task_raw
}
CALL (raw, task_raw) {
  UNWIND [hit IN raw | hit {.*, task: false}] + [hit IN task_raw | hit {.*, task: true}] AS hit
  WITH hit.m AS m, hit.score AS score, hit.task AS task, hit.m.created_by_origin AS origin
  WITH m, score, task, origin,
       (m.system_to IS NULL OR m.system_to > $closed_after) AND m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of) AS in_time
  WITH task, in_time AND origin IN $origins AND m.uid IS NOT NULL AND m.memory_id IS NOT NULL AS visible,
       CASE WHEN (origin IS NULL OR NOT origin IN $recognized) AND coalesce(in_time, true)
            THEN {memory_id: coalesce(m.memory_id, m.uid), origin: origin} END AS hidden,
       [m.uid, m.memory_id, m.kind, score, m.quality_verdict, m.quality_score,
        m.episode, m.position] AS hit
  RETURN
    collect(CASE WHEN visible AND NOT task THEN hit END) AS hits,
    collect(CASE WHEN visible AND task THEN hit END) AS task_hits,
    collect(hidden) AS unrecognized
}
RETURN size(raw) AS fetched, hits, task_hits, unrecognized
