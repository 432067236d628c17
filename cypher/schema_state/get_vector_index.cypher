// Return the configured dimension of one vector index.
// mode: read
// returns: optional
// :param name => 'memory_embedding'
SHOW VECTOR INDEXES YIELD name, options
WHERE name = $name
RETURN name AS name, options.indexConfig['vector.dimensions'] AS dimensions
