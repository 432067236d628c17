"""The stdio transport's backend: the tools' operations sent to a running service over REST."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from service.errors import bounded_detail, echo_id
from service.mcp.backend import BackendError, Json

#: Sent in place of a memory id holding a "/", which no route can take: the service decodes
#: `%2F` before routing and a route's `{memory_id}` is one path segment. No memory has such an
#: id (ids are UUIDs), nor this one, so the service answers as for any unknown id, after the
#: same key, scope and argument checks, and `_about` puts the caller's id back in the message.
UNROUTABLE_ID = "unroutable-memory-id"


def segment(memory_id: str) -> str:
    """Return `memory_id` as one path segment: every reserved character and every dot encoded.

    Dots too, since httpx resolves a `.` or `..` segment (`/v1/memories/..` is sent as `/v1`);
    the service decodes `%2E` back to the id's dot.
    """
    return quote(memory_id, safe="").replace(".", "%2E")


#: The parts of a request REST's validation issues start their `loc` with; a tool's arguments
#: are its body's fields or its query parameters (and the memory id its path's), so the rest of
#: such a `loc` names the argument.
REQUEST_PARTS = ("body", "query", "path")

#: What an issue of the in-process backend (`/mcp`) holds; REST's also echo `input` and `ctx`.
ISSUE_KEYS = ("type", "loc", "msg")


def tool_issues(detail: Any) -> Any:
    """Return REST's 422 issues as a tool reports them (the in-process backend's form).

    `{"type": ..., "loc": ["query", "as_of"], "msg": ..., "input": ...}` becomes
    `{"type": ..., "loc": ["as_of"], "msg": ...}`. A `loc` of a request part alone (`["body"]`:
    not a JSON object) or of another part (a header) is kept: it names no argument.

    Args:
        detail: the `detail` of an `input.invalid` answer: a list of issue objects (anything
            else is returned as is).

    Returns:
        The issues in order, each `{type, loc, msg}` (`loc` a list of argument names and
        indexes), or `detail` itself when it is no list.
    """
    if not isinstance(detail, list):
        return detail
    issues: list[Any] = []
    for issue in detail:
        if isinstance(issue, dict):
            loc = issue.get("loc")
            if isinstance(loc, list) and len(loc) > 1 and loc[0] in REQUEST_PARTS:
                issue = {**issue, "loc": loc[1:]}
            issue = {k: v for k, v in issue.items() if k in ISSUE_KEYS}
        issues.append(issue)
    return issues


def _times(as_of: str | None, known_at: str | None) -> Json:
    return {k: v for k, v in (("as_of", as_of), ("known_at", known_at)) if v is not None}


#: Per scope, a request the service refuses after checking the scope (`RestBackend.require`):
#: a read of a memory no one has, a create and an ingest without their required fields.
SCOPE_PROBES: dict[str, tuple[str, str, Json | None]] = {
    "read": ("GET", f"/v1/memories/{UNROUTABLE_ID}", None),
    "write": ("POST", "/v1/memories", {}),
    "ingest": ("POST", "/v1/ingest", {}),
}


class RestBackend:
    """Calls `/v1/...` on a Rationale service with one API key (httpx, no domain code loaded).

    Args:
        base_url: the service's root URL, e.g. `http://127.0.0.1:8000`.
        api_key: sent as `Authorization: Bearer <key>`; None sends no header (dev mode).
        timeout_s: per-request timeout in seconds (ingest of a large file can take a while).
        transport: an httpx transport (tests); default the network.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        timeout_s: float = 120.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout_s, transport=transport
        )
        self._key_known = False
        self._holds: dict[str, bool] = {}

    async def require(self, scope: str) -> None:
        """Ask the service once whether the key holds `scope`; raise its 403 when it does not.

        The probe (`SCOPE_PROBES`) is a request the service refuses whatever the key holds:
        the scope is checked before anything else, so 403 means lacking it and the probe's
        own refusal (404, 422) holding it. Nothing is written.

        Raises:
            BackendError: 403 `auth.forbidden`; or the service could not tell (401, 503...),
                and the next call asks again.
        """
        if scope not in self._holds:
            method, path, body = SCOPE_PROBES[scope]
            try:
                await self._send(method, path, body)
            except BackendError as exc:
                if exc.status not in (403, 404, 422):
                    raise
                self._holds[scope] = exc.status != 403
            else:
                self._holds[scope] = True
        if not self._holds[scope]:
            raise BackendError(403, "auth.forbidden", f"this API key lacks the {scope!r} scope")

    async def authenticate(self) -> None:
        """Check the key with the service, which checks it first on any `/v1/` request.

        Sends a read of `UNROUTABLE_ID`, which no memory has: once the service knows the key it
        answers 404 (403 for a key without the read scope), and the key is not asked about
        again; a missing or unknown key is its 401. The answer is also the read scope's probe
        (`SCOPE_PROBES`), so `require("read")` asks nothing more.

        Raises:
            BackendError: 401 `auth.invalid_key`, or the service could not tell (unreachable,
                503 ...); the next call asks again.
        """
        if self._key_known:
            return
        method, path, _ = SCOPE_PROBES["read"]
        try:
            await self._send(method, path)
        except BackendError as exc:
            if exc.status not in (403, 404):
                raise
            self._holds["read"] = exc.status == 404
        self._key_known = True

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()

    async def _send(
        self,
        method: str,
        path: str,
        body: Json | None = None,
        params: Json | None = None,
        headers: dict[str, str] | None = None,
    ) -> Json:
        try:
            response = await self._client.request(
                method, path, json=body, params=params, headers=headers
            )
        except httpx.TransportError as exc:
            raise BackendError(
                503, "service.unreachable", f"cannot reach {self._client.base_url}: {exc}"
            ) from exc
        try:
            answer: Any = response.json()
        except ValueError:
            answer = {"detail": response.text or response.reason_phrase}
        if response.is_success and isinstance(answer, dict):
            return answer
        if not isinstance(answer, dict):
            answer = {"detail": answer}
        extra = {k: v for k, v in answer.items() if k not in ("detail", "code")}
        code = str(answer.get("code") or f"http.{response.status_code}")
        detail = answer.get("detail")
        if code == "input.invalid":
            detail = tool_issues(detail)
        raise BackendError(response.status_code, code, detail, extra)

    async def _about(
        self,
        method: str,
        memory_id: str,
        tail: str = "",
        body: Json | None = None,
        params: Json | None = None,
        headers: dict[str, str] | None = None,
    ) -> Json:
        """Send a request on `/v1/memories/{memory_id}{tail}`, an odd id as `UNROUTABLE_ID`.

        Odd: holding a "/", or `batch` for the memory itself (its path is the batch resource's).
        """
        # `/v1/memories/batch` is the batch resource (POST), not a memory the id could name.
        odd = "/" in memory_id or (memory_id == "batch" and not tail)
        routed = UNROUTABLE_ID if odd else segment(memory_id)
        try:
            return await self._send(method, f"/v1/memories/{routed}{tail}", body, params, headers)
        except BackendError as exc:
            if routed != UNROUTABLE_ID or not isinstance(exc.detail, str):
                raise
            detail = bounded_detail(exc.detail.replace(UNROUTABLE_ID, echo_id(memory_id)))
            raise BackendError(exc.status, exc.code, detail, exc.extra) from exc

    async def remember(self, body: Json) -> Json:
        """`POST /v1/memories`."""
        return await self._send("POST", "/v1/memories", body)

    async def record_reasoning(self, body: Json) -> Json:
        """`POST /v1/reasoning`."""
        return await self._send("POST", "/v1/reasoning", body)

    async def recall(self, body: Json) -> Json:
        """`POST /v1/recall`."""
        return await self._send("POST", "/v1/recall", body)

    async def search(self, body: Json) -> Json:
        """`POST /v1/search`."""
        return await self._send("POST", "/v1/search", body)

    async def get_memory(self, memory_id: str, as_of: str | None, known_at: str | None) -> Json:
        """`GET /v1/memories/{id}?as_of=&known_at=`."""
        params = _times(as_of, known_at)
        return await self._about("GET", memory_id, params=params)

    async def get_trace(self, trace_id: str) -> Json:
        """`GET /v1/reasoning/{id}`."""
        return await self._send("GET", f"/v1/reasoning/{quote(trace_id, safe='')}")

    async def history(self, memory_id: str) -> Json:
        """`GET /v1/memories/{id}/history`."""
        return await self._about("GET", memory_id, "/history")

    async def update_memory(self, memory_id: str, version: int, body: Json) -> Json:
        """`PATCH /v1/memories/{id}` with `If-Match: "<version>"`."""
        return await self._about(
            "PATCH", memory_id, body=body, headers={"If-Match": f'"{version}"'}
        )

    async def lineage(self, memory_id: str, as_of: str | None, known_at: str | None) -> Json:
        """`GET /v1/memories/{id}/lineage?as_of=&known_at=`."""
        params = _times(as_of, known_at)
        return await self._about("GET", memory_id, "/lineage", params=params)

    async def challenge(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/challenge`."""
        return await self._about("POST", memory_id, "/challenge", body)

    async def dependents(self, memory_id: str) -> Json:
        """`GET /v1/memories/{id}/dependents`."""
        return await self._about("GET", memory_id, "/dependents")

    async def invalidate(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/invalidate`."""
        return await self._about("POST", memory_id, "/invalidate", body)

    async def retract(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/retract`."""
        return await self._about("POST", memory_id, "/retract", body)

    async def ingest(self, body: Json) -> Json:
        """`POST /v1/ingest`."""
        return await self._send("POST", "/v1/ingest", body)

    async def record_outcome(self, decision_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/outcomes`."""
        return await self._about("POST", decision_id, "/outcomes", body)

    async def find_precedents(self, body: Json) -> Json:
        """`POST /v1/precedents`."""
        return await self._send("POST", "/v1/precedents", body)
