// Finds a :Source by the hash of its text form (line endings, a byte-order mark and trailing white space aside): the same document handed in again with CRLF line endings under another name is the same source.
// mode: schema
// returns: none
CREATE INDEX source_text_sha IF NOT EXISTS FOR (s:Source) ON (s.namespace, s.text_sha256)
