// Merge the :Source nodes sharing a namespace and sha256 into the oldest, moving every relationship and `source_id` reference (idempotent).
// mode: write
// returns: one
// :param namespace => null
CYPHER 25
MATCH (s:Source)
WHERE $namespace IS NULL OR s.namespace = $namespace
WITH s ORDER BY s.system_from, s.uid
WITH s.namespace AS namespace, s.sha256 AS sha256, collect(s) AS sources
WHERE size(sources) > 1
WITH head(sources) AS keep, tail(sources) AS extra
CALL (keep, extra) {
  UNWIND extra AS dup
  MATCH (a)-[r]->(dup)
  WHERE NOT a IN extra AND a <> keep
  CREATE (a)-[moved:$(type(r))]->(keep)
  SET moved = properties(r)
  RETURN count(moved) AS moved_in
}
CALL (keep, extra) {
  UNWIND extra AS dup
  MATCH (dup)-[r]->(b)
  WHERE NOT b IN extra AND b <> keep
  CREATE (keep)-[moved:$(type(r))]->(b)
  SET moved = properties(r)
  RETURN count(moved) AS moved_out
}
CALL (keep, extra) {
  MATCH (m:Memory {namespace: keep.namespace})
  WHERE m.source_id IN [dup IN extra | dup.uid]
  SET m.source_id = keep.uid
  RETURN count(m) AS relinked
}
SET keep.attempts = coalesce(keep.attempts, 0) + reduce(n = 0, dup IN extra | n + coalesce(dup.attempts, 0)),
    keep.status = CASE WHEN all(dup IN extra WHERE dup.status = keep.status) THEN keep.status ELSE 'partial' END
WITH keep, extra, moved_in + moved_out AS moved, relinked
CALL (extra) {
  UNWIND extra AS dup
  DETACH DELETE dup
  RETURN count(*) AS deleted
}
RETURN count(keep) AS merged, coalesce(sum(moved), 0) AS moved, coalesce(sum(relinked), 0) AS relinked,
       coalesce(sum(deleted), 0) AS deleted
