"""MCP clients from the SDK over both transports, against the real service in a subprocess.

The service is `tests/client`'s: this tree's code (`python -m service.cli serve`), the shared
Neo4j, namespaces A and B (fresh `test_<hex>`, dropped at the end), keys A (every scope),
A read-only and B. HTTP clients talk to its `/mcp`; stdio clients spawn
`python -m service.cli mcp --url <service> [--key <key>]` from this tree.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from tests.client.conftest import Service, service

__all__ = ["service"]

REPO = Path(__file__).resolve().parents[2]
TRANSPORTS = ("http", "stdio")

Connect = Callable[[str | None], AbstractAsyncContextManager[Client]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def http_client(svc: Service, key: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = f"{svc.base_url}/mcp"
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120.0) as http,
        Client(streamable_http_client(url, http_client=http)) as c,
    ):
        yield c


@asynccontextmanager
async def stdio_client(svc: Service, key: str | None) -> AsyncIterator[Client]:
    args = ["-m", "service.cli", "mcp", "--url", svc.base_url]
    if key:
        args += ["--key", key]
    # No RATIONALE_API_KEY from the environment: only what the test passes.
    params = StdioServerParameters(
        command=sys.executable, args=args, cwd=str(REPO), env={"RATIONALE_API_KEY": ""}
    )
    async with Client(params) as c:
        yield c


@pytest.fixture(params=TRANSPORTS)
def connect(request: pytest.FixtureRequest, service: Service) -> Connect:
    """Open an MCP client over the parametrized transport with the given key."""
    opener = http_client if request.param == "http" else stdio_client

    def open_with(key: str | None) -> AbstractAsyncContextManager[Client]:
        return opener(service, key)

    return open_with


async def call(client: Client, tool: str, **arguments: Any) -> CallToolResult:
    """Call a tool; return its result (successful or not)."""
    result = await client.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult)
    return result


async def ok(client: Client, tool: str, **arguments: Any) -> tuple[dict[str, Any], str]:
    """Call a tool that must succeed; return its structured content and its text."""
    result = await call(client, tool, **arguments)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content, text_of(result)


async def refused(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must be refused; return the error body (`status`, `code`, `detail`...)."""
    result = await call(client, tool, **arguments)
    assert result.is_error, text_of(result)
    assert result.structured_content is not None, text_of(result)
    error: dict[str, Any] = result.structured_content["error"]
    assert error["code"] in text_of(result)
    return error


def text_of(result: CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))
