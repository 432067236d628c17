// Range index to find a handed-in document again by its hash.
// mode: schema
// returns: none
CREATE INDEX source_sha IF NOT EXISTS FOR (s:Source) ON (s.namespace, s.sha256)
