"""The start-up migrations on a scratch copy of a database holding the defects of issue 18.

The shared server already holds the uniqueness constraints, so it cannot hold duplicate
`:Source`s; this test starts its own throwaway Neo4j (`scripts/neo4j start` with its own home
and ports; stopped and deleted afterwards), writes the defects there with raw Cypher as older
versions stored them, and checks that the migrations fix them without losing an edge, that the
schema's constraints can then be created, and that a second run changes nothing.
"""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase

from service.domain.reasoning.record import task_key
from service.domain.text.lexical import identifier_parts
from service.domain.text.normalise import normalise_for_match
from service.embeddings import Embedder, FakeEmbedder
from service.errors import SchemaError
from service.graph.cypher import QueryRegistry
from service.graph.migrations import DomainRules, MigrationReport, run_migrations
from service.graph.repository import Graph
from service.graph.schema import apply_schema
from service.main import create_app
from service.settings import REPO_ROOT
from tests.conftest import make_settings

PASSWORD = "scratch-password-18"
RULES = DomainRules(
    task_key=task_key, identifier_parts=identifier_parts, match_form=normalise_for_match
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def scratch_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("neo4j-scratch")
    jars = Path(os.environ.get("NEO4J_HOME_DIR", REPO_ROOT / ".neo4j")) / "lib"
    if jars.is_dir():  # reuse the local server's jars instead of fetching them again
        (home / "lib").symlink_to(jars.resolve())
    uri = f"bolt://127.0.0.1:{_free_port()}"
    env = {
        **os.environ,
        "NEO4J_HOME_DIR": str(home),
        "NEO4J_URI": uri,
        "NEO4J_HTTP_PORT": str(_free_port()),
        "NEO4J_PASSWORD": PASSWORD,
        "NEO4J_HEAP_MAX": "512m",
        "NEO4J_HEAP_INITIAL": "256m",
        "NEO4J_PAGECACHE": "128m",
    }
    script = str(REPO_ROOT / "scripts" / "neo4j")
    subprocess.run([script, "start"], env=env, check=True, timeout=300)
    try:
        yield uri
    finally:
        subprocess.run([script, "stop"], env=env, check=False, timeout=120)


@pytest.fixture(scope="module")
def scratch(scratch_uri: str) -> Iterator[Driver]:
    driver = GraphDatabase.driver(scratch_uri, auth=("neo4j", PASSWORD))
    driver.verify_connectivity()
    yield driver
    driver.close()


DEFECTS = """
CREATE (t1:Task {namespace: $ns, uid: 't1', content: 'Why is CI red?',
                 valid_from: datetime('2025-01-01T00:00:00Z[UTC]'), system_from: datetime('2025-01-01T00:00:00Z[UTC]')})
CREATE (t2:Task {namespace: $ns, uid: 't2', content: 'why is  CI red?',
                 valid_from: datetime('2025-01-02T00:00:00Z'), system_from: datetime('2025-01-02T00:00:00Z')})
CREATE (t3:Task {namespace: $ns, uid: 't3', content: 'WHY IS CI RED?',
                 valid_from: datetime('2025-01-03T00:00:00Z'), system_from: datetime('2025-01-03T00:00:00Z')})
CREATE (other:Task {namespace: $ns, uid: 't4', content: 'Another task',
                    valid_from: datetime('2025-01-03T00:00:00Z'), system_from: datetime('2025-01-03T00:00:00Z')})
CREATE (s1:Source {namespace: $ns, uid: 's1', sha256: 'abc', name: 'a.md', status: 'complete', attempts: 1,
                   valid_from: datetime('2025-02-01T00:00:00Z'), system_from: datetime('2025-02-01T00:00:00Z')})
CREATE (s2:Source {namespace: $ns, uid: 's2', sha256: 'abc', name: 'a.md', status: 'complete', attempts: 1,
                   valid_from: datetime('2025-02-01T00:00:01Z[UTC]'), system_from: datetime('2025-02-01T00:00:01Z[UTC]')})
WITH t1, t2, t3, other, s1, s2
UNWIND range(0, 5) AS i
CREATE (r:Memory:ReasoningTrace {namespace: $ns, uid: 'r' + i, memory_id: 'r' + i, version: 1,
        kind: 'reasoning', content: 'trace ' + i, source_id: CASE WHEN i % 2 = 0 THEN 's2' ELSE 's1' END,
        valid_from: datetime('2025-09-21T10:00:00+02:00'),
        system_from: datetime('2025-09-21T08:00:00.123456789Z[UTC]')})
WITH t2, other, r, [t1, t2, t3][i % 3] AS task, [s2, s1][i % 2] AS source
CREATE (r)-[:SERVED {at: datetime('2025-09-21T08:00:00Z[UTC]')}]->(task)
CREATE (r)-[:EXTRACTED_FROM]->(source)
WITH t2, other, collect(r) AS traces
CREATE (t2)-[:RELATED_TO {note: 'kept'}]->(other)
RETURN size(traces) AS traces
"""


OLD_REASONS = """
CREATE (v1:Memory {namespace: $ns, uid: 'f1', memory_id: 'f', version: 1, kind: 'decision',
                   content: 'Use Kafka', valid_from: datetime('2025-03-01T00:00:00Z'),
                   system_from: datetime('2025-03-01T00:00:00Z'), system_to: datetime('2025-03-02T00:00:00Z')})
CREATE (v2:Memory {namespace: $ns, uid: 'f2', memory_id: 'f', version: 2, kind: 'decision',
                   content: 'Use Kafka', status: 'challenged', valid_from: datetime('2025-03-01T00:00:00Z'),
                   system_from: datetime('2025-03-02T00:00:00Z')})
CREATE (v2)-[s:SUPERSEDES {reason: 'challenged: the p95 doubled'}]->(v1)
CREATE (:Memory {namespace: $ns, uid: 'z1', memory_id: 'z', version: 1, kind: 'fact',
                 content: 'Rack\u200b A', content_norm: 'rack\u200b a',
                 valid_from: datetime('2025-03-01T00:00:00Z'), system_from: datetime('2025-03-01T00:00:00Z')})
RETURN count(s)
"""


def snapshot(driver: Driver, namespace: str) -> list[Any]:
    """Every node and relationship of the namespace with its properties, as comparable text."""
    nodes, _, _ = driver.execute_query(
        "MATCH (n {namespace: $ns}) RETURN labels(n) AS labels, "
        "[k IN keys(n) | [k, toString(n[k])]] AS props",
        ns=namespace,
    )
    rels, _, _ = driver.execute_query(
        "MATCH (a {namespace: $ns})-[r]->(b) RETURN a.uid AS a, type(r) AS type, b.uid AS b, "
        "[k IN keys(r) | [k, toString(r[k])]] AS props",
        ns=namespace,
    )
    return sorted(
        repr([sorted(r["labels"]), sorted(map(tuple, r["props"]))]) for r in nodes
    ) + sorted(repr([r["a"], r["type"], r["b"], sorted(map(tuple, r["props"]))]) for r in rels)


def one(driver: Driver, cypher: str, namespace: str) -> Any:
    records, _, _ = driver.execute_query(cypher, ns=namespace)
    return records[0][0]


def test_migrations_fix_the_defects_and_a_second_run_changes_nothing(
    scratch: Driver, scratch_uri: str, fake_embedder: Embedder
) -> None:
    ns = f"test_{uuid.uuid4().hex[:16]}"
    graph = Graph(scratch, QueryRegistry.production(REPO_ROOT / "cypher"), "neo4j", 60)
    # The old schema's plain index on the hash, as a database from before holds it.
    scratch.execute_query(
        "CREATE INDEX source_sha IF NOT EXISTS FOR (s:Source) ON (s.namespace, s.sha256)"
    )
    assert one(scratch, DEFECTS, ns) == 6
    # Two versions of a memory written before a version stored why it was written.
    assert one(scratch, OLD_REASONS, ns) == 1
    instants_before = one(
        scratch,
        "MATCH (r:ReasoningTrace {namespace: $ns}) RETURN collect(r.system_from.epochSeconds * 1000000000 "
        "+ r.system_from.nanosecond)",
        ns,
    )

    first = run_migrations(graph, RULES)
    assert first.tasks_deleted == 2 and first.sources_deleted == 1
    assert first.node_times >= 6 + 6 + 4 and first.relationship_times == 6
    assert first.edges_moved == 4 + 1 + 3  # SERVED 2 + 2, RELATED_TO, EXTRACTED_FROM 3
    assert first.reasons_copied == 1
    # A zero-width space no longer makes a look-alike text another memory's.
    assert first.norms_set == 1
    assert (
        one(scratch, "MATCH (m:Memory {namespace: $ns, uid: 'z1'}) RETURN m.content_norm", ns)
        == "rack a"
    )
    reasons = "MATCH (m:Memory {namespace: $ns, memory_id: 'f'}) WITH m ORDER BY m.version RETURN collect(coalesce(m.change_reason, '-'))"
    assert one(scratch, reasons, ns) == ["-", "challenged: the p95 doubled"]

    # Correct: one task per key with every edge, one source, one time form, same instants.
    assert one(scratch, "MATCH (t:Task {namespace: $ns}) RETURN count(t)", ns) == 2
    kept = "MATCH (t:Task {namespace: $ns, key: 'why is ci red?'}) RETURN t.uid"
    assert one(scratch, kept, ns) == "t1"  # the oldest
    served = (
        "MATCH (:ReasoningTrace {namespace: $ns})-[:SERVED]->(t:Task {uid: 't1'}) RETURN count(*)"
    )
    assert one(scratch, served, ns) == 6
    assert (
        one(
            scratch,
            "MATCH (:Task {uid: 't1'})-[r:RELATED_TO {note: 'kept'}]->(:Task {uid: 't4'}) RETURN count(r)",
            ns,
        )
        == 1
    )
    assert one(scratch, "MATCH (s:Source {namespace: $ns}) RETURN collect(s.uid)", ns) == ["s1"]
    assert one(scratch, "MATCH (s:Source {uid: 's1'}) RETURN s.attempts", ns) == 2
    extracted = "MATCH (:ReasoningTrace {namespace: $ns})-[:EXTRACTED_FROM]->(s:Source {uid: 's1'}) RETURN count(*)"
    assert one(scratch, extracted, ns) == 6
    assert one(
        scratch,
        "MATCH (r:ReasoningTrace {namespace: $ns}) RETURN collect(DISTINCT r.source_id)",
        ns,
    ) == ["s1"]
    zones = (
        "MATCH (n {namespace: $ns}) OPTIONAL MATCH (n)-[r]->() "
        "WITH [k IN keys(n) WHERE n[k] IS :: ZONED DATETIME | n[k].timezone] + "
        "coalesce([k IN keys(r) WHERE r[k] IS :: ZONED DATETIME | r[k].timezone], []) AS zs "
        "UNWIND zs AS z RETURN collect(DISTINCT z)"
    )
    assert one(scratch, zones, ns) == ["Z"]
    assert (
        one(
            scratch,
            "MATCH (r:ReasoningTrace {namespace: $ns}) RETURN collect(r.system_from.epochSeconds * 1000000000 "
            "+ r.system_from.nanosecond)",
            ns,
        )
        == instants_before
    )
    assert one(
        scratch,
        "MATCH (r:ReasoningTrace {namespace: $ns}) RETURN collect(DISTINCT toString(r.valid_from))",
        ns,
    ) == ["2025-09-21T08:00:00Z"]

    # The schema's uniqueness constraints can now be created on the migrated data.
    apply_schema(graph, online_timeout_s=120)
    after_first = snapshot(scratch, ns)
    assert run_migrations(graph, RULES) == MigrationReport()
    assert snapshot(scratch, ns) == after_first

    # The service starts on the migrated database (migrations, then the schema) and is ready.
    settings = make_settings(NEO4J_URI=scratch_uri, NEO4J_PASSWORD=PASSWORD)
    with TestClient(create_app(settings, embedder=fake_embedder)) as client:
        assert client.get("/readyz").status_code == 200
    assert run_migrations(graph, RULES) == MigrationReport()


def test_the_vector_index_takes_the_models_dimension(
    scratch: Driver, scratch_uri: str, fake_embedder: Embedder
) -> None:
    scratch.execute_query("DROP INDEX memory_embedding IF EXISTS")
    settings = make_settings(NEO4J_URI=scratch_uri, NEO4J_PASSWORD=PASSWORD)
    with TestClient(create_app(settings, embedder=FakeEmbedder(16))) as client:
        assert client.get("/readyz").status_code == 200
    dims = "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'memory_embedding' RETURN options"
    assert one(scratch, dims, "")["indexConfig"]["vector.dimensions"] == 16
    # An existing index of another dimension stops start-up, naming both numbers.
    with (
        pytest.raises(SchemaError) as mismatch,
        TestClient(create_app(settings, embedder=fake_embedder)),
    ):
        pass
    assert "16" in str(mismatch.value) and "384" in str(mismatch.value)
    # A RATIONALE_EMBEDDING_DIM the model does not give stops start-up too.
    wrong = make_settings(
        NEO4J_URI=scratch_uri, NEO4J_PASSWORD=PASSWORD, RATIONALE_EMBEDDING_DIM=1024
    )
    with (
        pytest.raises(SchemaError) as setting,
        TestClient(create_app(wrong, embedder=FakeEmbedder(16))),
    ):
        pass
    assert "1024" in str(setting.value) and "16" in str(setting.value)
