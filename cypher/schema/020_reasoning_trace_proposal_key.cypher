// A maintenance proposal (its pair key) is recorded at most once per namespace, even by concurrent runs.
// mode: schema
// returns: none
CREATE CONSTRAINT reasoning_trace_proposal_key IF NOT EXISTS FOR (t:ReasoningTrace) REQUIRE (t.namespace, t.proposal_key) IS UNIQUE
