"""Fault tests: a second, test-owned Neo4j stopped and started under a live service."""
