// Vector candidates of one namespace, filtered inside the vector index (Cypher 25 SEARCH on memory_embedding's filter property namespace), nearest first.
// mode: read
// returns: many
// :param embedding => [i IN range(1, 384) | 0.05103103630798288]
// :param namespace => 'default'
// :param k => 100
CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (
    VECTOR INDEX memory_embedding
    FOR $embedding
    WHERE m.namespace = $namespace
    LIMIT $k
  ) SCORE AS score
RETURN m.uid AS uid, m.memory_id AS memory_id, m.kind AS kind, score
ORDER BY score DESC
