"""A transaction that runs past the query timeout is a 503 `graph.timeout`, never a 500."""

from __future__ import annotations

import uuid

import pytest
from neo4j import Driver

from service.errors import GraphTimeoutError
from service.graph.cypher import QueryRegistry
from service.graph.query_names import QueryName
from service.graph.repository import Graph
from service.settings import Settings


def test_a_query_past_the_timeout_raises_graph_timeout(
    settings: Settings, neo4j_driver: Driver
) -> None:
    registry = QueryRegistry.production(settings.cypher_dir)
    graph = Graph(neo4j_driver, registry, settings.neo4j_database, timeout_s=0.01)
    # 300,000 index seeks: far longer than 10 ms on any machine.
    uids = [str(uuid.uuid4()) for _ in range(300_000)]
    params = {"namespace": "test_timeout", "uids": uids, "lineage_origins": ["user"]}
    with pytest.raises(GraphTimeoutError, match="query timeout") as info:
        graph.read(lambda tx: tx.run(QueryName.RETRIEVAL_LIST_HITS, params))
    assert info.value.code == "graph.timeout"
    # The breaker stays closed: a timeout is not an outage.
    assert graph.availability.available
    assert (
        graph.read(lambda tx: tx.run(QueryName.RETRIEVAL_LIST_HITS, {**params, "uids": []})) == []
    )
