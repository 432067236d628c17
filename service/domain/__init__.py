"""Use cases: the memory model, visibility, lineage, quality and retrieval (no fastapi, no neo4j)."""
