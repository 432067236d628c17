// Record that every data migration up to $version has run on this database (one stamp node).
// mode: write
// returns: one
// :param version => 1
MERGE (s:SchemaMigration {name: 'rationale'})
SET s.version = $version
RETURN s.version AS version
