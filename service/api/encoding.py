"""ASGI middleware that refuses a compressed request body: the service reads plain JSON only."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.asgi import send_json

#: The content coding the service reads (RFC 9110 §8.4.1: `identity` means none).
IDENTITY = "identity"


class ContentEncodingMiddleware:
    """Answer 415 `input.unsupported_media_type` to a request with a `Content-Encoding` but `identity`.

    Without it a gzip body declared as JSON reached the JSON parser and came back as a 422
    "JSON decode error", which reads as a broken payload rather than an unsupported coding.
    The answer names the coding and carries `Accept-Encoding: identity` (RFC 7694 §3).
    Nothing is read from the body; a request without one (no `Content-Length` above 0 and no
    `Transfer-Encoding`) passes whatever it declares.

    Args:
        app: the wrapped ASGI app.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on unless it declares a content coding other than `identity`."""
        if scope["type"] == "http":
            headers = scope.get("headers") or []
            codings = [
                c.strip().lower()
                for name, value in headers
                if name == b"content-encoding"
                for c in value.decode("latin-1").split(",")
                if c.strip()
            ]
            if any(c != IDENTITY for c in codings) and _has_body(headers):
                await self._refuse(send, ", ".join(codings))
                return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(send: Send, codings: str) -> None:
        detail = (
            f"Content-Encoding {codings[:100]!r} is not supported: send the body uncompressed "
            "(Content-Encoding: identity, or no Content-Encoding)"
        )
        await send_json(
            send,
            415,
            {"detail": detail, "code": "input.unsupported_media_type"},
            [(b"accept-encoding", IDENTITY.encode())],
        )


def _has_body(headers: list[tuple[bytes, bytes]]) -> bool:
    """Return True when the request declares a body: `Content-Length` above 0 or `Transfer-Encoding`."""
    for name, value in headers:
        if name == b"transfer-encoding":
            return True
        if name == b"content-length" and value.strip() not in (b"", b"0"):
            return True
    return False
