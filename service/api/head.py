"""ASGI middleware that answers `HEAD` on every `GET` resource: the `GET` answer, without its body.

RFC 9110 §9.1: a general-purpose server supports `GET` and `HEAD`; §9.3.2: `HEAD` is `GET`
without the content, the same status and headers. FastAPI declares only the methods a route
names, so a `HEAD` of `/v1/memories/{id}` was a 405.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.errors import allowed_methods


class HeadAsGetMiddleware:
    """Run a `HEAD` request as a `GET` of its resource and send the answer's head alone.

    Only a path whose resource answers `GET` (`errors.allowed_methods`, which then names `HEAD`
    too) is rewritten: elsewhere `HEAD` stays a 405. Routes without a method list (the MCP
    endpoint, whose `GET` would open a stream) are never resources here. The server's own
    scope is left alone (a copy says `GET`), and the body is dropped here whatever server runs
    the app.

    Args:
        app: the wrapped ASGI app.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; a `HEAD` of a `GET` resource as that `GET`, without body."""
        if scope["type"] != "http" or scope["method"] != "HEAD" or "app" not in scope:
            await self.app(scope, receive, send)
            return
        as_get = {**scope, "method": "GET"}
        if "GET" not in allowed_methods(Request(as_get)):
            await self.app(scope, receive, send)
            return

        async def send_head(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app(as_get, receive, send_head)
