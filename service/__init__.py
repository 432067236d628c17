"""Rationale: agent memory on Neo4j that keeps why next to what."""
