// A memory has at most one node per version: (memory_id, version) is unique.
// mode: schema
// returns: none
CREATE CONSTRAINT memory_version IF NOT EXISTS FOR (m:Memory) REQUIRE (m.memory_id, m.version) IS UNIQUE
