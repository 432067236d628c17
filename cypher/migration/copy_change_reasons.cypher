// Give versions written before `change_reason` was stored (2026-12-05) the reason their SUPERSEDES link to the version before holds, $limit a write (idempotent: a version that has one is left alone; run again until changed is 0).
// mode: write
// returns: one
// :param namespace => null
// :param limit => 1000
MATCH (m:Memory)-[s:SUPERSEDES]->(:Memory)
WHERE m.change_reason IS NULL AND s.reason IS NOT NULL
  AND ($namespace IS NULL OR m.namespace = $namespace)
WITH m, collect(s.reason)[0] AS reason
LIMIT $limit
SET m.change_reason = reason
RETURN count(m) AS changed
