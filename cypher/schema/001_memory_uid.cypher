// Every :Memory node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT memory_uid IF NOT EXISTS FOR (n:Memory) REQUIRE n.uid IS UNIQUE
