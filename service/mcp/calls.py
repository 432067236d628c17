"""How a tool calls its backend: the request body from its arguments, the result or the refusal."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent

from service.mcp import render
from service.mcp.backend import Backend, BackendError, Json

BackendFor = Callable[["Context[Any, Any]"], Awaitable[Backend]]


@runtime_checkable
class Serves(Protocol):
    """The server a tool runs in: it gives the backend for the caller of one tool call."""

    backend_for: BackendFor


def refusal(exc: BackendError) -> CallToolResult:
    """Return the tool error of a refusal: its rendering, and the REST error body plus status."""
    return CallToolResult(
        content=[TextContent(type="text", text=render.shown(render.error(exc)))],
        structured_content={"error": exc.body()},
        is_error=True,
    )


def body_of(**values: Any) -> Json:
    """Return the request body: the given arguments without the unset (None) ones."""
    return {k: v for k, v in values.items() if v is not None}


async def call(
    ctx: Context[Any, Any], op: Callable[[Backend], Awaitable[Json]], text: Callable[[Json], str]
) -> CallToolResult:
    """Run `op` on the caller's backend; return its answer rendered by `text`, or the refusal.

    Args:
        ctx: the tool call's context (its server gives the backend).
        op: the backend operation, e.g. `lambda b: b.recall(body)`.
        text: renders the REST answer for the model.

    Returns:
        The REST answer as structured content plus its text, or `refusal`'s tool error.
    """
    server = ctx.mcp_server
    assert isinstance(server, Serves)
    try:
        answer = await op(await server.backend_for(ctx))
    except BackendError as exc:
        return refusal(exc)
    return CallToolResult(
        content=[TextContent(type="text", text=render.shown(text(answer)))],
        structured_content=answer,
    )
