// One :Lease per name: replicas racing to create the scheduler's lease meet on the same node.
// mode: schema
// returns: none
CREATE CONSTRAINT lease_name IF NOT EXISTS FOR (l:Lease) REQUIRE l.name IS UNIQUE
