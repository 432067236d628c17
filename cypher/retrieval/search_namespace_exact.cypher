// Exact cosine ranking of the visible memories of one namespace (the fallback when the filtered vector SEARCH returned its full depth yet valid time and visibility left fewer than the page's limit, or kept failing); in a read of current versions a trace scores the better of its whole text's and its task's similarity, its task's kept as task_score, as the vector statement's task index gives it (CandidateFinder.vector).
// mode: read
// returns: many
// values: plain
// :param embedding => [i IN range(1, 384) | 0.05103103630798288]
// :param k => 100
// :param namespace => 'default'
// :param kinds => null
// :param as_of => datetime()
// ($as_of null: every valid time, a history search that names no as_of)
// :param closed_after => datetime()
// :param known_at => null
// :param include_superseded => false
// :param origins => ['ingestion', 'user']
MATCH (m:Memory {namespace: $namespace})
WHERE m.kind IS NOT NULL AND ($kinds IS NULL OR m.kind IN $kinds)
  AND NOT m:ReasoningStep
  AND m.created_by_origin IN $origins
  AND m.embedding IS NOT NULL AND m.uid IS NOT NULL AND m.memory_id IS NOT NULL
  AND CASE
        WHEN $include_superseded THEN $known_at IS NULL OR m.system_from <= $known_at
        WHEN $known_at IS NULL THEN m.system_to IS NULL OR m.system_to > $closed_after
        ELSE m.system_from <= $known_at AND (m.system_to IS NULL OR m.system_to > $known_at)
      END
  AND ($as_of IS NULL OR m.valid_from <= $as_of AND (m.valid_to IS NULL OR m.valid_to > $as_of))
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS whole,
     CASE WHEN m.task_embedding IS NOT NULL AND $known_at IS NULL AND NOT $include_superseded
          THEN vector.similarity.cosine(m.task_embedding, $embedding) END AS task_score
WITH m, task_score, CASE WHEN task_score > whole THEN task_score ELSE whole END AS score
ORDER BY score DESC, m.uid
LIMIT $k
RETURN m.uid AS uid, m.memory_id AS memory_id, m.kind AS kind, score AS score,
       m.quality_verdict AS quality_verdict, m.quality_score AS quality_score,
       m.episode AS episode, m.position AS position, task_score
