"""Schema, Cypher files, start-up checks and the in-place schema upgrade against the real Neo4j."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from service.container import Services
from service.embeddings import FakeEmbedder
from service.errors import SchemaError
from service.graph.cypher import NamedQuery, QueryRegistry
from service.graph.repository import Graph
from service.graph.schema import (
    apply_schema,
    declared_index,
    index_definitions,
    index_states,
    outdated_indexes,
)
from service.main import create_app
from service.settings import Settings
from tests.conftest import make_settings

REGISTRY = QueryRegistry.load(Settings().cypher_dir)


@pytest.fixture(scope="module")
def graph(neo4j_driver: Driver, settings: Settings) -> Graph:
    return Graph(neo4j_driver, REGISTRY, settings.neo4j_database, settings.query_timeout_s)


def test_server_is_neo4j_2026_09_community(neo4j_driver: Driver) -> None:
    records, _, _ = neo4j_driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN *"
    )
    row = records[0]
    assert row["name"] == "Neo4j Kernel"
    assert row["versions"][0].startswith("2026.09.")
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


def test_the_server_holds_every_index_as_its_file_declares_it(
    app_client: TestClient, graph: Graph
) -> None:
    assert outdated_indexes(graph) == {}
    vector = index_definitions(graph)["memory_embedding"]
    assert vector.type == "VECTOR"
    assert vector.properties[:3] == ("embedding", "namespace", "kind")
    assert vector.config["vector.dimensions"] == 384


# Old definitions as a 5.26 data directory holds them, and the files that replace them. The
# indexes get a label and names of their own, so the shared database's indexes stay untouched.
OLD_VECTOR = (
    "CREATE VECTOR INDEX {name}_embedding FOR (m:{label}) ON m.embedding OPTIONS "
    "{{indexConfig: {{`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}}}"
)
NEW_VECTOR = """// Test vector index with filter properties.
// mode: schema
// returns: none
CYPHER 25 CREATE VECTOR INDEX {name}_embedding IF NOT EXISTS FOR (m:{label}) ON m.embedding WITH [m.namespace, m.kind] OPTIONS {{indexConfig: {{`vector.dimensions`: 4, `vector.similarity_function`: 'cosine'}}}}
"""
OLD_FULLTEXT = (
    "CREATE FULLTEXT INDEX {name}_content FOR (m:{label}) ON EACH [m.content] OPTIONS "
    "{{indexConfig: {{`fulltext.analyzer`: 'standard-no-stop-words'}}}}"
)
NEW_FULLTEXT = """// Test fulltext index with another analyzer and one more property.
// mode: schema
// returns: none
CREATE FULLTEXT INDEX {name}_content IF NOT EXISTS FOR (m:{label}) ON EACH [m.content, m.context] OPTIONS {{indexConfig: {{`fulltext.analyzer`: 'english'}}}}
"""


@pytest.fixture
def upgrade_graph(
    tmp_path: Path, neo4j_driver: Driver, settings: Settings
) -> Iterator[tuple[Graph, str]]:
    """A registry whose `schema/` holds only the new test definitions; drops them afterwards."""
    name = "test_" + uuid.uuid4().hex[:10]
    label = "T" + name[5:]
    shutil.copytree(Path(settings.cypher_dir) / "schema_state", tmp_path / "schema_state")
    (tmp_path / "schema").mkdir()
    (tmp_path / "schema/001_vector.cypher").write_text(NEW_VECTOR.format(name=name, label=label))
    (tmp_path / "schema/002_fulltext.cypher").write_text(
        NEW_FULLTEXT.format(name=name, label=label)
    )
    registry = QueryRegistry.load(tmp_path)
    graph = Graph(neo4j_driver, registry, settings.neo4j_database, settings.query_timeout_s)
    try:
        yield graph, name
    finally:
        for suffix in ("embedding", "content", "other"):
            neo4j_driver.execute_query(f"DROP INDEX {name}_{suffix} IF EXISTS")
        neo4j_driver.execute_query(f"MATCH (n:{label}) DETACH DELETE n")


def _index_rows(driver: Driver, name: str) -> list[tuple[object, ...]]:
    records, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD id, name, type, properties, options, state "
        "WHERE name STARTS WITH $name RETURN id, name, type, properties, options, state ORDER BY name",
        name=name,
    )
    return [tuple(r.values()) for r in records]


def test_an_index_whose_definition_changed_is_recreated_in_place(
    upgrade_graph: tuple[Graph, str], neo4j_driver: Driver
) -> None:
    graph, name = upgrade_graph
    label = "T" + name[5:]
    for old in (OLD_VECTOR, OLD_FULLTEXT):
        neo4j_driver.execute_query(old.format(name=name, label=label))
    neo4j_driver.execute_query(
        f"UNWIND range(1, 20) AS i CREATE (:{label} {{namespace: 'a' + (i % 2), kind: 'fact', "
        "content: 'running memories ' + i, embedding: [1.0, toFloat(i), 0.5, 0.25]})"
    )
    assert set(outdated_indexes(graph)) == {f"{name}_embedding", f"{name}_content"}
    old_rows = {row[1]: row for row in _index_rows(neo4j_driver, name)}

    apply_schema(graph, online_timeout_s=120)

    assert outdated_indexes(graph) == {}
    upgraded = index_definitions(graph)
    vector, fulltext = upgraded[f"{name}_embedding"], upgraded[f"{name}_content"]
    assert vector.properties == ("embedding", "namespace", "kind")
    assert fulltext.properties == ("content", "context")
    assert fulltext.config["fulltext.analyzer"] == "english"
    rows = _index_rows(neo4j_driver, name)
    assert all(row[5] == "ONLINE" for row in rows), rows
    # Dropped and created anew under the same name: the stored definition (properties, options)
    # is the new one. (Not the index id: Neo4j may hand a dropped index's id to the next index,
    # as it did once on a fresh CI server.)
    assert all(old_rows[row[1]][3:5] != row[3:5] for row in rows), (old_rows, rows)
    # The recreated vector index serves an in-index filtered search over the existing nodes.
    records, _, _ = neo4j_driver.execute_query(
        f"CYPHER 25 MATCH (m:{label}) SEARCH m IN (VECTOR INDEX {name}_embedding "
        "FOR [1.0, 3.0, 0.5, 0.25] WHERE m.namespace = 'a1' LIMIT 5) SCORE AS s "
        "RETURN m.namespace AS ns"
    )
    assert [r["ns"] for r in records] == ["a1"] * 5

    apply_schema(graph, online_timeout_s=120)
    assert _index_rows(neo4j_driver, name) == rows  # second run: same ids, nothing recreated


def test_an_index_of_another_name_on_the_same_schema_stops_the_upgrade(
    upgrade_graph: tuple[Graph, str], neo4j_driver: Driver
) -> None:
    graph, name = upgrade_graph
    label = "T" + name[5:]
    neo4j_driver.execute_query(
        f"CREATE FULLTEXT INDEX {name}_other FOR (m:{label}) ON EACH [m.content, m.context] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
    )
    with pytest.raises(SchemaError) as info:
        apply_schema(graph, online_timeout_s=120)
    assert f"{name}_content" in str(info.value) and "another name" in str(info.value)


def test_schema_files_declare_their_index_definitions() -> None:
    declared = {d.name: d for q in REGISTRY.schema() if (d := declared_index(q)) is not None}
    vector = declared["memory_embedding"]
    assert (vector.type, vector.labels, vector.properties) == (
        "VECTOR",
        ("Memory",),
        ("embedding", "namespace", "kind", "current"),
    )
    # The dimension is the model's, passed at start-up (`$dimensions`): not part of the file.
    assert vector.config == {"vector.similarity_function": "cosine"}
    assert declared["memory_namespace_kind"].type == "RANGE"
    assert "memory_uid" not in declared  # a constraint, not an index statement


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
            # An example is evaluated in the language its file declares (`CYPHER 25 ...` files).
            code = [
                ln
                for ln in query.text.splitlines()
                if ln.strip() and not ln.lstrip().startswith("//")
            ]
            language = "CYPHER 25 " if code and code[0].strip().startswith("CYPHER 25") else ""
            record = s.run(f"{language}RETURN {expr} AS v").single(strict=True)
            assert record is not None
            params[name] = record["v"]
        s.run("EXPLAIN " + query.text, params).consume()


def test_readyz_is_ready(app_client: TestClient) -> None:
    r = app_client.get("/readyz")
    assert r.status_code == 200, r.text
    body = r.json()
    assert {k: body[k] for k in ("status", "neo4j", "schema", "model")} == {
        "status": "ready",
        "neo4j": True,
        "schema": True,
        "model": True,
    }
    assert body["breaker"]["state"] == "closed"
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


def test_start_up_migrations_run_once_per_version(graph: Graph, neo4j_driver: Driver) -> None:
    from service.domain.reasoning.record import task_key
    from service.domain.text.lexical import identifier_parts
    from service.domain.text.normalise import normalise_for_match
    from service.graph.migrations import MIGRATIONS_VERSION, DomainRules, apply_migrations

    rules = DomainRules(
        task_key=task_key, identifier_parts=identifier_parts, match_form=normalise_for_match
    )

    neo4j_driver.execute_query("MATCH (s:SchemaMigration {name: 'rationale'}) DETACH DELETE s")
    assert apply_migrations(graph, rules) is not None  # unstamped: every step runs
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (s:SchemaMigration {name: 'rationale'}) RETURN s.version AS v"
    )
    assert [r["v"] for r in records] == [MIGRATIONS_VERSION]
    assert apply_migrations(graph, rules) is None  # stamped: nothing scans the database
