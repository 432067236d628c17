"""Outcomes and precedents through the client (sync and async) against the real service."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from rationale_client import AsyncClient, Client, InvalidInputError, OutcomeCreate
from rationale_client.errors import MemoryNotFoundError

from tests.client.conftest import Service
from tests.client.helpers import flaky_story


def test_outcomes_challenge_the_decision_and_precedents_find_it(client: Client) -> None:
    trace, evidence = flaky_story(client)
    decision = trace.produced[0].memory_id
    ok = client.memories.record_outcome(
        decision, OutcomeCreate(result="success", content="test_upload green for a week")
    )
    assert ok.created and not ok.challenged and ok.result == "success"
    later = datetime.now(UTC)  # after the success; an outcome is never observed in the future
    failed = client.memories.record_outcome(
        decision,
        OutcomeCreate(result="failure", content="test_upload failed again", observed_at=later),
    )
    assert failed.challenged and failed.decision.status == "challenged"
    assert failed.decision.version == 2
    listed = client.memories.outcomes(decision)
    assert [o.result for o in listed.items] == ["success", "failure"] and listed.count == 2
    # Other tests of this session record the same story (their tasks differ by a token only),
    # so the decision is looked for among the precedents rather than expected first.
    found = client.precedents(trace.task, limit=10)
    mine = [p for p in found.items if p.decision.memory_id == decision]
    assert len(mine) == 1
    assert mine[0].outcome_record["successes"] == 1
    assert mine[0].outcome_record["failures"] == 1
    with pytest.raises(InvalidInputError):
        client.memories.record_outcome(
            evidence["log"].memory_id, OutcomeCreate(result="success", content="not a decision")
        )
    with pytest.raises(MemoryNotFoundError):
        client.memories.outcomes("00000000-0000-0000-0000-000000000000")


def test_async_outcomes_and_precedents(client: Client, service: Service) -> None:
    trace, _ = flaky_story(client)
    decision = trace.produced[0].memory_id

    async def run() -> None:
        async with AsyncClient(service.base_url, api_key=service.key_a) as rat:
            recorded = await rat.memories.record_outcome(
                decision, OutcomeCreate(result="mixed", content="passed on retry only")
            )
            assert recorded.challenged
            assert [o.result for o in (await rat.memories.outcomes(decision)).items] == ["mixed"]
            found = await rat.precedents(trace.task, limit=10)
            assert decision in [p.decision.memory_id for p in found.items]

    asyncio.run(run())
