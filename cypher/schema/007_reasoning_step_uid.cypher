// Every :ReasoningStep node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT reasoning_step_uid IF NOT EXISTS FOR (n:ReasoningStep) REQUIRE n.uid IS UNIQUE
