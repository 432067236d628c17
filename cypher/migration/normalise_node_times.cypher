// Rewrite every node time stored with a zone id or a non-UTC offset to the one stored form: UTC, offset `Z` (idempotent).
// mode: write
// returns: one
// :param namespace => null
MATCH (n)
WHERE $namespace IS NULL OR n.namespace = $namespace
WITH n, [k IN keys(n) WHERE n[k] IS :: ZONED DATETIME AND n[k].timezone <> 'Z'] AS zoned
WHERE size(zoned) > 0
UNWIND zoned AS k
SET n[k] = datetime({datetime: n[k], timezone: 'Z'})
RETURN count(k) AS changed
