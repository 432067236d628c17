"""The media-type check of JSON request bodies: anything but JSON is a 415, not a schema error."""

from __future__ import annotations

import email.message

from fastapi import Request
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException


def is_json(content_type: str) -> bool:
    """Return True for `application/json` or `application/<anything>+json`, any parameters.

    Args:
        content_type: a `Content-Type` header value (`application/json; charset=utf-8`).
    """
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


async def require_json_body(request: Request) -> None:
    """Refuse a non-empty body that is not declared JSON, on an operation that reads JSON.

    An app-wide dependency: it runs before the operation's own (authentication included) and
    does nothing for operations without a body. A body sent without `Content-Type`, as text
    or as form data is refused; an empty one passes (the operation's 422 names what is missing).

    Args:
        request: the request; its body was read and cached by FastAPI already.

    Raises:
        HTTPException: 415, answered as `{"detail", "code": "input.unsupported_media_type"}`
            (`api.errors.HTTP_CODES`).
    """
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or route.body_field is None:
        return
    content_type = request.headers.get("content-type")
    if content_type is not None and is_json(content_type):
        return
    if not await request.body():
        return
    sent = f"Content-Type {content_type[:100]!r}" if content_type else "no Content-Type"
    raise HTTPException(415, f"the body must be JSON (Content-Type: application/json); got {sent}")
