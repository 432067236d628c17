// How many memory versions a namespace holds, counted up to $cap + 1 (below $cap an exact scan beats over-fetching the global vector index).
// mode: read
// returns: scalar
// :param namespace => 'default'
// :param cap => 1000
MATCH (m:Memory {namespace: $namespace})
WHERE m.kind IS NOT NULL
WITH m LIMIT $cap + 1
RETURN count(m) AS n
