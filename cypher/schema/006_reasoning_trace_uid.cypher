// Every :ReasoningTrace node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT reasoning_trace_uid IF NOT EXISTS FOR (n:ReasoningTrace) REQUIRE n.uid IS UNIQUE
