"""Back-off on 503 with `Retry-After`, and `Idempotency-Key` on every POST, kept across retries.

The retry tests use `httpx.MockTransport` as a tiny local server that answers 503: they test the
client's back-off, not the service (which is never stopped for a test). Idempotent replay is then
checked against the real service.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
import rationale_client.async_client
import rationale_client.client
from rationale_client import (
    AsyncClient,
    Client,
    GraphUnavailableError,
    InvalidInputError,
    MemoryCreate,
    MemoryUpdate,
    RequestTimeoutError,
    RetryPolicy,
    ServiceUnavailableError,
    parse_retry_after,
)

from tests.client.helpers import unique

MEMORY = {
    "memory_id": "m1",
    "uid": "u1",
    "version": 1,
    "kind": "observation",
    "content": "c",
    "valid_from": "2024-01-01T00:00:00Z",
    "system_from": "2024-01-01T00:00:00Z",
    "created_by": {"origin": "user", "actor": "a"},
    "last_modified_by": {"origin": "user", "actor": "a"},
}
UNAVAILABLE = {"detail": "Neo4j is unavailable", "code": "graph.unavailable"}


class Flaky:
    """A handler answering 503 `failures` times (with `retry_after`, if any), then 200."""

    def __init__(self, failures: int, retry_after: str | None = "2", answer: object = None):
        self.failures = failures
        self.retry_after = retry_after
        self.answer = answer if answer is not None else {**MEMORY, "created": True}
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if len(self.requests) <= self.failures:
            headers = {"Retry-After": self.retry_after} if self.retry_after is not None else {}
            return httpx.Response(503, json=UNAVAILABLE, headers=headers)
        return httpx.Response(200, json=self.answer)

    @property
    def keys(self) -> list[str | None]:
        return [r.headers.get("Idempotency-Key") for r in self.requests]


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the client's waits instead of sleeping (sync and async)."""
    waits: list[float] = []

    async def fake_async_sleep(delay: float) -> None:
        waits.append(delay)

    monkeypatch.setattr(rationale_client.client, "_sleep", waits.append)
    monkeypatch.setattr(rationale_client.async_client, "_sleep", fake_async_sleep)
    return waits


def mock_client(
    handler: Callable[[httpx.Request], httpx.Response],
    *,
    retry: RetryPolicy | None = None,
    idempotency_keys: bool = True,
    timeout: float = 5.0,
) -> Client:
    return Client(
        "http://rationale.test",
        api_key="k",
        transport=httpx.MockTransport(handler),
        retry=retry,
        idempotency_keys=idempotency_keys,
        timeout=timeout,
    )


def test_503_is_retried_honouring_retry_after_with_one_key(sleeps: list[float]) -> None:
    flaky = Flaky(failures=2, retry_after="2")
    with mock_client(flaky) as client:
        created = client.memories.create(MemoryCreate(kind="observation", content="c"))
    assert created.memory_id == "m1" and created.created
    assert len(flaky.requests) == 3 and sleeps == [2.0, 2.0]
    keys = flaky.keys
    assert keys[0] is not None and len(keys[0]) == 32 and keys == [keys[0]] * 3
    assert flaky.requests[0].headers["Authorization"] == "Bearer k"
    assert [json.loads(r.content) for r in flaky.requests] == [
        {"kind": "observation", "content": "c"}
    ] * 3


def test_backoff_doubles_without_retry_after_and_gives_up(sleeps: list[float]) -> None:
    flaky = Flaky(failures=10, retry_after=None)
    policy = RetryPolicy(attempts=4, backoff_s=0.25)
    with mock_client(flaky, retry=policy) as client, pytest.raises(GraphUnavailableError) as err:
        client.memories.get("m1")
    assert len(flaky.requests) == 4 and sleeps == [0.25, 0.5, 1.0]
    assert isinstance(err.value, ServiceUnavailableError) and err.value.status == 503
    assert flaky.keys == [None] * 4  # GET carries no Idempotency-Key


def test_retry_after_is_capped_and_attempts_settable(sleeps: list[float]) -> None:
    flaky = Flaky(failures=1, retry_after="3600")
    with mock_client(flaky, retry=RetryPolicy(max_delay_s=7.5)) as client:
        client.memories.update("m1", MemoryUpdate(content="new"), if_match=1)
    assert sleeps == [7.5] and flaky.requests[0].headers["If-Match"] == "1"
    never = Flaky(failures=1)
    with (
        mock_client(never, retry=RetryPolicy(attempts=1)) as client,
        pytest.raises(GraphUnavailableError),
    ):
        client.memories.create(MemoryCreate(kind="fact", content="c"))
    assert len(never.requests) == 1


def test_keys_fresh_per_call_explicit_or_off(sleeps: list[float]) -> None:
    flaky = Flaky(failures=0)
    body = MemoryCreate(kind="observation", content="c")
    with mock_client(flaky) as client:
        client.memories.create(body)
        client.memories.create(body)
        client.memories.create(body, idempotency_key="mine-1")
    first, second, explicit = flaky.keys
    assert first and second and first != second and explicit == "mine-1"
    off = Flaky(failures=0)
    with mock_client(off, idempotency_keys=False) as client:
        client.memories.create(body)
    assert off.keys == [None]


def test_ready_is_not_retried_and_answers_not_ready(sleeps: list[float]) -> None:
    def not_ready(request: httpx.Request) -> httpx.Response:
        body = {"status": "not ready", "neo4j": False, "schema": False, "model": True}
        return httpx.Response(503, json=body, headers={"Retry-After": "5"})

    with mock_client(not_ready) as client:
        ready = client.ready()
    assert not ready.ready and not ready.neo4j and ready.model and sleeps == []


def test_connect_errors_are_retried_and_timeouts_raised(sleeps: list[float]) -> None:
    calls: list[str] = []

    def refuse_once(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) == 1:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json={"status": "ok"})

    with mock_client(refuse_once) as client:
        assert client.health().status == "ok"
    assert calls == ["/healthz", "/healthz"] and sleeps == [0.5]

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("read timed out", request=request)

    with mock_client(slow, timeout=0.1) as client, pytest.raises(RequestTimeoutError):
        client.health()
    assert client.config.timeout.read == 0.1


def test_async_client_retries_with_one_key(sleeps: list[float]) -> None:
    flaky = Flaky(failures=2, retry_after="1.5")

    async def main() -> str:
        transport = httpx.MockTransport(flaky)
        async with AsyncClient("http://rationale.test", api_key="k", transport=transport) as c:
            created = await c.memories.create(MemoryCreate(kind="observation", content="c"))
            return created.memory_id

    assert asyncio.run(main()) == "m1"
    assert sleeps == [1.5, 1.5] and len(set(flaky.keys)) == 1 and flaky.keys[0] is not None


def test_parse_retry_after() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("5") == 5.0
    assert parse_retry_after(" 0 ") == 0.0
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now) == 30
    assert parse_retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True), now) == 0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    assert parse_retry_after("-3") == 0.0
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=0)


def test_idempotency_key_replays_on_the_real_service(client: Client) -> None:
    body = MemoryCreate(kind="observation", content=unique("The nightly backup finished at 03:12"))
    first = client.memories.create(body, idempotency_key=unique("key").replace(" ", ""))
    assert first.created
    # a repeat without the key is recognised as equal content: created False
    assert not client.memories.create(body).created
    key = unique("replay").replace(" ", "")
    other = MemoryCreate(kind="observation", content=unique("The weekly backup finished at 04:00"))
    made = client.memories.create(other, idempotency_key=key)
    replay = client.memories.create(other, idempotency_key=key)
    # the stored first answer comes back as it was (created True), nothing written twice
    assert made.created and replay.created and replay.memory_id == made.memory_id
    assert client.memories.history(made.memory_id).count == 1


def test_same_key_for_another_request_is_refused(client: Client) -> None:
    key = unique("k").replace(" ", "")
    client.memories.create(
        MemoryCreate(kind="observation", content=unique("a")), idempotency_key=key
    )
    with pytest.raises(InvalidInputError) as err:
        client.memories.create(
            MemoryCreate(kind="observation", content=unique("b")), idempotency_key=key
        )
    assert err.value.code == "input.invalid" and "Idempotency-Key" in str(err.value.detail)
