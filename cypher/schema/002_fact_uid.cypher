// Every :Fact node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT fact_uid IF NOT EXISTS FOR (n:Fact) REQUIRE n.uid IS UNIQUE
