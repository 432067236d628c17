// Every :Task node has a unique uid.
// mode: schema
// returns: none
CREATE CONSTRAINT task_uid IF NOT EXISTS FOR (n:Task) REQUIRE n.uid IS UNIQUE
