// Drop one index by name (schema upgrade: its definition differs from its file, which then recreates it).
// mode: schema
// returns: none
// :param name => 'memory_embedding'
DROP INDEX $name IF EXISTS
