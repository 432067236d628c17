// The proposal keys already used by maintenance traces of a namespace, so a pair is proposed once.
// mode: read
// returns: many
// :param namespace => 'default'
// :param prefix => 'duplicate-candidates:'
MATCH (t:ReasoningTrace {namespace: $namespace})
WHERE t.proposal_key STARTS WITH $prefix
RETURN t.proposal_key AS proposal_key
ORDER BY proposal_key
