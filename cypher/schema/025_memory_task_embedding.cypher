// Vector index over reasoning traces' task embeddings (all-MiniLM-L6-v2: 384 dimensions, cosine): a trace is found when a query restates its task; namespace and current are in-index filter properties for Cypher 25 SEARCH ... WHERE.
// mode: schema
// returns: none
CYPHER 25 CREATE VECTOR INDEX memory_task_embedding IF NOT EXISTS FOR (m:ReasoningTrace) ON m.task_embedding WITH [m.namespace, m.current] OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}
