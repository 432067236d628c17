// What maintenance wrote or changed in a period, as a table: when, which job, what it wrote (a trace, a new version), what changed (old -> new), and why.
// mode: read
// returns: many
// :params {namespace: 'default', since: '', until: ''}
// :param namespace => 'default'
// :param since => ''
// :param until => ''
// $since, $until: ISO 8601 times (Browser's :params sends text, not datetimes), '' for 7 days ago and now.
WITH CASE $since WHEN '' THEN datetime() - duration('P7D') ELSE datetime($since) END AS since,
     CASE $until WHEN '' THEN datetime() ELSE datetime($until) END AS until
CALL (since, until) {
  MATCH (t:ReasoningTrace {namespace: $namespace, created_by_origin: 'maintenance'})
  WHERE t.system_from >= since AND t.system_from < until
  RETURN t.system_from AS at, t.created_by_actor AS job, 'trace' AS wrote,
         t.task_text AS what, [] AS changes, t.conclusion AS why, t.memory_id AS memory_id
  UNION ALL
  MATCH (v:Memory {namespace: $namespace, last_modified_by_origin: 'maintenance'})-[sup:SUPERSEDES]->(old:Memory)
  WHERE v.system_from >= since AND v.system_from < until AND sup.origin = 'maintenance'
  RETURN v.system_from AS at, v.last_modified_by_actor AS job, v.kind + ' v' + v.version AS wrote,
         v.content AS what,
         [k IN ['content', 'status', 'confidence', 'valid_to']
          WHERE coalesce(toString(old[k]), '-') <> coalesce(toString(v[k]), '-')
          | k + ' ' + coalesce(toString(old[k]), '-') + ' -> ' + coalesce(toString(v[k]), '-')] AS changes,
         sup.reason AS why, v.memory_id AS memory_id
}
RETURN at, job, wrote, what, changes, why, memory_id
ORDER BY at DESC, wrote
