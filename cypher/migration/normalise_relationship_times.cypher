// Rewrite every relationship time stored with a zone id or a non-UTC offset to UTC with offset `Z` (idempotent).
// mode: write
// returns: one
// :param namespace => null
MATCH (a)-[r]->()
WHERE $namespace IS NULL OR a.namespace = $namespace
WITH r, [k IN keys(r) WHERE r[k] IS :: ZONED DATETIME AND r[k].timezone <> 'Z'] AS zoned
WHERE size(zoned) > 0
UNWIND zoned AS k
SET r[k] = datetime({datetime: r[k], timezone: 'Z'})
RETURN count(k) AS changed
