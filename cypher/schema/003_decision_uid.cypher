// Every :Decision node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT decision_uid IF NOT EXISTS FOR (n:Decision) REQUIRE n.uid IS UNIQUE
