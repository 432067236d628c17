// The old non-unique range index `source_sha` on a document's hash, if it is still there (the unique constraint of the same name replaces it).
// mode: read
// returns: optional
SHOW INDEXES YIELD name, owningConstraint
WHERE name = 'source_sha' AND owningConstraint IS NULL
RETURN name
