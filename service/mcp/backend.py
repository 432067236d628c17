"""What the MCP tools call: one operation per REST endpoint, answers in the REST JSON shapes."""

from __future__ import annotations

from typing import Any, Protocol

#: A JSON object as the REST API sends it (times are ISO 8601 strings).
Json = dict[str, Any]


class BackendError(Exception):
    """A refused or failed operation, as the REST API reports it.

    Args:
        status: the HTTP status the REST API answers (401, 403, 404, 409, 413, 422, 503...).
        code: the stable dotted code (`memory.not_found`, `reasoning.rejected`...).
        detail: the message, or the list of validation errors for `input.invalid`.
        extra: further fields of the error body (`quality` for `reasoning.rejected`...).
    """

    def __init__(self, status: int, code: str, detail: Any, extra: Json | None = None) -> None:
        super().__init__(f"{code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra or {}

    def body(self) -> Json:
        """Return the error as the REST API's body plus its status: `{status, code, detail, ...}`."""
        return {"status": self.status, "code": self.code, "detail": self.detail, **self.extra}


#: The scope each tool needs: its REST operation's (DESIGN §8). `RationaleServer.call_tool`
#: checks it before the tool's arguments, as REST checks it before the body (`ScopedRoute`).
TOOL_SCOPES: dict[str, str] = {
    "remember": "write",
    "record_reasoning": "write",
    "recall": "read",
    "search": "read",
    "get_memory": "read",
    "history": "read",
    "update_memory": "write",
    "lineage": "read",
    "challenge": "write",
    "dependents": "read",
    "invalidate": "write",
    "retract": "write",
    "ingest": "ingest",
    "record_outcome": "write",
    "find_precedents": "read",
}


class Backend(Protocol):
    """The operations behind the tools, for one caller (its namespace and scopes are bound in).

    Bodies are the REST request bodies of DESIGN §8 as plain JSON; every method returns the REST
    answer's JSON and raises `BackendError` with the REST status and code when refused.
    """

    async def require(self, scope: str) -> None:
        """Raise `BackendError` 403 `auth.forbidden` unless the caller's key holds `scope`."""
        ...

    async def remember(self, body: Json) -> Json:
        """`POST /v1/memories` (scope write): the memory plus `created`."""
        ...

    async def record_reasoning(self, body: Json) -> Json:
        """`POST /v1/reasoning` (scope write): the trace; `reasoning.rejected` with `quality`."""
        ...

    async def recall(self, body: Json) -> Json:
        """`POST /v1/recall` (scope read): `{items, count}`."""
        ...

    async def search(self, body: Json) -> Json:
        """`POST /v1/search` (scope read): `{items, count}`."""
        ...

    async def get_memory(self, memory_id: str, as_of: str | None, known_at: str | None) -> Json:
        """`GET /v1/memories/{id}` (scope read): one version."""
        ...

    async def get_trace(self, trace_id: str) -> Json:
        """`GET /v1/reasoning/{id}` (scope read): one trace with its steps in order."""
        ...

    async def history(self, memory_id: str) -> Json:
        """`GET /v1/memories/{id}/history` (scope read): `{items, count}`, oldest first."""
        ...

    async def update_memory(self, memory_id: str, version: int, body: Json) -> Json:
        """`PATCH /v1/memories/{id}` with `If-Match: "<version>"` (scope write): the new version.

        A `version` no longer current is 409 `memory.version_conflict` (`current_version`).
        """
        ...

    async def lineage(self, memory_id: str, as_of: str | None, known_at: str | None) -> Json:
        """`GET /v1/memories/{id}/lineage` (scope read): versions, traces, a decision's outcomes."""
        ...

    async def challenge(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/challenge` (scope write): lineage plus `revisit`."""
        ...

    async def dependents(self, memory_id: str) -> Json:
        """`GET /v1/memories/{id}/dependents` (scope read): `{items, count}`."""
        ...

    async def invalidate(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/invalidate` (scope write): the closed version."""
        ...

    async def retract(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/retract` (scope write): the retracted version."""
        ...

    async def ingest(self, body: Json) -> Json:
        """`POST /v1/ingest` (scope ingest): the ingest report."""
        ...

    async def record_outcome(self, decision_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/outcomes` (scope write): the outcome and the decision after it."""
        ...

    async def find_precedents(self, body: Json) -> Json:
        """`POST /v1/precedents` (scope read): `{items, count}` of past decisions."""
        ...


async def read_whole(
    backend: Backend, memory_id: str, as_of: str | None, known_at: str | None
) -> Json:
    """Return `get_memory`'s answer; for a reasoning trace, with the trace's own fields too.

    A trace's `content` is its text flattened and capped (20,000 characters), so its steps
    come from `get_trace` (`GET /v1/reasoning/{id}`): every step is shown (trial 18: a 135-step
    session showed steps 0-42, cut mid-word).
    """
    memory = await backend.get_memory(memory_id, as_of, known_at)
    if memory.get("kind") != "reasoning":
        return memory
    return {**memory, **await backend.get_trace(str(memory.get("memory_id")))}
