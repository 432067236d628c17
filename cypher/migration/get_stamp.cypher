// Return the data-migration version this database was last brought to (no row: never migrated).
// mode: read
// returns: optional
MATCH (s:SchemaMigration {name: 'rationale'})
RETURN s.version AS version
