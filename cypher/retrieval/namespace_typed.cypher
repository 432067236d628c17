// Whether one namespace holds a memory without the lexical namespace token (search_ns): one typed straight into Neo4j Browser, or written before the token existed. Only then can the fulltext side's browser query (memories without search_ns) find anything, so recall skips that query for a namespace checked clean (service/domain/retrieval/typed.py).
// mode: read
// returns: one
// values: plain
// :param namespace => 'default'
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.search_ns IS NULL
WITH m LIMIT 1
RETURN count(m) > 0 AS typed
