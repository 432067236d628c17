// Every :Observation node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT observation_uid IF NOT EXISTS FOR (n:Observation) REQUIRE n.uid IS UNIQUE
