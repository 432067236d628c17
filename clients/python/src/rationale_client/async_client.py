"""`AsyncClient`: the asynchronous Rationale client over `httpx.AsyncClient`."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType

import httpx

from rationale_client import _calls as c
from rationale_client import answers as a
from rationale_client import bodies as b
from rationale_client._core import (
    DEFAULT_TIMEOUT_S,
    Call,
    Config,
    RetryPolicy,
    T,
    may_retry_connect,
    read_answer,
    retry_delay,
    transport_error,
)

_sleep = asyncio.sleep


class AsyncClient:
    """Asynchronous client of one Rationale service, bound to one API key (one namespace).

    Every method raises, besides what it names: `AuthError` (401, bad key), `ForbiddenError`
    (403, scope missing), `InvalidInputError` (422), `TooLargeError` (413),
    `ServiceUnavailableError` (503 once retries are used up) and `TransportError` /
    `RequestTimeoutError` (no answer). All live in `rationale_client.errors`.

    Args:
        base_url: e.g. `http://127.0.0.1:8000`; default `$RATIONALE_URL`, else that address.
        api_key: the bearer key; default `$RATIONALE_API_KEY` (none: dev mode servers only).
        timeout: seconds for connect, read, write and pool, or an `httpx.Timeout`.
        retry: when to retry (default: 3 tries on 503 and connect errors, `Retry-After` honoured).
        idempotency_keys: send a fresh `Idempotency-Key` on every POST (kept across its retries).
        headers: extra headers on every request.
        transport: an httpx transport (e.g. `httpx.MockTransport` in tests).

    Example:
        >>> async with AsyncClient("http://127.0.0.1:8000", api_key="...") as rat:  # doctest: +SKIP
        ...     m = await rat.memories.create(MemoryCreate(kind="fact", content="Alice lives in D2"))
        ...     (await rat.recall("where does Alice live?")).items[0].content
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy | None = None,
        idempotency_keys: bool = True,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = Config.build(base_url, api_key, timeout, retry, idempotency_keys, headers)
        self._http = httpx.AsyncClient(
            base_url=self.config.base_url,
            headers=self.config.headers,
            timeout=self.config.timeout,
            transport=transport,
        )
        self.memories = AsyncMemories(self)
        self.reasoning = AsyncReasoning(self)
        self.maintenance = AsyncMaintenance(self)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def send(self, call: Call[T]) -> T:
        """Send one call, retrying per the policy, and return its validated answer.

        Raises:
            APIError: the subclass matching the error's code (see `rationale_client.errors`).
            TransportError: the service could not be reached (after connect retries).
        """
        request = self._http.build_request(
            call.method,
            call.path,
            json=call.json,
            params=call.params,
            headers=self.config.request_headers(call),
        )
        attempt = 1
        while True:
            try:
                response = await self._http.send(request)
            except httpx.ConnectError as exc:
                if not may_retry_connect(self.config, call, attempt):
                    raise transport_error(exc) from exc
                await _sleep(self.config.retry.delay_s(attempt))
                attempt += 1
                continue
            except httpx.TransportError as exc:
                raise transport_error(exc) from exc
            delay = retry_delay(self.config, call, attempt, response)
            if delay < 0:
                return read_answer(call, response)
            await response.aclose()
            await _sleep(delay)
            attempt += 1

    async def recall(
        self,
        query: str,
        *,
        limit: int = 10,
        kinds: Sequence[b.AnyKind] | None = None,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        explain: bool = False,
        idempotency_key: str | None = None,
    ) -> a.Retrieval:
        """Recall context for an agent: current, valid, recall-visible memories and traces.

        Args:
            query: what the agent needs context for.
            limit: max items returned, 1..100.
            kinds: only these kinds (`fact`, `decision`, `procedure`, `observation`, `reasoning`).
            as_of: valid time: an aware datetime or an ISO 8601 string with an offset; default now.
            known_at: system time: an aware datetime or an ISO 8601 string with an offset; default now.
            explain: also return each item's `explain` (why it matched).
            idempotency_key: reuse a key of your own instead of a generated one.

        Returns:
            `{items: [RetrievalItem], count}`, best first; each item has `score`,
            `has_reasoning` and `lineage`.
        """
        body = c.recall_body(query, limit, kinds, as_of, known_at, explain)
        return await self.send(c.recall(body, idempotency_key))

    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        kinds: Sequence[b.AnyKind] | None = None,
        origins: Sequence[str] | None = None,
        include_superseded: bool = False,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        explain: bool = False,
        idempotency_key: str | None = None,
    ) -> a.Retrieval:
        """Search memories and traces, optionally by origin and including closed versions.

        Args:
            query: the search text.
            limit: max items returned, 1..100.
            kinds: only these kinds.
            origins: only memories created through these doors (user, ingestion, maintenance).
            include_superseded: also return closed versions.
            as_of: valid time: an aware datetime or an ISO 8601 string with an offset; default now.
            known_at: system time: an aware datetime or an ISO 8601 string with an offset; default now.
            explain: also return each item's `explain` (why it matched).
            idempotency_key: reuse a key of your own instead of a generated one.

        Returns:
            `{items: [RetrievalItem], count}`, best first, `origin` on each.
        """
        body = c.search_body(
            query, limit, kinds, origins, include_superseded, as_of, known_at, explain
        )
        return await self.send(c.search(body, idempotency_key))

    async def ingest(
        self,
        content: str,
        *,
        source_name: str,
        format: b.IngestFormat = "auto",
        idempotency_key: str | None = None,
    ) -> a.IngestReport:
        """Ingest material (agent trajectories, ADRs, text): needs the `ingest` scope.

        Args:
            content: the material itself (text, or JSON as text).
            source_name: its file name or URL.
            format: an `IngestFormat` (`auto`, a trajectory, session or ADR format, `text`).
            idempotency_key: reuse a key of your own instead of a generated one.

        Returns:
            The per-unit report; `new` is False when the same content was ingested before.

        Raises:
            InvalidFormatError: unknown or malformed material (422 `input.invalid_format`).
            TooLargeError: over the service's ingest limit.
        """
        body = b.IngestRequest(content=content, source_name=source_name, format=format)
        return await self.send(c.ingest(body, idempotency_key))

    async def precedents(
        self,
        situation: str,
        *,
        limit: int = 5,
        kinds: Sequence[str] | None = None,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        idempotency_key: str | None = None,
    ) -> a.Precedents:
        """Return past decisions resembling `situation`, with reasoning in brief and outcomes.

        Args:
            situation: the situation at hand.
            limit: max precedents returned, 1..100.
            kinds: only these kinds (`decision`, `procedure`, `fact`); default decisions.
            as_of: valid time: an aware datetime or an ISO 8601 string with an offset; default now.
            known_at: system time: an aware datetime or an ISO 8601 string with an offset; default now.
            idempotency_key: reuse a key of your own instead of a generated one.
        """
        body = c.precedents_body(situation, limit, kinds, as_of, known_at)
        return await self.send(c.find_precedents(body, idempotency_key))

    async def diagnostics(self) -> a.Diagnostics:
        """Return unrecognized origins (count, sample ids) and counts per kind and origin."""
        return await self.send(c.diagnostics())

    async def health(self) -> a.Health:
        """Return `{status: "ok"}` while the service process is alive (`GET /healthz`)."""
        return await self.send(c.health())

    async def ready(self) -> a.Readiness:
        """Return readiness (`GET /readyz`); a not-ready service answers, it does not raise."""
        return await self.send(c.ready())


class AsyncMemories:
    """`AsyncClient.memories`: facts, decisions, procedures and observations, bi-temporal."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(
        self, body: b.MemoryCreate, *, idempotency_key: str | None = None
    ) -> a.MemoryCreated:
        """Create a memory (`POST /v1/memories`).

        Returns:
            The memory plus `created` (False when an equal current memory existed).
        """
        return await self._client.send(c.create_memory(body, idempotency_key))

    async def batch(
        self, items: Sequence[b.MemoryCreate], *, idempotency_key: str | None = None
    ) -> a.BatchResult:
        """Create many memories in one transaction (`POST /v1/memories/batch`), all or nothing.

        Returns:
            `{items: [{index, created, memory}], count}` in request order.

        Raises:
            InvalidInputError: some item is invalid; nothing was written.
            TooLargeError: more items than the service's batch limit.
        """
        return await self._client.send(c.batch_memories(items, idempotency_key))

    async def get(
        self,
        memory_id: str,
        *,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
    ) -> a.Memory:
        """Return the current version, or the one believed at `known_at` about `as_of`.

        Raises:
            MemoryNotFoundError: no such memory (then) in this key's namespace.
        """
        return await self._client.send(c.get_memory(memory_id, as_of, known_at))

    async def update(self, memory_id: str, body: b.MemoryUpdate, *, if_match: int) -> a.Memory:
        """Write a new version; `if_match` is the version you read.

        Raises:
            MemoryNotFoundError: no such memory.
            VersionConflictError: `if_match` is no longer the current version (409).
        """
        return await self._client.send(c.update_memory(memory_id, body, if_match))

    async def invalidate(
        self,
        memory_id: str,
        *,
        reason: str,
        valid_to: datetime | str | None = None,
        actor: str | None = None,
        idempotency_key: str | None = None,
    ) -> a.Memory:
        """Close valid time: it stopped being true at `valid_to` (default now).

        Raises:
            MemoryNotFoundError: no such memory.
        """
        call = c.invalidate_memory(memory_id, reason, valid_to, actor, idempotency_key)
        return await self._client.send(call)

    async def retract(
        self,
        memory_id: str,
        *,
        reason: str,
        actor: str | None = None,
        idempotency_key: str | None = None,
    ) -> a.Memory:
        """Close system time with no successor (it was never right); history keeps it.

        Raises:
            MemoryNotFoundError: no such memory.
        """
        return await self._client.send(c.retract_memory(memory_id, reason, actor, idempotency_key))

    async def history(self, memory_id: str) -> a.Memories:
        """Return every version, oldest first, with its four times and both provenances."""
        return await self._client.send(c.history(memory_id))

    async def lineage(
        self,
        memory_id: str,
        *,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
    ) -> a.Lineage:
        """Return `{memory, versions, traces}`: why the memory is believed (as `get` picks it).

        Args:
            memory_id: the memory.
            as_of: valid time: an aware datetime or an ISO 8601 string with an offset; default now.
            known_at: system time: an aware datetime or an ISO 8601 string with an offset; default now.

        Raises:
            MemoryNotFoundError: no such memory (then) in this key's namespace.
        """
        return await self._client.send(c.lineage(memory_id, as_of, known_at))

    async def challenge(
        self,
        memory_id: str,
        *,
        reason: str,
        actor: str | None = None,
        idempotency_key: str | None = None,
    ) -> a.Challenge:
        """Challenge a memory: lineage plus the steps to revisit; a decision becomes `challenged`.

        Raises:
            MemoryNotFoundError: no such memory.
        """
        return await self._client.send(
            c.challenge_memory(memory_id, reason, actor, idempotency_key)
        )

    async def dependents(self, memory_id: str) -> a.Memories:
        """Return the decisions resting on reasoning that cites this memory (any version)."""
        return await self._client.send(c.dependents(memory_id))

    async def record_outcome(
        self, decision_id: str, body: b.OutcomeCreate, *, idempotency_key: str | None = None
    ) -> a.OutcomeRecorded:
        """Record what happened when a decision was acted on (201; 200 with `created` False).

        Raises:
            MemoryNotFoundError: no such decision in this key's namespace.
            InvalidInputError: not a decision (`outcome.not_a_decision`) or a bad body.
        """
        return await self._client.send(c.record_outcome(decision_id, body, idempotency_key))

    async def outcomes(
        self,
        decision_id: str,
        *,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
    ) -> a.Outcomes:
        """Return a decision's outcomes in time order.

        Args:
            decision_id: the decision.
            as_of: only outcomes observed by then (an aware datetime or an ISO 8601 string with
                an offset); default all.
            known_at: only outcomes recorded by then (same forms); default all.

        Raises:
            MemoryNotFoundError: no such decision.
        """
        return await self._client.send(c.list_outcomes(decision_id, as_of, known_at))


class AsyncReasoning:
    """`AsyncClient.reasoning`: quality-gated reasoning traces."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def record(self, body: b.TraceCreate, *, idempotency_key: str | None = None) -> a.Trace:
        """Record a trace and what it produced, in one transaction.

        Raises:
            ReasoningRejectedError: the quality gate refused it (`.quality` has the issues).
            InvalidReferenceError: cited or produced memories do not exist (`.missing`).
        """
        return await self._client.send(c.record_trace(body, idempotency_key))

    async def get(self, trace_id: str) -> a.Trace:
        """Return one trace with its steps in order.

        Raises:
            TraceNotFoundError: no such trace in this key's namespace.
        """
        return await self._client.send(c.get_trace(trace_id))


class AsyncMaintenance:
    """`AsyncClient.maintenance`: the service's maintenance jobs (scope `maintenance`)."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def run(self, job: str, *, idempotency_key: str | None = None) -> a.MaintenanceReport:
        """Run one job now (`evidence-drift`, `duplicate-candidates`, ...).

        Raises:
            InvalidInputError: unknown job (`body["known_jobs"]` names the known ones).
            ForbiddenError: the key lacks the `maintenance` scope.
        """
        return await self._client.send(c.run_maintenance(job, idempotency_key))
