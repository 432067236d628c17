"""The HTTP transport's backend: the tools' operations on the domain services, in-process.

Each call is checked exactly as its REST route checks it: the same scope, the same request model
(so the same 422s), the same domain call, and the answer validated through the same response
model, so both transports return identical JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any, TypeVar

import anyio.to_thread
from pydantic import BaseModel, ValidationError

from service.api.auth import Principal
from service.api.deps import user_writer
from service.api.errors import bounded_detail, status_for
from service.container import Services
from service.domain.models import NewMemory, Writer
from service.domain.outcomes import NewOutcome
from service.domain.precedents import PrecedentRequest
from service.domain.reasoning import draft_from_body
from service.domain.retrieval import RetrievalRequest, RetrievalResult
from service.errors import RationaleError
from service.mcp.backend import BackendError, Json
from service.schemas import (
    IngestReport,
    IngestRequest,
    InvalidateRequest,
    MemoriesPublic,
    MemoryCreate,
    MemoryCreated,
    MemoryPublic,
    MemoryUpdate,
    ReasonRequest,
    RecallRequest,
    RetrievalPublic,
    SearchRequest,
    TraceCreate,
    TraceCreated,
    TracePublic,
    UtcDatetime,
)
from service.schemas.outcomes import (
    ChallengeWithOutcomes,
    LineageWithOutcomes,
    OutcomeCreate,
    OutcomeRecorded,
    PrecedentsPublic,
    PrecedentsRequest,
)

M = TypeVar("M", bound=BaseModel)


class _Times(BaseModel):
    """The query parameters of `GET /v1/memories/{id}`, validated as the route validates them."""

    as_of: UtcDatetime | None = None
    known_at: UtcDatetime | None = None


def _parse(model: type[M], data: Any) -> M:
    """Validate `data` as the REST route would; a failure is the route's 422 `input.invalid`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        raise BackendError(422, "input.invalid", errors) from exc


def _listing(items: list[Any]) -> Json:
    return {"items": [asdict(m) for m in items], "count": len(items)}


def _ranked(result: RetrievalResult) -> Json:
    return {"items": [item.as_dict() for item in result.items], "count": result.count}


class LocalBackend:
    """Runs each operation on `services` as `principal` (its namespace, scopes and actor).

    Args:
        services: the process's services (built by the app's lifespan).
        principal: the caller, from its API key.
    """

    def __init__(self, services: Services, principal: Principal) -> None:
        self._services = services
        self._principal = principal

    async def require(self, scope: str) -> None:
        """Raise `BackendError` 403 `auth.forbidden` unless the caller's key holds `scope`."""
        try:
            self._principal.require(scope)
        except RationaleError as exc:
            raise BackendError(status_for(exc), exc.code, exc.message) from exc

    async def _run(self, scope: str, answer: type[BaseModel], call: Callable[[], Any]) -> Json:
        """Check `scope` (403 first, as REST), run `call` in a worker thread, dump it as `answer`."""
        try:
            self._principal.require(scope)
            result = await anyio.to_thread.run_sync(call)
        except RationaleError as exc:
            message = bounded_detail(exc.message)  # as REST answers it
            raise BackendError(status_for(exc), exc.code, message, exc.extra) from exc
        return answer.model_validate(result).model_dump(mode="json", by_alias=True)

    def _writer(self, actor: str | None) -> Writer:
        return user_writer(self._principal, actor)

    async def remember(self, body: Json) -> Json:
        """Create a memory (scope write), as `POST /v1/memories`."""

        def call() -> Json:
            req = _parse(MemoryCreate, body)
            memory, created = self._services.memories.create(
                self._writer(req.actor), NewMemory(**req.model_dump(exclude={"actor"}))
            )
            return {**asdict(memory), "created": created}

        return await self._run("write", MemoryCreated, call)

    async def record_reasoning(self, body: Json) -> Json:
        """Record a trace through the quality gate (scope write), as `POST /v1/reasoning`."""

        def call() -> Any:
            req = _parse(TraceCreate, body)
            trace, created = self._services.reasoning.record(
                self._writer(req.actor),
                draft_from_body(req.model_dump()),
                gate=True,
                self_assessment=req.self_assessment,
            )
            return {**asdict(trace), "created": created}

        return await self._run("write", TraceCreated, call)

    async def recall(self, body: Json) -> Json:
        """Recall (scope read), as `POST /v1/recall`."""

        def call() -> Json:
            req = _parse(RecallRequest, body)
            request = RetrievalRequest(
                query=req.query, limit=req.limit, kinds=req.kinds, as_of=req.as_of,
                known_at=req.known_at, explain=req.explain,
            )  # fmt: skip
            return _ranked(self._services.retrieval.recall(self._principal.namespace, request))

        return await self._run("read", RetrievalPublic, call)

    async def search(self, body: Json) -> Json:
        """Search (scope read), as `POST /v1/search`."""

        def call() -> Json:
            req = _parse(SearchRequest, body)
            request = RetrievalRequest(
                query=req.query, limit=req.limit, kinds=req.kinds, as_of=req.as_of,
                known_at=req.known_at, origins=req.origins,
                include_superseded=req.include_superseded, explain=req.explain,
            )  # fmt: skip
            return _ranked(self._services.retrieval.search(self._principal.namespace, request))

        return await self._run("read", RetrievalPublic, call)

    async def get_memory(self, memory_id: str, as_of: str | None, known_at: str | None) -> Json:
        """One version of a memory (scope read), as `GET /v1/memories/{id}`."""

        def call() -> Json:
            times = _parse(_Times, {"as_of": as_of, "known_at": known_at})
            memory = self._services.memories.get(
                self._principal.namespace, memory_id, times.as_of, times.known_at
            )
            return asdict(memory)

        return await self._run("read", MemoryPublic, call)

    async def get_trace(self, trace_id: str) -> Json:
        """One trace with its steps (scope read), as `GET /v1/reasoning/{id}`."""
        namespace = self._principal.namespace
        return await self._run(
            "read", TracePublic, lambda: asdict(self._services.reasoning.get(namespace, trace_id))
        )

    async def history(self, memory_id: str) -> Json:
        """Every version (scope read), as `GET /v1/memories/{id}/history`."""
        ns = self._principal.namespace
        return await self._run(
            "read", MemoriesPublic, lambda: _listing(self._services.memories.history(ns, memory_id))
        )

    async def update_memory(self, memory_id: str, version: int, body: Json) -> Json:
        """A new version (scope write), as `PATCH /v1/memories/{id}` with `If-Match: <version>`."""

        def call() -> Any:
            req = _parse(MemoryUpdate, body)
            changes = req.model_dump(exclude={"actor"}, exclude_unset=True)
            updated = self._services.memories.update(
                self._writer(req.actor), memory_id, version, changes
            )
            return asdict(updated)

        return await self._run("write", MemoryPublic, call)

    async def lineage(self, memory_id: str, as_of: str | None, known_at: str | None) -> Json:
        """Versions, traces and outcomes (scope read), as `GET /v1/memories/{id}/lineage`."""

        def call() -> Any:
            times = _parse(_Times, {"as_of": as_of, "known_at": known_at})
            found = self._services.reasoning.lineage(
                self._principal.namespace, memory_id, times.as_of, times.known_at
            )
            return asdict(found)

        return await self._run("read", LineageWithOutcomes, call)

    async def challenge(self, memory_id: str, body: Json) -> Json:
        """Lineage plus steps to revisit (scope write), as `POST /v1/memories/{id}/challenge`."""

        def call() -> Any:
            req = _parse(ReasonRequest, body)
            return asdict(
                self._services.reasoning.challenge(self._writer(req.actor), memory_id, req.reason)
            )

        return await self._run("write", ChallengeWithOutcomes, call)

    async def dependents(self, memory_id: str) -> Json:
        """Decisions resting on it (scope read), as `GET /v1/memories/{id}/dependents`."""
        ns = self._principal.namespace
        return await self._run(
            "read",
            MemoriesPublic,
            lambda: _listing(self._services.reasoning.dependents(ns, memory_id)),
        )

    async def invalidate(self, memory_id: str, body: Json) -> Json:
        """Close valid time (scope write), as `POST /v1/memories/{id}/invalidate`."""

        def call() -> Any:
            req = _parse(InvalidateRequest, body)
            memory = self._services.memories.invalidate(
                self._writer(req.actor), memory_id, req.valid_to, req.reason
            )
            return asdict(memory)

        return await self._run("write", MemoryPublic, call)

    async def retract(self, memory_id: str, body: Json) -> Json:
        """Close system time (scope write), as `POST /v1/memories/{id}/retract`."""

        def call() -> Any:
            req = _parse(ReasonRequest, body)
            return asdict(
                self._services.memories.retract(self._writer(req.actor), memory_id, req.reason)
            )

        return await self._run("write", MemoryPublic, call)

    async def ingest(self, body: Json) -> Json:
        """Ingest material (scope ingest, origin ingestion), as `POST /v1/ingest`."""

        def call() -> Any:
            req = _parse(IngestRequest, body)
            p = self._principal
            return self._services.ingestion.ingest(
                p.namespace, p.actor, req.content, req.format, req.source_name
            )

        return await self._run("ingest", IngestReport, call)

    async def record_outcome(self, decision_id: str, body: Json) -> Json:
        """Record an outcome on a decision (scope write), as `POST /v1/memories/{id}/outcomes`."""

        def call() -> Json:
            req = _parse(OutcomeCreate, body)
            new = NewOutcome(
                result=req.result, content=req.content, observed_at=req.observed_at,
                cites=tuple(req.cites),
            )  # fmt: skip
            recorded = self._services.outcomes.record(self._writer(req.actor), decision_id, new)
            return {
                **asdict(recorded.outcome),
                "decision": asdict(recorded.decision),
                "challenged": recorded.challenged,
                "created": recorded.created,
            }

        return await self._run("write", OutcomeRecorded, call)

    async def find_precedents(self, body: Json) -> Json:
        """Past decisions like a situation (scope read), as `POST /v1/precedents`."""

        def call() -> Json:
            req = _parse(PrecedentsRequest, body)
            request = PrecedentRequest(
                situation=req.situation, limit=req.limit, kinds=req.kinds, as_of=req.as_of,
                known_at=req.known_at,
            )  # fmt: skip
            result = self._services.precedents.find(self._principal.namespace, request)
            return {"items": [asdict(p) for p in result.items], "count": result.count}

        return await self._run("read", PrecedentsPublic, call)
