// Mark a maintenance trace with the key of what it proposes (unique per namespace: schema reasoning_trace_proposal_key).
// mode: write
// returns: one
// :param namespace => 'default'
// :param trace_uid => 'uid-of-trace'
// :param proposal_key => 'duplicate-candidates:id-a|id-b'
MATCH (t:ReasoningTrace {namespace: $namespace, uid: $trace_uid})
SET t.proposal_key = $proposal_key
RETURN t.proposal_key AS proposal_key
