"""Schema, Cypher files and start-up checks against the real Neo4j (issue 2)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from service.container import Services
from service.embeddings import FakeEmbedder
from service.errors import SchemaError
from service.graph.cypher import NamedQuery, QueryRegistry
from service.graph.repository import Graph
from service.graph.schema import apply_schema, index_states
from service.main import create_app
from service.settings import Settings
from tests.conftest import make_settings

REGISTRY = QueryRegistry.load(Settings().cypher_dir)


@pytest.fixture(scope="module")
def graph(neo4j_driver: Driver, settings: Settings) -> Graph:
    return Graph(neo4j_driver, REGISTRY, settings.neo4j_database, settings.query_timeout_s)


def test_server_is_neo4j_5_26_community(neo4j_driver: Driver) -> None:
    records, _, _ = neo4j_driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN *"
    )
    row = records[0]
    assert row["name"] == "Neo4j Kernel"
    assert row["versions"][0].startswith("5.26.")
    assert row["edition"] == "community"


def test_schema_is_applied_and_online(app_client: TestClient, graph: Graph) -> None:
    states = {s.name: s for s in index_states(graph)}
    for name in (
        "memory_embedding",
        "memory_content",
        "memory_uid",
        "reasoning_step_uid",
        "task_uid",
        "source_uid",
        "memory_version",
        "fact_uid",
        "decision_uid",
        "procedure_uid",
        "observation_uid",
        "reasoning_trace_uid",
    ):
        assert name in states, name
        assert states[name].state == "ONLINE", states[name]
    assert states["memory_embedding"].type == "VECTOR"
    assert states["memory_content"].type == "FULLTEXT"


def test_applying_the_schema_twice_changes_nothing(
    app_client: TestClient, graph: Graph, neo4j_driver: Driver
) -> None:
    def snapshot() -> list[tuple[Any, ...]]:
        records, _, _ = neo4j_driver.execute_query(
            "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state RETURN name, type, labelsOrTypes, properties, state ORDER BY name"
        )
        constraints, _, _ = neo4j_driver.execute_query(
            "SHOW CONSTRAINTS YIELD name, type RETURN name, type ORDER BY name"
        )
        return [tuple(r.values()) for r in records] + [tuple(r.values()) for r in constraints]

    before = snapshot()
    apply_schema(graph)
    apply_schema(graph)
    assert snapshot() == before


def test_vector_dimension_mismatch_stops_startup(settings: Settings, neo4j_driver: Driver) -> None:
    app = create_app(settings, embedder=FakeEmbedder(16))
    with pytest.raises(SchemaError) as info, TestClient(app):
        pass
    message = str(info.value)
    assert "memory_embedding" in message and "384" in message and "16" in message


@pytest.mark.parametrize("query", [q for q in REGISTRY if q.mode != "schema"], ids=lambda q: q.name)
def test_every_cypher_file_parses_with_its_declared_params(
    query: NamedQuery, neo4j_driver: Driver, settings: Settings
) -> None:
    params = {}
    with neo4j_driver.session(database=settings.neo4j_database) as s:
        for name, expr in query.examples.items():
            record = s.run(f"RETURN {expr} AS v").single(strict=True)
            assert record is not None
            params[name] = record["v"]
        s.run("EXPLAIN " + query.text, params).consume()


def test_readyz_is_ready(app_client: TestClient) -> None:
    r = app_client.get("/readyz")
    assert r.status_code == 200, r.text
    assert r.json() == {"status": "ready", "neo4j": True, "schema": True, "model": True}
    assert app_client.get("/healthz").json() == {"status": "ok"}


def test_neomodel_uses_the_shared_driver(fake_embedder) -> None:  # type: ignore[no-untyped-def]
    from neomodel import get_config

    from service.graph.nodes import Fact

    key = "k-neomodel-test"
    namespace = "test_neomodel_" + __import__("uuid").uuid4().hex[:8]
    # Its own settings holding its key: the shared `settings` fixture is never changed.
    own = make_settings(RATIONALE_API_KEYS={key: {"namespace": namespace}})
    app = create_app(own, embedder=fake_embedder)
    with TestClient(app) as client:
        services: Services = client.app.state.services  # type: ignore[attr-defined]
        config = get_config()
        assert config.driver is services.graph.driver
        assert not config.database_url
        try:
            r = client.post(
                "/v1/memories",
                json={
                    "kind": "fact",
                    "content": "neomodel reads what the API wrote",
                    "subject": "om",
                    "attribute": "check",
                },
                headers={"Authorization": f"Bearer {key}"},
            )
            assert r.status_code == 201, r.text
            node = Fact.nodes.get(uid=r.json()["uid"])
            assert (node.content, node.namespace, node.subject, node.version) == (
                "neomodel reads what the API wrote",
                namespace,
                "om",
                1,
            )
            assert node.created_by_origin == "user"
        finally:
            services.graph.driver.execute_query(
                "MATCH (n {namespace: $ns}) DETACH DELETE n", ns=namespace
            )
    assert get_config().driver is None  # unbound before the driver closed
