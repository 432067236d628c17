"""ASGI middleware that refuses request bodies over a size limit, declared or streamed."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.asgi import send_json


class _TooLarge(HTTPException):
    """Raised inside the app while it reads the body; its error handler answers 413."""


class BodyLimitMiddleware:
    """Answer 413 `input.too_large` once a body exceeds `max_bytes`.

    A `Content-Length` over the limit is refused before anything is read; a chunked body is
    counted as it streams in and refused as soon as it passes the limit, so it is never read
    whole.

    Args:
        app: the wrapped ASGI app.
        max_bytes: the limit in bytes.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, counting body bytes."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"").decode("latin-1")
        if length.isdigit() and int(length) > self.max_bytes:
            await self._refuse(send)
            return
        seen = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge(413, f"request body over {self.max_bytes} bytes")
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        await send_json(
            send,
            413,
            {"detail": f"request body over {self.max_bytes} bytes", "code": "input.too_large"},
        )
