"""A transaction that runs past the query timeout is a 503 `graph.timeout`, never a 500."""

from __future__ import annotations

import pytest
from neo4j import Driver, Query
from neo4j.exceptions import CypherSyntaxError

from service.errors import GraphTimeoutError
from service.graph.repository import translate_errors
from service.settings import Settings


def test_a_query_past_the_timeout_raises_graph_timeout(
    settings: Settings, neo4j_driver: Driver
) -> None:
    # Counts to ten billion: Neo4j's transaction monitor stops it at the 50 ms timeout.
    endless = Query("UNWIND range(1, 10000000000) AS x RETURN count(x) AS n", timeout=0.05)
    with (
        pytest.raises(GraphTimeoutError, match="query timeout") as info,
        translate_errors(),
        neo4j_driver.session(database=settings.neo4j_database) as s,
    ):
        s.run(endless).consume()
    assert info.value.code == "graph.timeout"
    # Any other client error is not a timeout: it passes through unchanged.
    with (
        pytest.raises(CypherSyntaxError),
        translate_errors(),
        neo4j_driver.session(database=settings.neo4j_database) as s,
    ):
        s.run("RETURN 1 +").consume()
