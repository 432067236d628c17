"""Neo4j access: driver, named Cypher, schema, neomodel node classes."""
