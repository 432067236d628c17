"""`memories.batch` (`POST /v1/memories/batch`) through the client against the real service."""

from __future__ import annotations

import asyncio

import pytest
from rationale_client import (
    APIError,
    AsyncClient,
    BatchResult,
    Client,
    ForbiddenError,
    MemoryCreate,
)

from tests.client.conftest import Service
from tests.client.helpers import unique


def _items(token: str) -> list[MemoryCreate]:
    return [
        MemoryCreate(kind="observation", content=f"Batch {token}: the cron job runs at 02:00"),
        MemoryCreate(
            kind="fact",
            content=f"Batch {token}: Bob is on call this week",
            subject=f"bob-{token}",
            attribute="on_call",
        ),
        MemoryCreate(kind="decision", content=f"Batch {token}: pin httpx to 0.28", confidence=0.8),
    ]


def test_batch_creates_in_order_and_is_idempotent(client: Client) -> None:
    token = unique("t").replace(" ", "")
    items = _items(token)
    result = client.memories.batch(items)
    assert isinstance(result, BatchResult) and result.count == 3 == len(result.items)
    assert [i.index for i in result.items] == [0, 1, 2]
    assert all(i.created for i in result.items)
    assert [i.memory.content for i in result.items] == [m.content for m in items]
    assert [i.memory.kind for i in result.items] == ["observation", "fact", "decision"]
    for item in result.items:
        assert client.memories.get(item.memory.memory_id).content == item.memory.content

    again = client.memories.batch(items)
    assert [i.created for i in again.items] == [False, False, False]
    assert [i.memory.memory_id for i in again.items] == [i.memory.memory_id for i in result.items]


def test_batch_replays_its_idempotency_key(client: Client) -> None:
    token = unique("k").replace(" ", "")
    key = f"batch-{token}"
    first = client.memories.batch(_items(token), idempotency_key=key)
    replay = client.memories.batch(_items(token), idempotency_key=key)
    assert [i.created for i in replay.items] == [True, True, True]
    assert [i.memory.memory_id for i in replay.items] == [i.memory.memory_id for i in first.items]


def test_batch_is_all_or_nothing(client: Client) -> None:
    token = unique("bad").replace(" ", "")
    items = [*_items(token), MemoryCreate(kind="observation", content="x" * 40_000)]
    with pytest.raises(APIError) as err:
        client.memories.batch(items)
    assert err.value.status in (413, 422)
    assert err.value.code in ("input.too_large", "input.invalid")
    hits = client.search(f"Batch {token}", include_superseded=True, limit=20)
    assert [h for h in hits.items if token in (h.content or "")] == []


def test_batch_needs_write_scope(reader: Client) -> None:
    with pytest.raises(ForbiddenError):
        reader.memories.batch(_items(unique("ro").replace(" ", "")))


def test_async_batch(service: Service) -> None:
    async def main() -> BatchResult:
        async with AsyncClient(service.base_url, api_key=service.key_a) as c:
            return await c.memories.batch(_items(unique("async").replace(" ", "")))

    result = asyncio.run(main())
    assert result.count == 3 and all(i.created for i in result.items)


def test_a_conversation_is_written_with_its_episode_and_positions(client: Client) -> None:
    """Trial 24: `MemoryCreate(episode=..., position=..., context=...)` was an ArgumentError, so
    the README's integration path (turns in order) needed raw HTTP."""
    token = unique("c").replace(" ", "")
    turns = [
        MemoryCreate(
            kind="observation",
            content=f"Maya {token}: I'm moving to Berlin in May",
            episode=token,
            position=0,
        ),
        MemoryCreate(
            kind="observation", content=f"Tom {token}: Why Berlin?", episode=token, position=1
        ),
        MemoryCreate(
            kind="observation",
            content=f"Maya {token}: The new job at Tado is there",
            episode=token,
            position=2,
            context="Session 1, 14 March 2023",
        ),
    ]
    result = client.memories.batch(turns)
    assert result.count == 3
    stored = [client.memories.get(i.memory.memory_id) for i in result.items]
    assert [(m.episode, m.position) for m in stored] == [(token, 0), (token, 1), (token, 2)]
