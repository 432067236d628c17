"""The endpoint table: one function per operation of the service, building its `Call`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

from rationale_client import answers as a
from rationale_client import bodies as b
from rationale_client._core import Call
from rationale_client.errors import ArgumentError


def _segment(value: str, name: str) -> str:
    """Return an id as one escaped URL path segment.

    Every character but the unreserved ones is percent-encoded (`a b` -> `a%20b`).

    Raises:
        ArgumentError: not a string, empty, `.` or `..`, or holding a `/`: the service's
            server decodes the path before routing (`%2F` is `/` again), so such an id would
            reach another route instead of the one asked for.
    """
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be a string, not {type(value).__name__}")
    if value in ("", ".", "..") or "/" in value:
        raise ArgumentError(f"{name} {value!r} cannot be sent as one URL path segment")
    return quote(value, safe="")


def _memory(memory_id: str, tail: str = "", name: str = "memory_id") -> str:
    """Return a memory's path; `tail` is a sub-resource (`/history`...) or "" for the memory.

    Raises:
        ArgumentError: see `_segment`; or the id `batch` for the memory itself, whose path is
            the batch resource's (`POST /v1/memories/batch`): no memory has that id.
    """
    if memory_id == "batch" and not tail:
        raise ArgumentError(
            f"{name} 'batch' cannot be sent: /v1/memories/batch is the batch resource, "
            "and no memory has that id"
        )
    return f"/v1/memories/{_segment(memory_id, name)}{tail}"


def _json(body: b.Body, model: type[b.Body]) -> dict[str, Any]:
    """Return a request model's JSON body.

    Raises:
        ArgumentError: `body` is not a `model` (e.g. a dict: build it with `model(**fields)`,
            which checks the fields before anything is sent).
    """
    if not isinstance(body, model):
        raise ArgumentError(
            f"the body must be a {model.__name__} (rationale_client.{model.__name__}(**fields)), "
            f"not {type(body).__name__}"
        )
    return body.to_json()


def _iso(value: datetime | str) -> str:
    """Return `value` as ISO 8601 with its offset; a string is parsed first.

    Raises:
        ArgumentError: a string that is no ISO 8601 time, or a time without an offset.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError as exc:
            raise ArgumentError(f"not an ISO 8601 time: {value!r}") from exc
    if value.tzinfo is None:
        raise ArgumentError(
            "times must carry an offset (e.g. datetime.now(UTC) or '2024-01-01T00:00:00Z')"
        )
    return value.isoformat()


def _set(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def create_memory(body: b.MemoryCreate, key: str | None) -> Call[a.MemoryCreated]:
    """`POST /v1/memories`."""
    json = _json(body, b.MemoryCreate)
    return Call("POST", "/v1/memories", a.MemoryCreated, json, idempotency_key=key)


def batch_memories(items: Sequence[b.MemoryCreate], key: str | None) -> Call[a.BatchResult]:
    """`POST /v1/memories/batch`."""
    body = b.BatchRequest(items=list(items))
    return Call("POST", "/v1/memories/batch", a.BatchResult, body.to_json(), idempotency_key=key)


def _times(as_of: datetime | str | None, known_at: datetime | str | None) -> dict[str, str] | None:
    """Return the `as_of`/`known_at` query parameters given (None when neither is)."""
    params = {k: _iso(v) for k, v in (("as_of", as_of), ("known_at", known_at)) if v is not None}
    return params or None


def get_memory(
    memory_id: str, as_of: datetime | str | None, known_at: datetime | str | None
) -> Call[a.Memory]:
    """`GET /v1/memories/{memory_id}?as_of=&known_at=`."""
    return Call("GET", _memory(memory_id), a.Memory, params=_times(as_of, known_at))


def update_memory(memory_id: str, body: b.MemoryUpdate, if_match: int) -> Call[a.Memory]:
    """`PATCH /v1/memories/{memory_id}` with `If-Match: <version>`."""
    headers = {"If-Match": str(if_match)}
    return Call("PATCH", _memory(memory_id), a.Memory, _json(body, b.MemoryUpdate), headers=headers)


def invalidate_memory(
    memory_id: str,
    reason: str,
    valid_to: datetime | str | None,
    actor: str | None,
    key: str | None,
) -> Call[a.Memory]:
    """`POST /v1/memories/{memory_id}/invalidate`."""
    body = b.InvalidateRequest(**_set(reason=reason, valid_to=valid_to, actor=actor))
    return Call(
        "POST", _memory(memory_id, "/invalidate"), a.Memory, body.to_json(), idempotency_key=key
    )


def retract_memory(
    memory_id: str, reason: str, actor: str | None, key: str | None
) -> Call[a.Memory]:
    """`POST /v1/memories/{memory_id}/retract`."""
    body = b.ReasonRequest(**_set(reason=reason, actor=actor))
    return Call(
        "POST", _memory(memory_id, "/retract"), a.Memory, body.to_json(), idempotency_key=key
    )


def challenge_memory(
    memory_id: str, reason: str, actor: str | None, key: str | None
) -> Call[a.Challenge]:
    """`POST /v1/memories/{memory_id}/challenge`."""
    body = b.ReasonRequest(**_set(reason=reason, actor=actor))
    return Call(
        "POST", _memory(memory_id, "/challenge"), a.Challenge, body.to_json(), idempotency_key=key
    )


def history(memory_id: str) -> Call[a.Memories]:
    """`GET /v1/memories/{memory_id}/history`."""
    return Call("GET", _memory(memory_id, "/history"), a.Memories)


def lineage(
    memory_id: str, as_of: datetime | str | None, known_at: datetime | str | None
) -> Call[a.Lineage]:
    """`GET /v1/memories/{memory_id}/lineage?as_of=&known_at=`."""
    params = _times(as_of, known_at)
    return Call("GET", _memory(memory_id, "/lineage"), a.Lineage, params=params)


def dependents(memory_id: str) -> Call[a.Memories]:
    """`GET /v1/memories/{memory_id}/dependents`."""
    return Call("GET", _memory(memory_id, "/dependents"), a.Memories)


def record_outcome(
    decision_id: str, body: b.OutcomeCreate, key: str | None
) -> Call[a.OutcomeRecorded]:
    """`POST /v1/memories/{decision_id}/outcomes`."""
    path = _memory(decision_id, "/outcomes", "decision_id")
    json = _json(body, b.OutcomeCreate)
    return Call("POST", path, a.OutcomeRecorded, json, idempotency_key=key)


def list_outcomes(
    decision_id: str, as_of: datetime | str | None, known_at: datetime | str | None
) -> Call[a.Outcomes]:
    """`GET /v1/memories/{decision_id}/outcomes?as_of=&known_at=`."""
    path = _memory(decision_id, "/outcomes", "decision_id")
    return Call("GET", path, a.Outcomes, params=_times(as_of, known_at))


def find_precedents(body: b.PrecedentsRequest, key: str | None) -> Call[a.Precedents]:
    """`POST /v1/precedents`."""
    return Call("POST", "/v1/precedents", a.Precedents, body.to_json(), idempotency_key=key)


def record_trace(body: b.TraceCreate, key: str | None) -> Call[a.Trace]:
    """`POST /v1/reasoning`."""
    return Call("POST", "/v1/reasoning", a.Trace, _json(body, b.TraceCreate), idempotency_key=key)


def get_trace(trace_id: str) -> Call[a.Trace]:
    """`GET /v1/reasoning/{trace_id}`."""
    return Call("GET", f"/v1/reasoning/{_segment(trace_id, 'trace_id')}", a.Trace)


def recall(body: b.RecallRequest, key: str | None) -> Call[a.Retrieval]:
    """`POST /v1/recall`."""
    return Call("POST", "/v1/recall", a.Retrieval, body.to_json(), idempotency_key=key)


def search(body: b.SearchRequest, key: str | None) -> Call[a.Retrieval]:
    """`POST /v1/search`."""
    return Call("POST", "/v1/search", a.Retrieval, body.to_json(), idempotency_key=key)


def ingest(body: b.IngestRequest, key: str | None) -> Call[a.IngestReport]:
    """`POST /v1/ingest`."""
    return Call("POST", "/v1/ingest", a.IngestReport, body.to_json(), idempotency_key=key)


def run_maintenance(job: str, key: str | None) -> Call[a.MaintenanceReport]:
    """`POST /v1/maintenance/run`."""
    body = b.MaintenanceRequest(job=job)
    return Call(
        "POST", "/v1/maintenance/run", a.MaintenanceReport, body.to_json(), idempotency_key=key
    )


def diagnostics() -> Call[a.Diagnostics]:
    """`GET /v1/diagnostics`."""
    return Call("GET", "/v1/diagnostics", a.Diagnostics)


def health() -> Call[a.Health]:
    """`GET /healthz`."""
    return Call("GET", "/healthz", a.Health)


def ready() -> Call[a.Readiness]:
    """`GET /readyz`: a 503 (not ready) is an answer here, and never retried."""
    return Call("GET", "/readyz", a.Readiness, accept=frozenset({503}), retry=False)


def recall_body(
    query: str,
    limit: int,
    kinds: Sequence[b.AnyKind] | None,
    as_of: datetime | str | None,
    known_at: datetime | str | None,
    explain: bool = False,
) -> b.RecallRequest:
    """Build a recall body from keyword arguments (None = the server's default)."""
    kinds_list = list(kinds) if kinds is not None else None
    return b.RecallRequest(
        **_set(
            query=query,
            limit=limit,
            kinds=kinds_list,
            as_of=as_of,
            known_at=known_at,
            explain=explain or None,
        )
    )


def search_body(
    query: str,
    limit: int,
    kinds: Sequence[b.AnyKind] | None,
    origins: Sequence[str] | None,
    include_superseded: bool,
    as_of: datetime | str | None,
    known_at: datetime | str | None,
    explain: bool = False,
) -> b.SearchRequest:
    """Build a search body from keyword arguments (None = the server's default)."""
    return b.SearchRequest(
        **_set(
            query=query,
            limit=limit,
            kinds=list(kinds) if kinds is not None else None,
            origins=list(origins) if origins is not None else None,
            include_superseded=include_superseded,
            as_of=as_of,
            known_at=known_at,
            explain=explain or None,
        )
    )


def precedents_body(
    situation: str,
    limit: int,
    kinds: Sequence[str] | None,
    as_of: datetime | str | None,
    known_at: datetime | str | None,
) -> b.PrecedentsRequest:
    """Build a precedents body from keyword arguments (None = the server's default)."""
    kinds_list = list(kinds) if kinds is not None else None
    return b.PrecedentsRequest(
        **_set(situation=situation, limit=limit, kinds=kinds_list, as_of=as_of, known_at=known_at)
    )
