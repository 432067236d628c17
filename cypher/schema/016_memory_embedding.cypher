// Vector index over memory embeddings (all-MiniLM-L6-v2: 384 dimensions, cosine), with namespace, kind and current (system_to IS NULL, kept by every version write) as in-index filter properties for Cypher 25 SEARCH ... WHERE.
// mode: schema
// returns: none
CYPHER 25 CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON m.embedding WITH [m.namespace, m.kind, m.current] OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}
