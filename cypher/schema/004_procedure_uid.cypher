// Every :Procedure node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT procedure_uid IF NOT EXISTS FOR (n:Procedure) REQUIRE n.uid IS UNIQUE
