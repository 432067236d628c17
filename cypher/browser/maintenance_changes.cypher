// What maintenance wrote or changed in a period, as a graph: its traces (steps in order, what they cite) and the versions they produced beside the version each replaced.
// mode: read
// returns: one
// :params {namespace: 'default', since: '', until: ''}
// :param namespace => 'default'
// :param since => ''
// :param until => ''
// $since, $until: ISO 8601 times (Browser's :params sends text, not datetimes), '' for 7 days ago and now.
WITH CASE $since WHEN '' THEN datetime() - duration('P7D') ELSE datetime($since) END AS since,
     CASE $until WHEN '' THEN datetime() ELSE datetime($until) END AS until
MATCH (t:ReasoningTrace {namespace: $namespace, created_by_origin: 'maintenance'})
WHERE t.system_from >= since AND t.system_from < until
CALL (t) {
  OPTIONAL MATCH steps = (t)-[:HAS_STEP {index: 0}]->(:ReasoningStep)-[:NEXT*0..]->(last:ReasoningStep)
  WHERE NOT (last)-[:NEXT]->()
  OPTIONAL MATCH changed = (t)-[:PRODUCED]->(:Memory)-[:SUPERSEDES]->(:Memory)
  OPTIONAL MATCH wrote = (t)-[:PRODUCED]->(:Memory)
  RETURN steps, changed, wrote
}
CALL (t) {
  OPTIONAL MATCH cites = (t)-[:HAS_STEP]->(:ReasoningStep)-[:CITES]->(:Memory)
  RETURN collect(cites) AS cites
}
RETURN collect(t) AS maintenance_traces, collect(steps) AS steps, collect(changed) AS changed,
       collect(wrote) AS wrote, collect(cites) AS cites
