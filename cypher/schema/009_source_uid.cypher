// Every :Source node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT source_uid IF NOT EXISTS FOR (n:Source) REQUIRE n.uid IS UNIQUE
