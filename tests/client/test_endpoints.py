"""The sync client against the real service: every endpoint, typed answers (issue 13, item 2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from rationale_client import (
    Client,
    MemoryCreate,
    MemoryNotFoundError,
    MemoryUpdate,
    RetrievalItem,
    VersionConflictError,
)

from tests.client.conftest import Service
from tests.client.helpers import flaky_story, observation, unique


def test_health_and_ready(client: Client) -> None:
    assert client.health().status == "ok"
    ready = client.ready()
    assert ready.ready and ready.neo4j and ready.schema_online and ready.model


def test_create_get_update_history(client: Client) -> None:
    subject = unique("alice")
    body = MemoryCreate(
        kind="fact",
        content="Alice lives in District 2",
        subject=subject,
        attribute="home_district",
        confidence=0.8,
        valid_from=datetime(2024, 1, 1, tzinfo=UTC),
        metadata={"source": "client-test"},
    )
    first = client.memories.create(body)
    assert first.created and first.version == 1 and first.kind == "fact"
    assert first.valid_from == datetime(2024, 1, 1, tzinfo=UTC)
    assert first.created_by.origin == "user" and first.created_by.actor == "client-tests"
    assert first.metadata == {"source": "client-test"}
    again = client.memories.create(body)
    assert not again.created and again.memory_id == first.memory_id

    got = client.memories.get(first.memory_id)
    assert (got.memory_id, got.version, got.content) == (first.memory_id, 1, body.content)

    second = client.memories.update(
        first.memory_id, MemoryUpdate(content="Alice lives in District 3"), if_match=1
    )
    assert second.version == 2 and second.content == "Alice lives in District 3"
    assert client.memories.get(first.memory_id).version == 2

    # what was believed before the update (system time), and before it was true (valid time)
    then = client.memories.get(first.memory_id, known_at=first.system_from)
    assert (then.version, then.content) == (1, "Alice lives in District 2")
    with pytest.raises(MemoryNotFoundError):
        client.memories.get(first.memory_id, as_of=datetime(2023, 6, 1, tzinfo=UTC))

    with pytest.raises(VersionConflictError) as conflict:
        client.memories.update(first.memory_id, MemoryUpdate(confidence=0.1), if_match=1)
    assert conflict.value.status == 409 and conflict.value.code == "memory.version_conflict"

    history = client.memories.history(first.memory_id)
    assert history.count == 2 and [m.version for m in history.items] == [1, 2]
    assert history.items[0].system_to is not None and history.items[1].system_to is None


def test_invalidate_and_retract(client: Client) -> None:
    kept = client.memories.create(
        MemoryCreate(
            kind="observation",
            content=unique("The staging cluster runs Postgres 15"),
            valid_from=datetime.now(UTC) - timedelta(days=1),
        )
    )
    ended = datetime.now(UTC) - timedelta(minutes=1)
    closed = client.memories.invalidate(
        kept.memory_id, reason="upgraded to 16", valid_to=ended, actor="ops"
    )
    assert closed.valid_to is not None and abs(closed.valid_to - ended) < timedelta(seconds=1)
    assert closed.last_modified_by.actor == "ops"

    wrong = observation(client, unique("The build uses Python 3.9"))
    retracted = client.memories.retract(wrong.memory_id, reason="it never did")
    assert retracted.system_to is not None
    with pytest.raises(MemoryNotFoundError):
        client.memories.get(wrong.memory_id)
    assert client.memories.history(wrong.memory_id).count >= 1


def test_reasoning_lineage_dependents_challenge(client: Client) -> None:
    trace, evidence = flaky_story(client)
    assert trace.kind == "reasoning" and trace.quality.verdict in ("accepted", "poor")
    assert [s.index for s in trace.steps] == list(range(6))
    assert (trace.steps[1].status, trace.steps[1].rejected_by) == ("rejected", 2)
    decision = trace.produced[0]
    assert decision.kind == "decision" and decision.status == "active"

    got = client.reasoning.get(trace.trace_id)
    assert got.trace_id == trace.trace_id and got.steps[0].cites[0].memory_id == (
        evidence["log"].memory_id
    )

    lineage = client.memories.lineage(decision.memory_id)
    assert lineage.memory.memory_id == decision.memory_id
    assert [t.trace_id for t in lineage.traces] == [trace.trace_id]
    assert [v.version for v in lineage.versions] == [1]

    log_id = evidence["log"].memory_id
    client.memories.update(
        log_id,
        MemoryUpdate(content=unique("CI log: test_upload timed out in teardown")),
        if_match=1,
    )
    dependents = client.memories.dependents(log_id)
    assert decision.memory_id in [d.memory_id for d in dependents.items]
    assert dependents.count == len(dependents.items)

    challenge = client.memories.challenge(decision.memory_id, reason="log re-read", actor="rev")
    assert [(r.step, r.memory_id, r.change) for r in challenge.revisit] == [
        (0, log_id, "superseded")
    ]
    assert challenge.memory.status == "challenged" and challenge.memory.version == 2


def test_recall_and_search(client: Client) -> None:
    token = unique("zebrafish-aquarium")
    fact = observation(client, f"The office {token} needs its filter changed every Monday")
    recall = client.recall(f"when does the {token} filter get changed?", limit=5)
    assert recall.count == len(recall.items) >= 1
    top = recall.items[0]
    assert isinstance(top, RetrievalItem) and top.memory_id == fact.memory_id
    assert top.score > 0 and top.has_reasoning is False and top.origin == "user"
    assert top.as_memory().content == fact.content

    only_facts = client.recall(token, kinds=["fact"])
    assert fact.memory_id not in [i.memory_id for i in only_facts.items]

    client.memories.update(
        fact.memory_id,
        MemoryUpdate(content=f"The office {token} filter is changed on Fridays"),
        if_match=1,
    )
    current = client.search(token, origins=["user"], limit=10)
    assert [i.memory_id for i in current.items].count(fact.memory_id) == 1
    with_closed = client.search(token, include_superseded=True, limit=10)
    versions = sorted(
        i.model_dump()["version"] for i in with_closed.items if i.memory_id == fact.memory_id
    )
    assert versions == [1, 2]
    before = client.search(token, known_at=fact.system_from, limit=10)
    assert [i.model_dump()["version"] for i in before.items if i.memory_id == fact.memory_id] == [1]


def test_recall_returns_traces_with_lineage(client: Client) -> None:
    trace, _ = flaky_story(client)
    hits = client.recall(trace.task, kinds=["reasoning", "decision"], limit=10)
    items = {i.memory_id: i for i in hits.items}
    decision = trace.produced[0].memory_id
    # A decision and the trace that produced it are one result group, led by the higher ranked.
    assert (trace.trace_id in items) != (decision in items), list(items)
    if trace.trace_id in items:
        lead = items[trace.trace_id]
        assert lead.as_trace().steps[0].index == 0
        assert [p["memory_id"] for p in lead.produced_items or []] == [decision]
    else:
        lead = items[decision]
        assert lead.has_reasoning and lead.reasoning is not None
        assert lead.reasoning["trace_id"] == trace.trace_id
        assert lead.lineage == f"/v1/memories/{decision}/lineage"


def test_ingest(client: Client) -> None:
    text = unique("We chose SQLite for the edge cache because it needs no server process.")
    report = client.ingest(text, source_name="notes.txt", format="text")
    assert report.new and report.status == "complete" and report.format == "text"
    assert report.chunks.ok >= 1 and report.chunks.failed == 0
    assert sum(report.created.values()) == len(report.memory_ids) + len(report.trace_ids)
    again = client.ingest(text, source_name="notes.txt", format="text")
    assert not again.new and again.source_id == report.source_id
    first = client.memories.get(report.memory_ids[0])
    assert first.created_by.origin == "ingestion"


def test_maintenance_and_diagnostics(client: Client) -> None:
    trace, evidence = flaky_story(client)
    decision = trace.produced[0].memory_id
    client.memories.retract(evidence["race"].memory_id, reason="the worker logs were misread")
    report = client.maintenance.run("evidence-drift")
    assert report.job == "evidence-drift" and report.examined >= 1
    assert decision in report.memory_ids and report.changed >= 1
    assert client.memories.get(decision).last_modified_by.origin == "maintenance"
    diagnostics = client.diagnostics()
    assert diagnostics.counts["decision"]["user"] >= 1
    assert diagnostics.counts["reasoning"]["user"] >= 1
    assert diagnostics.unrecognized_origins.count == len(diagnostics.unrecognized_origins.sample)


def test_namespaces_never_leak(client: Client, client_b: Client, service: Service) -> None:
    mine = observation(client, unique("Namespace A secret: the launch code is 0000"))
    with pytest.raises(MemoryNotFoundError) as err:
        client_b.memories.get(mine.memory_id)
    assert err.value.status == 404
    assert mine.memory_id not in [i.memory_id for i in client_b.recall("launch code").items]
    with pytest.raises(MemoryNotFoundError):
        client_b.memories.lineage(mine.memory_id)
    assert service.ns_a != service.ns_b
