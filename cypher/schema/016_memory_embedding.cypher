// Vector index over memory embeddings (cosine; $dimensions is the embedding model's, given at start-up), with namespace, kind and current (system_to IS NULL, kept by every version write) as in-index filter properties for Cypher 25 SEARCH ... WHERE.
// mode: schema
// returns: none
// :param dimensions => 384
CYPHER 25 CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON m.embedding WITH [m.namespace, m.kind, m.current] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
