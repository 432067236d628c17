// One :Source per namespace and content hash: the same document handed in twice is one source (its backing index finds it).
// mode: schema
// returns: none
CREATE CONSTRAINT source_sha IF NOT EXISTS FOR (s:Source) REQUIRE (s.namespace, s.sha256) IS UNIQUE
