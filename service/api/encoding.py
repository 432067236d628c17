"""The service reads plain JSON only: a request body in any content coding but `identity` is a 415."""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import Scope

#: The content coding the service reads (RFC 9110 §8.4.1: `identity` means none).
IDENTITY = "identity"


def coded_body_refusal(scope: Scope) -> JSONResponse | None:
    """Return the 415 `input.unsupported_media_type` answer to a coded body, or None to go on.

    Without it a gzip body declared as JSON reached the JSON parser and came back as a 422
    "JSON decode error", which reads as a broken payload rather than an unsupported coding. The
    answer names the coding and carries `Accept-Encoding: identity` (RFC 7694 §3). Nothing is
    read from the body; a request without one (no `Content-Length` above 0 and no
    `Transfer-Encoding`) passes whatever it declares. Asked after the key and its scope
    (`api.auth_gate.ScopedRoute`, `mcp.http.McpEndpoint`): a caller that may not call the
    operation learns nothing of what it accepts.

    Args:
        scope: the request's ASGI scope (its raw headers, names lower-case).
    """
    headers = scope.get("headers") or []
    codings = [
        c.strip().lower()
        for name, value in headers
        if name == b"content-encoding"
        for c in value.decode("latin-1").split(",")
        if c.strip()
    ]
    if all(c == IDENTITY for c in codings) or not _has_body(headers):
        return None
    declared = ", ".join(codings)
    detail = (
        f"Content-Encoding {declared[:100]!r} is not supported: send the body uncompressed "
        "(Content-Encoding: identity, or no Content-Encoding)"
    )
    return JSONResponse(
        {"detail": detail, "code": "input.unsupported_media_type"},
        status_code=415,
        headers={"Accept-Encoding": IDENTITY},
    )


def _has_body(headers: list[tuple[bytes, bytes]]) -> bool:
    """Return True when the request declares a body: `Content-Length` above 0 or `Transfer-Encoding`."""
    for name, value in headers:
        if name == b"transfer-encoding":
            return True
        if name == b"content-length" and value.strip() not in (b"", b"0"):
            return True
    return False
