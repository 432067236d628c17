"""Client-side arguments: ISO strings for times, and the client's own error for a bad argument."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from rationale_client import (
    ArgumentError,
    AsyncClient,
    Client,
    MemoryCreate,
    MemoryNotFoundError,
    MemoryUpdate,
    OutcomeCreate,
    RationaleError,
    RetryPolicy,
    TraceCreate,
    TraceNotFoundError,
)

from bench.service_process import free_port
from tests.client.conftest import Service
from tests.client.helpers import flaky_story, observation, unique


def test_as_of_and_known_at_may_be_iso_strings(client: Client) -> None:
    memory = observation(client, unique("The nightly build moved to 02:00"))
    later = memory.system_from + timedelta(seconds=1)
    text = later.astimezone(UTC).isoformat().replace("+00:00", "Z")
    by_text = client.memories.get(memory.memory_id, as_of=text, known_at=text)
    assert by_text == client.memories.get(memory.memory_id, as_of=later, known_at=later)
    assert by_text.memory_id == memory.memory_id
    found = client.recall(memory.content, limit=5, as_of=text, known_at=text)
    assert memory.memory_id in [item.memory_id for item in found.items]


@pytest.fixture
def dead() -> Client:
    """A client of a port nothing listens on: an argument error proves nothing was sent."""
    url = f"http://127.0.0.1:{free_port()}"
    return Client(url, api_key="k", retry=RetryPolicy(attempts=1, backoff_s=0.0))


@pytest.mark.parametrize(
    ("as_of", "needle"),
    [
        ("yesterday", "not an ISO 8601 time"),
        ("2026-12-01T15:00:00", "offset"),
        (datetime(2026, 12, 1, 15, 0), "offset"),
    ],
)
def test_a_bad_time_is_an_argument_error(dead: Client, as_of: datetime | str, needle: str) -> None:
    with dead, pytest.raises(ArgumentError, match=needle) as err:
        dead.memories.get("m", as_of=as_of)
    assert isinstance(err.value, RationaleError) and isinstance(err.value, ValueError)


def test_a_value_outside_the_schema_is_an_argument_error(dead: Client) -> None:
    with dead, pytest.raises(ArgumentError, match="limit") as err:
        dead.recall("x", limit=0)
    assert [e["loc"] for e in err.value.errors] == [("limit",)]
    with dead, pytest.raises(ArgumentError) as naive:
        dead.search("x", as_of="2026-12-01T15:00:00")
    assert [e["loc"] for e in naive.value.errors] == [("as_of",)]


@pytest.mark.parametrize(
    "fields",
    [
        {"confidence": float("nan")},
        {"metadata": {"ratio": float("nan")}},
        {"metadata": {"runs": [{"ms": float("inf")}]}},
    ],
)
def test_a_number_that_is_not_finite_is_an_argument_error(fields: dict[str, object]) -> None:
    """JSON has no NaN or infinity: serialised, pydantic wrote them as null, so a NaN in
    `metadata` was stored as no value; the server refuses them (422), the client too."""
    with pytest.raises(ArgumentError, match="finite number") as err:
        MemoryCreate(kind="fact", content="x", **fields)
    assert [e["loc"][0] for e in err.value.errors] == [next(iter(fields))]
    with pytest.raises(ArgumentError, match="finite number"):
        MemoryUpdate(**fields)
    with pytest.raises(ArgumentError, match="finite number"):
        TraceCreate(task="t", steps=[], self_assessment={"score": float("-inf")})


def test_the_async_client_raises_the_same() -> None:
    async def main() -> None:
        url = f"http://127.0.0.1:{free_port()}"
        async with AsyncClient(url, api_key="k", retry=RetryPolicy(attempts=1)) as dead:
            with pytest.raises(ArgumentError, match="limit"):
                await dead.recall("x", limit=101)
            with pytest.raises(ArgumentError, match="offset"):
                await dead.memories.get("m", known_at="2026-12-01T15:00:00")

    asyncio.run(main())


def test_a_dict_instead_of_a_request_model_is_an_argument_error(client: Client) -> None:
    memory = observation(client, unique("The release train leaves on Thursdays"))
    with pytest.raises(ArgumentError, match="MemoryUpdate") as err:
        client.memories.update(memory.memory_id, {"content": "y"}, if_match=1)  # type: ignore[arg-type]
    assert isinstance(err.value, ValueError)
    with pytest.raises(ArgumentError, match="TraceCreate"):
        client.reasoning.record({"task": "x", "steps": []})  # type: ignore[arg-type]
    # Nothing was sent: the memory is still its first version, with its own content.
    history = client.memories.history(memory.memory_id)
    assert [(m.version, m.content) for m in history.items] == [(1, memory.content)]


@pytest.mark.parametrize("bad", ["a/b", "", ".", "..", "../reasoning"])
def test_an_id_no_path_segment_can_carry_is_an_argument_error(client: Client, bad: str) -> None:
    # The server decodes %2F before routing: "a/b" would reach another route (404 not_found).
    with pytest.raises(ArgumentError, match="path segment"):
        client.memories.get(bad)
    with pytest.raises(ArgumentError, match="path segment"):
        client.memories.history(bad)
    with pytest.raises(ArgumentError, match="path segment"):
        client.reasoning.get(bad)


@pytest.mark.parametrize("odd", ["a b", "a?b", "a#b", "a%2Fb", "ü"])
def test_other_ids_are_percent_encoded_into_their_route(client: Client, odd: str) -> None:
    # Each reaches the memory route and is no memory there (not the generic `not_found`).
    with pytest.raises(MemoryNotFoundError) as err:
        client.memories.get(odd)
    assert err.value.code == "memory.not_found"
    with pytest.raises(TraceNotFoundError):
        client.reasoning.get(odd)


def test_lineage_and_outcomes_take_as_of_and_known_at(client: Client, service: Service) -> None:
    trace, _ = flaky_story(client)
    decision = client.memories.get(trace.produced[0].memory_id)
    before = decision.system_from - timedelta(seconds=1)
    text = decision.system_from.astimezone(UTC).isoformat().replace("+00:00", "Z")
    then = client.memories.lineage(decision.memory_id, as_of=text, known_at=decision.system_from)
    assert then.memory.memory_id == decision.memory_id
    with pytest.raises(MemoryNotFoundError):
        client.memories.lineage(decision.memory_id, known_at=before)
    earlier = datetime.now(UTC)
    client.memories.record_outcome(
        decision.memory_id, OutcomeCreate(result="success", content="green all week")
    )
    assert client.memories.outcomes(decision.memory_id).count == 1
    assert client.memories.outcomes(decision.memory_id, known_at=earlier).count == 0

    async def run() -> None:
        async with AsyncClient(service.base_url, api_key=service.key_a) as rat:
            with pytest.raises(MemoryNotFoundError):
                await rat.memories.lineage(decision.memory_id, as_of=before, known_at=before)
            assert (await rat.memories.outcomes(decision.memory_id, known_at=text)).count == 0

    asyncio.run(run())


def test_precedents_take_kinds_and_times_and_retrieval_explains(client: Client) -> None:
    trace, _ = flaky_story(client)
    decision = client.memories.get(trace.produced[0].memory_id)
    before = decision.system_from - timedelta(seconds=1)
    text = decision.system_from.astimezone(UTC).isoformat().replace("+00:00", "Z")

    def found(**kwargs: object) -> list[str]:
        answer = client.precedents(trace.task, limit=10, **kwargs)  # type: ignore[arg-type]
        return [p.decision.memory_id for p in answer.items]

    assert decision.memory_id in found(kinds=["decision"], as_of=text, known_at=text)
    assert decision.memory_id not in found(known_at=before)
    for retrieval in (client.recall, client.search):
        hits = retrieval(trace.task, limit=3, explain=True)
        assert hits.items and all(item.explain for item in hits.items)


def test_the_id_batch_is_an_argument_error_where_it_names_the_batch(dead: Client) -> None:
    """`/v1/memories/batch` is the batch resource: `get("batch")` was a bare 405 (trial 10)."""
    with dead, pytest.raises(ArgumentError, match="batch resource"):
        dead.memories.get("batch")
    with pytest.raises(ArgumentError, match="batch resource"):
        dead.memories.update("batch", MemoryUpdate(content="x"), if_match=1)
