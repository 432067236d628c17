"""The stdio transport: the same tools, proxied to a running service over REST (no torch, no Neo4j)."""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any, Protocol, cast

import anyio
from mcp.server.mcpserver import Context
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError

from service.mcp.backend import Backend
from service.mcp.messages import refusal
from service.mcp.rest import RestBackend
from service.mcp.tools import RationaleServer


async def serve_stdio(base_url: str, api_key: str | None) -> None:
    """Serve MCP on stdin/stdout until the host closes it; every tool call goes to `base_url`.

    Args:
        base_url: the Rationale service, e.g. `http://127.0.0.1:8000`.
        api_key: the bearer key (its namespace and scopes apply to every call); None for a
            dev-mode service. A refused key shows as a tool error `auth.invalid_key`, checked
            with the service before a call's arguments are (`RestBackend.authenticate`).
    """
    # stdout carries the protocol: warnings and errors go to stderr, which hosts show as logs.
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(message)s"
    )
    backend = RestBackend(base_url, api_key)

    async def backend_for(ctx: Context[Any, Any]) -> Backend:
        return backend

    server = RationaleServer(backend_for, backend.authenticate)
    stdin = CheckedLines(anyio.wrap_file(sys.stdin.buffer))
    try:
        # The SDK's `run_stdio_async`, with stdin's lines checked first (`CheckedLines`).
        async with stdio_server(stdin=cast("anyio.AsyncFile[str]", stdin)) as (reader, writer):
            stdin.answer_on(writer)
            lowlevel = server._lowlevel_server
            await lowlevel.run(reader, writer, lowlevel.create_initialization_options())
    finally:
        await backend.aclose()


class _Sender(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...


class CheckedLines:
    """Stdin's lines for the SDK's reader; a line it would drop unanswered is answered here.

    The SDK's stdio reader hands a line it cannot read to the session as an exception, which
    answers nothing: not JSON, an object or null id, a batch got no answer at all (trial 18),
    where `/mcp` answers each with its JSON-RPC error. Each line is read as bytes and checked
    as `/mcp` checks a body (`messages.refusal`: bytes that are not UTF-8 included, which a
    text reader turned into U+FFFD and stored; trial 20); a refused line is answered on the
    session's write stream (so the answer is written between whole messages) and not passed
    on. Blank lines are skipped.

    Args:
        lines: stdin as byte lines.
    """

    def __init__(self, lines: AsyncIterable[bytes]) -> None:
        self._lines = lines
        self._answers: _Sender | None = None
        self._ready = anyio.Event()

    def answer_on(self, stream: _Sender) -> None:
        """Give the stream refusals are written to (the session's write stream)."""
        self._answers = stream
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        """Iterate over the lines the SDK may read, as text."""
        return self._checked()

    async def _checked(self) -> AsyncIterator[str]:
        async for line in self._lines:
            if not line.strip():
                continue
            refused = refusal(line)
            if refused is None:
                yield line.decode("utf-8")
                continue
            await self._ready.wait()
            assert self._answers is not None
            error = ErrorData(code=refused.code, message=refused.message)
            answer = JSONRPCError(jsonrpc="2.0", id=refused.id, error=error)
            await self._answers.send(SessionMessage(answer))
