"""Client-side arguments: ISO strings for times, and the client's own error for a bad argument."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from rationale_client import (
    ArgumentError,
    AsyncClient,
    Client,
    MemoryNotFoundError,
    RationaleError,
    RetryPolicy,
    TraceNotFoundError,
)

from bench.service_process import free_port
from tests.client.helpers import observation, unique


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
