// The vector floor of recall: one in-index filtered vector SEARCH of one namespace (bench/tenancy.py; never used by the service).
// mode: read
// returns: many
// :param embedding => [0.1, 0.2, 0.3]
// :param namespace => 'bench_10000'
// :param k => 100
CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (VECTOR INDEX memory_embedding FOR $embedding WHERE m.namespace = $namespace LIMIT $k)
  SCORE AS score
RETURN m.uid AS uid, score
