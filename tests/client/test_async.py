"""The async client against the real service: every endpoint, errors, and concurrent calls."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from rationale_client import (
    AsyncClient,
    ForbiddenError,
    MemoryCreate,
    MemoryNotFoundError,
    MemoryUpdate,
    ReasoningRejectedError,
    StepIn,
    TraceCreate,
    VersionConflictError,
)

from tests.client.conftest import Service
from tests.client.helpers import flaky_story_body, unique


async def _memories_flow(c: AsyncClient) -> None:
    body = MemoryCreate(
        kind="decision",
        content=unique("Ship the async client in the same wheel"),
        valid_from=datetime.now(UTC) - timedelta(days=2),
    )
    made = await c.memories.create(body)
    assert made.created and made.status == "active"
    assert (await c.memories.get(made.memory_id)).content == body.content
    updated = await c.memories.update(made.memory_id, MemoryUpdate(confidence=0.7), if_match=1)
    assert updated.version == 2 and updated.confidence == 0.7
    with pytest.raises(VersionConflictError):
        await c.memories.update(made.memory_id, MemoryUpdate(confidence=0.2), if_match=1)
    old = await c.memories.get(made.memory_id, known_at=made.system_from)
    assert old.version == 1
    closed = await c.memories.invalidate(
        made.memory_id, reason="superseded", valid_to=datetime.now(UTC) - timedelta(hours=1)
    )
    assert closed.valid_to is not None
    history = await c.memories.history(made.memory_id)
    assert [m.version for m in history.items] == [1, 2, 3]
    gone = await c.memories.create(
        MemoryCreate(kind="procedure", content=unique("Run make"), trigger="on release")
    )
    assert gone.trigger == "on release"
    assert (await c.memories.retract(gone.memory_id, reason="wrong")).system_to is not None
    with pytest.raises(MemoryNotFoundError):
        await c.memories.get(gone.memory_id)


async def _reasoning_flow(c: AsyncClient) -> None:
    made = await asyncio.gather(
        *(
            c.memories.create(MemoryCreate(kind="observation", content=unique(text)))
            for text in (
                "CI log: test_upload failed with connection reset during setup",
                "Cache hit rate was normal (98%) during the failing runs",
                "Worker logs show gw0 and gw1 both creating /tmp/upload-fixture at once",
            )
        )
    )
    log, cache, race = (m.memory_id for m in made)
    trace = await c.reasoning.record(flaky_story_body(log, cache, race))
    assert (await c.reasoning.get(trace.trace_id)).task == trace.task
    decision = trace.produced[0].memory_id
    lineage = await c.memories.lineage(decision)
    assert lineage.traces[0].trace_id == trace.trace_id
    await c.memories.retract(race, reason="misread")
    assert decision in [m.memory_id for m in (await c.memories.dependents(race)).items]
    challenge = await c.memories.challenge(decision, reason="evidence retracted")
    assert [(r.step, r.change) for r in challenge.revisit] == [(3, "retracted")]
    hits = await c.recall(trace.task, kinds=["reasoning"], limit=3)
    assert trace.trace_id in [i.memory_id for i in hits.items]
    found = await c.search(trace.task, origins=["user"], include_superseded=True)
    assert trace.trace_id in [i.memory_id for i in found.items]
    with pytest.raises(ReasoningRejectedError) as err:
        await c.reasoning.record(
            TraceCreate(task="t", steps=[StepIn(kind="thought", content="hmm, not sure yet")])
        )
    assert err.value.quality.verdict == "rejected"


async def _service_flow(c: AsyncClient) -> None:
    health, ready, diagnostics = await asyncio.gather(c.health(), c.ready(), c.diagnostics())
    assert health.status == "ok" and ready.ready
    assert diagnostics.counts["decision"]["user"] >= 1
    report = await c.ingest(unique("Notes: the queue is drained nightly."), source_name="q.md")
    assert report.new and report.chunks.ok >= 1 and sum(report.created.values()) >= 1
    first = await c.maintenance.run("duplicate-candidates")
    again = await c.maintenance.run("duplicate-candidates")
    assert first.job == again.job == "duplicate-candidates" and again.changed == 0


def test_async_client_every_endpoint(service: Service) -> None:
    async def main() -> None:
        async with AsyncClient(service.base_url, api_key=service.key_a) as c:
            await _memories_flow(c)
            await _reasoning_flow(c)
            await _service_flow(c)

    asyncio.run(main())


def test_async_errors_and_isolation(service: Service) -> None:
    async def main() -> None:
        async with (
            AsyncClient(service.base_url, api_key=service.key_a) as a,
            AsyncClient(service.base_url, api_key=service.key_b) as b,
            AsyncClient(service.base_url, api_key=service.key_a_read) as r,
        ):
            mine = await a.memories.create(MemoryCreate(kind="fact", content=unique("A only")))
            with pytest.raises(MemoryNotFoundError):
                await b.memories.get(mine.memory_id)
            assert (await r.memories.get(mine.memory_id)).memory_id == mine.memory_id
            with pytest.raises(ForbiddenError):
                await r.memories.retract(mine.memory_id, reason="no scope")

    asyncio.run(main())
