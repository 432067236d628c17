"""The one table that maps domain errors to HTTP answers `{"detail", "code"}`."""

from __future__ import annotations

import json
import logging

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from service import errors

log = logging.getLogger(__name__)

#: Domain error class -> HTTP status. Lookup walks the MRO, so subclasses inherit.
STATUS: dict[type[errors.RationaleError], int] = {
    errors.NotFoundError: 404,
    errors.ConflictError: 409,
    errors.InvalidInputError: 422,
    errors.TooLargeError: 413,
    errors.AuthError: 401,
    errors.ForbiddenError: 403,
    errors.GraphUnavailableError: 503,
    errors.EmbeddingError: 503,
    errors.RationaleError: 500,
}


def status_for(exc: errors.RationaleError) -> int:
    """Return the HTTP status of a domain error (its nearest class in `STATUS`)."""
    for cls in type(exc).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


async def handle_domain_error(request: Request, exc: Exception) -> JSONResponse:
    """Answer a domain error with `{"detail", "code", ...extra}`."""
    assert isinstance(exc, errors.RationaleError)
    status = status_for(exc)
    if status >= 500:
        log.error("%s %s failed: %s", request.method, request.url.path, exc.message)
    body = {"detail": exc.message, "code": exc.code, **jsonable_encoder(exc.extra)}
    headers = {"Retry-After": "5"} if status == 503 else None
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    return JSONResponse(body, status_code=status, headers=headers)


class AsciiJSONResponse(JSONResponse):
    """JSON rendered with `ensure_ascii`, so echoed invalid input (lone surrogates) stays encodable."""

    def render(self, content: object) -> bytes:
        """Serialise `content` as ASCII-only JSON."""
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


async def handle_validation_error(request: Request, exc: Exception) -> JSONResponse:
    """Keep FastAPI's 422 body for request validation and add the stable code."""
    assert isinstance(exc, RequestValidationError)
    return AsciiJSONResponse(
        {"detail": jsonable_encoder(exc.errors()), "code": "input.invalid"}, status_code=422
    )


HTTP_CODES = {
    400: "input.invalid",
    401: "auth.invalid_key",
    403: "auth.forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "input.too_large",
    415: "input.unsupported_media_type",
}


async def handle_http_error(request: Request, exc: Exception) -> JSONResponse:
    """Give framework errors the same body; an unparseable body (bad UTF-8) is a 422 like bad JSON."""
    assert isinstance(exc, StarletteHTTPException)
    status = 422 if exc.status_code == 400 else exc.status_code
    code = HTTP_CODES.get(exc.status_code, f"http.{exc.status_code}")
    return JSONResponse(
        {"detail": exc.detail, "code": code}, status_code=status, headers=exc.headers
    )


async def handle_unexpected(request: Request, exc: Exception) -> JSONResponse:
    """Log the traceback of a bug and answer a generic 500."""
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return JSONResponse({"detail": "internal error", "code": "internal"}, status_code=500)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers on `app`."""
    app.add_exception_handler(errors.RationaleError, handle_domain_error)
    app.add_exception_handler(RequestValidationError, handle_validation_error)
    app.add_exception_handler(StarletteHTTPException, handle_http_error)
    app.add_exception_handler(Exception, handle_unexpected)
