"""Checks before a request's body is read: a middleware (key) and a route class (scope, coding)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.auth import authenticate_request
from service.api.encoding import coded_body_refusal
from service.api.json_body import StrictJsonRequest
from service.api.query import check_query, query_names
from service.errors import AuthError
from service.settings import Settings

#: The paths whose operations take an API key (the health probes, docs, `/metrics` and `/mcp`
#: answer or authenticate on their own).
GATED_PREFIX = "/v1/"


def unauthorized(exc: AuthError) -> JSONResponse:
    """Return the 401 answer to a missing or unknown key, as the error table renders it."""
    return JSONResponse(
        {"detail": exc.message, "code": exc.code},
        status_code=401,
        headers={"WWW-Authenticate": "Bearer"},
    )


class AuthGateMiddleware:
    """Answer 401 (as the `Authorization` dependency would) before the request body is parsed.

    The key dependency runs after FastAPI has read and validated the body, so a caller without
    a key learnt from a 415 or 422 what the operation accepts; the gate checks the key first
    (`authenticate`, the same check) and the dependency still resolves the principal and its
    scopes (the scope is checked before the body by `ScopedRoute`). Dev mode (no keys
    configured) passes everything.

    Args:
        app: the wrapped ASGI app.
        settings: the app's settings, used until the app's services hold theirs (the keys are
            read from `app.state.services.settings` at each request when it exists).
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on when it needs no key or holds a known one, else refuse it."""
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(GATED_PREFIX):
            await self.app(scope, receive, send)
            return
        services = getattr(getattr(scope.get("app"), "state", None), "services", None)
        settings = getattr(services, "settings", None) or self.settings
        try:
            authenticate_request(settings, Headers(scope=scope))
        except AuthError as exc:
            await unauthorized(exc)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def route_scope(route: APIRoute) -> str | None:
    """Return the scope a route's key dependency requires (`api.deps` marks it), or None."""
    stack = list(route.dependant.dependencies)
    while stack:
        dependency = stack.pop()
        scope = getattr(dependency.call, "required_scope", None)
        if isinstance(scope, str):
            return scope
        stack.extend(dependency.dependencies)
    return None


class ScopedRoute(APIRoute):
    """An `APIRoute` that checks the key's scope, then the body's coding, before reading the body.

    FastAPI reads and validates the body before it resolves dependencies, so a read-only key
    on a write operation learnt from a 415 or 422 what the operation accepts before its 403.
    This route class (FastAPI's documented way to wrap a route's handler) checks the scope the
    route's key dependency requires (`route_scope`) first, then refuses a coded body
    (`coded_body_refusal`, 415); the dependency still checks the scope too. A `ForbiddenError`
    is rendered by the error table (403 `auth.forbidden`). A `/v1/` operation's query string
    (and one of a route class with `strict_query`, the Browser's) is checked next
    (`query.check_query`: an unknown or repeated parameter is a 422), and the
    body is read as strict JSON (`json_body.StrictJsonRequest`: a key named twice in an
    object is a 422).
    """

    #: Check the query string of a route outside `/v1/` too (the Browser's routes).
    strict_query = False

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """Return the route's handler behind the scope and content-coding checks."""
        handler = super().get_route_handler()
        required = route_scope(self)  # the dependant is built before FastAPI asks for this
        strict = self.strict_query or self.path_format.startswith(GATED_PREFIX)
        known = query_names(self) if strict else None

        async def checked_handler(request: Request) -> Response:
            if required is not None:
                settings = request.app.state.services.settings
                authenticate_request(settings, request.headers).require(required)
            refusal = coded_body_refusal(request.scope)
            if refusal is not None:
                return refusal
            if known is not None:
                check_query(request.query_params, known)
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return checked_handler
