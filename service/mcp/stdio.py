"""The stdio transport: the same tools, proxied to a running service over REST (no torch, no Neo4j)."""

from __future__ import annotations

import logging
import sys
from typing import Any

from mcp.server.mcpserver import Context

from service.mcp.backend import Backend
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

    try:
        await RationaleServer(backend_for, backend.authenticate).run_stdio_async()
    finally:
        await backend.aclose()
