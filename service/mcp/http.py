"""Streamable HTTP MCP at `/mcp` on the running service, authenticated by the REST API keys.

Every request is authenticated before the MCP layer sees it, with the same rules and the same
401 body as REST (`auth.invalid_key`, `WWW-Authenticate: Bearer`); dev mode (no keys) is
namespace `default` with every scope. Each tool call then resolves its caller again from its own
request's key and runs in-process on the domain services in that namespace; a key without the
tool's scope gets a tool error `auth.forbidden` (status 403), since one HTTP request may carry
any tool. Stateless and JSON-answering, so any replica can serve any call: a message is a POST,
and any other method (GET, which would open a server-initiated stream; DELETE, which would end a
session) is a 405 `method_not_allowed` with `Allow: POST`, as the streamable HTTP spec allows.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from mcp.server.mcpserver import Context
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from service.api.auth import Principal, authenticate_request
from service.api.auth_gate import unauthorized
from service.api.encoding import coded_body_refusal
from service.api.errors import HTTP_CODES
from service.api.hosts import host_allowed, host_name
from service.container import Services
from service.errors import AuthError
from service.mcp import messages
from service.mcp.backend import Backend, BackendError
from service.mcp.local import LocalBackend
from service.mcp.tools import RationaleServer
from service.settings import Settings

#: Where the MCP endpoint is served.
MCP_PATH = "/mcp"

#: The refusal's stable code for a browser page of another origin calling dev mode's `/mcp`.
ORIGIN_NOT_ALLOWED = "input.origin_not_allowed"

#: The one method `/mcp` serves: stateless, it keeps no stream to GET and no session to DELETE.
ALLOWED_METHODS = ("POST",)


def _services(scope: Scope) -> Services:
    services: Services = scope["app"].state.services
    return services


def _principal(services: Services, headers: Headers) -> Principal:
    return authenticate_request(services.settings, headers)


async def _backend_for(ctx: Context[Any, Any]) -> Backend:
    """Return the in-process backend for the caller of this tool call (its request's key)."""
    request = ctx.request_context.request
    if not isinstance(request, Request):
        raise BackendError(401, AuthError.code, "no HTTP request carries this call")
    services = _services(request.scope)
    try:
        principal = _principal(services, request.headers)
    except AuthError as exc:
        raise BackendError(401, exc.code, exc.message) from exc
    return LocalBackend(services, principal)


def origin_allowed(origin: str | None, allowed: tuple[str, ...] | None) -> bool:
    """Return True when a request's `Origin` is absent or names a served host (any port).

    Args:
        origin: the header (`http://localhost:6274`), or None.
        allowed: `Settings.host_allow_list`; None serves any host.
    """
    if origin is None or allowed is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and host_allowed(host_name(parts.netloc), allowed)


class McpEndpoint:
    """The ASGI app behind `/mcp`: a bad key is a 401, a method but POST a 405, a coded body a 415.

    A body the SDK would misread (a repeated key, a lone surrogate, an id MCP does not allow, a
    batch; `messages.refusal`) or not read at all is a 400 with its JSON-RPC error (-32700 or
    -32600), as over stdio.

    The Host is checked for the whole app (`HostCheckMiddleware`); in dev mode, where no key
    guards the endpoint, a browser page's `Origin` must name a served host too (403
    `input.origin_not_allowed`), from the same list (`Settings.host_allow_list`).

    Args:
        server: the MCP server whose session manager serves the requests.
        settings: the app's settings (dev mode, the served hosts).
    """

    def __init__(self, server: RationaleServer, settings: Settings) -> None:
        self.server = server
        self.origins = settings.host_allow_list if settings.dev_mode else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the Origin (dev mode), the key, the method and the body's coding, then run MCP."""
        origin = Headers(scope=scope).get("origin")
        if not origin_allowed(origin, self.origins):
            refusal = JSONResponse(
                {"detail": "this Origin may not call /mcp in dev mode", "code": ORIGIN_NOT_ALLOWED},
                status_code=403,
            )
            await refusal(scope, receive, send)
            return
        try:
            _principal(_services(scope), Headers(scope=scope))
        except AuthError as exc:
            await unauthorized(exc)(scope, receive, send)
            return
        if scope["method"] not in ALLOWED_METHODS:
            refusal = JSONResponse(
                {
                    "detail": f"{scope['method']} {MCP_PATH} is not served: the server is "
                    "stateless (no server-initiated stream, no session to end); "
                    "send each message with POST",
                    "code": HTTP_CODES[405],
                },
                status_code=405,
                headers={"Allow": ", ".join(ALLOWED_METHODS)},
            )
            await refusal(scope, receive, send)
            return
        coded = coded_body_refusal(scope)
        if coded is not None:
            await coded(scope, receive, send)
            return
        content_type = Headers(scope=scope).get("content-type")
        if not is_json_rpc(content_type):
            # As REST's 415 (`api.media`): the SDK answered 400 with a plain-text body.
            sent = f"Content-Type {content_type[:100]!r}" if content_type else "no Content-Type"
            refusal = JSONResponse(
                {
                    "detail": f"MCP messages are JSON (Content-Type: application/json); got {sent}",
                    "code": HTTP_CODES[415],
                },
                status_code=415,
            )
            await refusal(scope, receive, send)
            return
        body, receive = await read_whole(receive)
        refused = messages.refusal(body)
        if refused is not None:
            await JSONResponse(refused.as_json(), status_code=400)(scope, receive, send)
            return
        await self.server.session_manager.handle_request(scope, receive, send)


async def read_whole(receive: Receive) -> tuple[bytes, Receive]:
    """Read a request's whole body; return it and a `receive` that hands it on again.

    The body limit (`api.limits`) still counts what is read: an oversized body stops here.
    """
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, replay


def is_json_rpc(content_type: str | None) -> bool:
    """Return True for the media type the MCP SDK reads: `application/json`, any parameters."""
    if not content_type:
        return False
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


class McpMount:
    """The MCP server mounted on an app; run `running()` inside the app's lifespan.

    Args:
        app: the FastAPI (Starlette) app to add the `/mcp` route to.
        settings: the app's settings (dev mode: the Origin check of `McpEndpoint`;
            `max_body_bytes` caps a request as for REST).
    """

    def __init__(self, app: Starlette, settings: Settings) -> None:
        self.server = RationaleServer(_backend_for)
        self.settings = settings
        endpoint = McpEndpoint(self.server, settings)
        # Also `/mcp/`: a client configured with the slash is served, not sent a 404 (the app
        # does not redirect slashes: every other such path is no route).
        for path in (MCP_PATH, MCP_PATH + "/"):
            app.add_route(
                path,
                endpoint,  # type: ignore[arg-type]  # an ASGI app, not a handler
                methods=None,  # any method: after the key check, `McpEndpoint` refuses all but POST
                include_in_schema=False,
            )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run a fresh MCP session manager for the app's lifetime (one per lifespan: it runs once)."""
        # Host and Origin are checked before the SDK sees a request (`HostCheckMiddleware`,
        # `McpEndpoint`), from the one list of served hosts; the SDK's own loopback-only copy
        # of that check is off.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        # Builds the session manager; the Starlette app it returns is not used (our route is).
        self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            json_response=True,
            transport_security=security,
            max_request_body_size=self.settings.max_body_bytes,
        )
        async with self.server.session_manager.run():
            yield
