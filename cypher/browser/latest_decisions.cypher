// The latest decisions in force (current versions valid now, newest first: a superseded, rejected or invalidated decision is no longer listed) with the reasoning behind them: every version back to the one a trace produced, those traces and their tasks.
// mode: read
// returns: one
// :params {namespace: 'default', limit: 10}
// :param namespace => 'default'
// :param limit => 10
MATCH (d:Decision {namespace: $namespace})
WHERE d.system_to IS NULL AND d.valid_from <= datetime() AND (d.valid_to IS NULL OR d.valid_to > datetime())
WITH d ORDER BY d.system_from DESC LIMIT toInteger($limit)
OPTIONAL MATCH reasoning = (d)-[:SUPERSEDES*0..]->(:Decision)<-[:PRODUCED]-(t:ReasoningTrace)-[:SERVED]->(:Task)
RETURN collect(DISTINCT d) AS decisions, collect(reasoning) AS reasoning
