"""The stdio transport's backend: the tools' operations sent to a running service over REST."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from service.mcp.backend import BackendError, Json


def _times(as_of: str | None, known_at: str | None) -> Json:
    return {k: v for k, v in (("as_of", as_of), ("known_at", known_at)) if v is not None}


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

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()

    async def _send(
        self, method: str, path: str, body: Json | None = None, params: Json | None = None
    ) -> Json:
        try:
            response = await self._client.request(method, path, json=body, params=params)
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
        raise BackendError(response.status_code, code, answer.get("detail"), extra)

    @staticmethod
    def _memory(memory_id: str, tail: str = "") -> str:
        return f"/v1/memories/{quote(memory_id, safe='')}{tail}"

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
        return await self._send("GET", self._memory(memory_id), params=params)

    async def history(self, memory_id: str) -> Json:
        """`GET /v1/memories/{id}/history`."""
        return await self._send("GET", self._memory(memory_id, "/history"))

    async def lineage(self, memory_id: str, as_of: str | None, known_at: str | None) -> Json:
        """`GET /v1/memories/{id}/lineage?as_of=&known_at=`."""
        params = _times(as_of, known_at)
        return await self._send("GET", self._memory(memory_id, "/lineage"), params=params)

    async def challenge(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/challenge`."""
        return await self._send("POST", self._memory(memory_id, "/challenge"), body)

    async def dependents(self, memory_id: str) -> Json:
        """`GET /v1/memories/{id}/dependents`."""
        return await self._send("GET", self._memory(memory_id, "/dependents"))

    async def invalidate(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/invalidate`."""
        return await self._send("POST", self._memory(memory_id, "/invalidate"), body)

    async def retract(self, memory_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/retract`."""
        return await self._send("POST", self._memory(memory_id, "/retract"), body)

    async def ingest(self, body: Json) -> Json:
        """`POST /v1/ingest`."""
        return await self._send("POST", "/v1/ingest", body)

    async def record_outcome(self, decision_id: str, body: Json) -> Json:
        """`POST /v1/memories/{id}/outcomes`."""
        return await self._send("POST", self._memory(decision_id, "/outcomes"), body)

    async def find_precedents(self, body: Json) -> Json:
        """`POST /v1/precedents`."""
        return await self._send("POST", "/v1/precedents", body)
