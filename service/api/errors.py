"""The one table that maps domain errors to HTTP answers `{"detail", "code"}`."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import iter_route_contexts
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from service import errors
from service.api.hosts import HOST_NOT_ALLOWED
from service.domain.idempotency import IdempotencyInFlight
from service.errors import MAX_DETAIL_CHARS as MAX_DETAIL_CHARS
from service.errors import bounded_detail as bounded_detail
from service.schemas import ErrorBody, ItemError, QualityOut

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
    return _status_of_class(type(exc))


#: Seconds a 503 asks the client to wait: the breaker probes Neo4j every 0.5 s and closes as
#: soon as it answers (`graph.availability`), so an outage's refusals say 1, as `/readyz` does;
#: a timeout or a failed model says 5.
RETRY_AFTER_UNAVAILABLE_S = 1
RETRY_AFTER_S = 5


def retry_after(exc: errors.RationaleError) -> str:
    """Return the `Retry-After` seconds of a 503 (`RETRY_AFTER_UNAVAILABLE_S` or `RETRY_AFTER_S`)."""
    if isinstance(exc, errors.GraphUnavailableError) and not isinstance(
        exc, errors.GraphTimeoutError
    ):
        return str(RETRY_AFTER_UNAVAILABLE_S)
    return str(RETRY_AFTER_S)


async def handle_domain_error(request: Request, exc: Exception) -> JSONResponse:
    """Answer a domain error with `{"detail", "code", ...extra}` (`detail` bounded)."""
    assert isinstance(exc, errors.RationaleError)
    status = status_for(exc)
    if isinstance(exc, errors.GraphUnavailableError):
        # Neo4j down: the breaker logs the outage once as it opens and closes
        # (`graph.availability`); a line per refused request buried it (trial 9).
        log.debug("%s %s failed: %s", request.method, request.url.path, exc.message)
    elif status >= 500:
        log.error("%s %s failed: %s", request.method, request.url.path, exc.message)
    body = {"detail": bounded_detail(exc.message), "code": exc.code, **jsonable_encoder(exc.extra)}
    headers = {"Retry-After": retry_after(exc)} if status == 503 else None
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    return JSONResponse(body, status_code=status, headers=headers)


#: How deep an echoed 422 body may nest; deeper input is replaced by `ECHO_ELIDED` (so any
#: nesting the JSON parser accepts is rendered without recursing past Python's limit).
MAX_ECHO_DEPTH = 24
ECHO_ELIDED = f"<nested deeper than {MAX_ECHO_DEPTH} levels; not echoed>"


class AsciiJSONResponse(JSONResponse):
    """JSON rendered with `ensure_ascii`, so echoed invalid input (lone surrogates) stays encodable."""

    def render(self, content: object) -> bytes:
        """Serialise `content` as ASCII-only, strict JSON (echoed NaN/Infinity become strings)."""
        return json.dumps(
            _finite(content), ensure_ascii=True, allow_nan=False, separators=(",", ":")
        ).encode("ascii")


def _finite(value: object, depth: int = 0) -> object:
    """Return `value` made safe to echo: non-finite floats and exceptions as strings, size bounded.

    A 422 echoes the offending input; `NaN` is not JSON, so strict parsers would reject the
    body, and input nested hundreds of levels deep would take the encoders past Python's
    recursion limit. Containers deeper than `MAX_ECHO_DEPTH` (counted from `value`) become
    `ECHO_ELIDED`; the recursion itself never goes deeper than that. A string longer than
    `MAX_DETAIL_CHARS` (an overlong `content` refused for its length) is cut as
    `bounded_detail` cuts a message, so the answer does not repeat a megabyte back.

    Args:
        value: JSON-like data (dicts, lists, tuples, scalars; other objects pass unchanged).
        depth: `value`'s own depth (0 at the top).
    """
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, BaseException):  # pydantic's `ctx.error` (encoded as `{}` otherwise)
        return bounded_detail(str(value))
    if isinstance(value, str):
        return bounded_detail(value)
    if isinstance(value, dict | list | tuple) and depth >= MAX_ECHO_DEPTH:
        return ECHO_ELIDED
    if isinstance(value, dict):
        return {k: _finite(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v, depth + 1) for v in value]
    return value


class BatchValidationError(RequestValidationError):
    """A batch the schema refused, plus the rule problems of the items the schema let through.

    Raised by `api.batch_route.BatchRoute` in place of FastAPI's error, so one 422 names every
    invalid item (`errors`), not only those the schema caught.

    Args:
        exc: FastAPI's validation error.
        item_errors: `batch_checks.item_errors` of the other items' problems.
    """

    def __init__(self, exc: RequestValidationError, item_errors: list[dict[str, Any]]) -> None:
        super().__init__(exc.errors(), body=exc.body, endpoint_ctx=exc.endpoint_ctx)
        self.item_errors = item_errors


def item_issue_errors(issues: Sequence[Any]) -> list[dict[str, Any]]:
    """Return the issues located in a body's `items[i]` as a batch refusal's `errors` entries.

    Each is `{index, code: "input.invalid", detail: "<field>: <msg>", loc}`, `loc` within the
    item (`["position"]`; empty for the item as a whole).
    """
    found = []
    for issue in issues:
        loc = tuple(issue.get("loc", ())) if isinstance(issue, dict) else ()
        if len(loc) >= 3 and loc[:2] == ("body", "items") and type(loc[2]) is int:
            within = [part for part in loc[3:] if isinstance(part, str | int)]
            field = ".".join(str(part) for part in within)
            msg = bounded_detail(str(issue.get("msg", "invalid")))
            found.append(
                {
                    "index": loc[2],
                    "code": "input.invalid",
                    "detail": f"{field}: {msg}" if field else msg,
                    "loc": within,
                }
            )
    return found


async def handle_validation_error(request: Request, exc: Exception) -> JSONResponse:
    """Keep FastAPI's 422 body for request validation and add the stable code.

    The echoed `input` is bounded (`_finite`) before it is encoded, whatever its nesting. An
    invalid item of a batch (`items[i]`) is also named by `index`, the lowest such `i`, as a
    batch's domain errors name it, and every problem of every item is listed in `errors`
    (`{index, code, detail}`, by index): the schema's, and, on the batch route, those the
    domain finds in the other items (`BatchValidationError`).
    """
    assert isinstance(exc, RequestValidationError)
    issues = exc.errors()
    body: dict[str, Any] = {"detail": jsonable_encoder(_finite(issues)), "code": "input.invalid"}
    errors_list = item_issue_errors(issues)
    if isinstance(exc, BatchValidationError):
        errors_list += exc.item_errors
    if errors_list:
        errors_list.sort(key=lambda entry: int(entry["index"]))
        body["index"] = errors_list[0]["index"]
        body["errors"] = jsonable_encoder(_finite(errors_list))
    return AsciiJSONResponse(body, status_code=422)


#: Neo4j Browser (served by Neo4j on another origin) fetches `/browser/*` with custom headers:
#: every answer there carries these, refusals included (`routes.guide.BrowserRoute`; an
#: unknown name's 404 in `handle_http_error`), or the Browser shows only a network error.
BROWSER_CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, OPTIONS",
    "Access-Control-Allow-Headers": "*",
}


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
    detail = unparsed_body_reason(exc.__cause__) if exc.status_code == 400 else None
    headers = exc.headers
    if status == 405:
        headers = {**(headers or {}), "Allow": ", ".join(allowed_methods(request))}
    path = request.url.path
    if status == 404 and (path == "/browser" or path.startswith("/browser/")):
        headers = {**BROWSER_CORS, **(headers or {})}
    return JSONResponse(
        {"detail": detail or exc.detail, "code": code}, status_code=status, headers=headers
    )


def unparsed_body_reason(cause: BaseException | None) -> str | None:
    """Say why FastAPI could not read a body it calls only "an error parsing the body", or None."""
    if isinstance(cause, UnicodeDecodeError):
        return (
            f"the body is not UTF-8 (byte {cause.start}): send JSON encoded as UTF-8 "
            "(RFC 8259), whatever the Content-Type's charset says"
        )
    if isinstance(cause, RecursionError):
        return "the body nests arrays or objects too deeply to read"
    return None


def allowed_methods(request: Request) -> list[str]:
    """Return the methods of the resource the request's path names (GET and PATCH of a memory).

    Starlette's own `Allow` names only the first route matching the path; this lists the
    methods of every route of the path's resource, hidden ones too (`HEAD` of the probes).
    When templates of several resources match, the most literal one names it: a path matches
    `/v1/memories/batch` (POST) and `/v1/memories/{memory_id}` (GET, PATCH), but is the batch
    (so `POST`, as `/openapi.json` has it). A resource answering GET answers HEAD too. The routes are taken as FastAPI resolves them
    (`iter_route_contexts`, which `/openapi.json` reads too): an included router is one route
    of the app, holding its routes, which `app.router.routes` alone would not show.
    """
    by_params: dict[int, set[str]] = {}
    for route in iter_route_contexts(request.app.router.routes):
        if route.methods and route.matches(request.scope)[0] is not Match.NONE:
            params = len(getattr(route, "param_convertors", None) or ())
            by_params.setdefault(params, set()).update(route.methods)
    if not by_params:
        return []
    methods = by_params[min(by_params)]
    # Every GET resource answers HEAD too (`api.head.HeadAsGetMiddleware`).
    return sorted(methods | {"HEAD"} if "GET" in methods else methods)


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


# -- the declared contract: every status an operation can return, with its body ---------------


class ValidationIssue(BaseModel):
    """One problem pydantic found in the request (FastAPI's item, kept as is)."""

    loc: list[str | int] = Field(description='Where: e.g. `["body", "items", 3, "content"]`.')
    msg: str
    type: str
    input: Any = None
    ctx: dict[str, Any] | None = None


class RequestInvalidBody(BaseModel):
    """A 422 for a request the schema refuses: FastAPI's list of issues plus the stable code."""

    detail: list[ValidationIssue]
    code: str = Field(examples=["input.invalid"])
    index: int | None = Field(
        default=None,
        description="For a batch: the lowest `i` of the issues in `items[i]` (absent otherwise).",
    )
    errors: list[ItemError] | None = Field(
        default=None,
        description="For a batch: every problem of every invalid item, by index (the schema's "
        "issues and the rules the other items break); absent otherwise.",
    )


class RejectedBody(ErrorBody):
    """A 422 `reasoning.rejected`: the gate's assessment says why."""

    quality: QualityOut


class MissingBody(ErrorBody):
    """A 422 `reasoning.invalid_reference`: the memory ids that do not exist or were retracted."""

    missing: list[str]


#: Error classes whose answer carries more than `{detail, code}`.
BODY_MODELS: dict[type[errors.RationaleError], type[BaseModel]] = {
    errors.ReasoningRejected: RejectedBody,
    errors.MissingReference: MissingBody,
}


#: Headers an error status always carries (`handle_domain_error`), as OpenAPI declares them.
RESPONSE_HEADERS: dict[int, dict[str, Any]] = {
    401: {
        "WWW-Authenticate": {
            "description": "`Bearer`: the scheme the key is sent with.",
            "schema": {"type": "string"},
        }
    },
    503: {
        "Retry-After": {
            "description": "Seconds to wait before trying again (the database is unavailable "
            "or timed out).",
            "schema": {"type": "integer", "minimum": 1},
        }
    },
}


def error_responses(
    *raised: type[errors.RationaleError],
    auth: bool = True,
    body: bool = False,
    validation: bool = True,
    graph: bool = True,
    idempotent: bool = False,
    host: bool = True,
) -> dict[int | str, dict[str, Any]]:
    """Build a route's `responses=`: every error status it can answer, with its body model.

    Args:
        *raised: the domain error classes the operation raises on purpose.
        auth: the route takes an API key (401 `auth.invalid_key`, 403 `auth.forbidden`).
        body: the route reads a JSON request body (415 `input.unsupported_media_type` from
            `api.media.require_json_body`). Every operation lists 413 `input.too_large`: the
            body limit (`api.limits`) refuses an oversized body on any request, a GET's too.
        validation: the request has a body, path or query parameters FastAPI validates (422).
        graph: the route reads Neo4j (503 `graph.unavailable` or `graph.timeout`, with
            `Retry-After`).
        idempotent: the route writes and honours `Idempotency-Key` (`api.idempotent.respond`):
            409 `idempotency.in_flight` while the same key is still being answered, and 409
            `conflict` when its write collided with one stored concurrently (twice: the first
            collision is retried).
        host: the route is behind the Host check (`api.hosts`): 421 `input.host_not_allowed`.

    Every operation also lists 500 `internal` (an unexpected fault, logged with its traceback;
    the answer says no more).

    Returns:
        `{status: {"model": ..., "description": ...}}` listing the stable codes per status.
    """
    classes: list[type[errors.RationaleError]] = list(raised)
    if auth:
        classes += [errors.AuthError, errors.ForbiddenError]
    classes.append(errors.TooLargeError)  # the body limit answers any request (`api.limits`)
    if graph:
        classes += [errors.GraphUnavailableError, errors.GraphTimeoutError]
    if idempotent:
        classes += [IdempotencyInFlight, errors.ConflictError]
    by_status: dict[int, list[type[errors.RationaleError]]] = {}
    for cls in classes:
        by_status.setdefault(_status_of_class(cls), []).append(cls)
    if validation:
        by_status.setdefault(422, [])
    answers: dict[int | str, dict[str, Any]] = {}
    for status, group in sorted(by_status.items()):
        codes = sorted(
            {cls.code for cls in group} | ({"input.invalid"} if status == 422 else set())
        )
        models: list[type[BaseModel]] = []
        for model in [BODY_MODELS.get(cls, ErrorBody) for cls in group] + (
            [ErrorBody, RequestInvalidBody] if status == 422 else []
        ):
            if model not in models:
                models.append(model)
        if not models:
            models.append(ErrorBody)
        answers[status] = {
            "model": _union(models),
            "description": "Codes: " + ", ".join(f"`{c}`" for c in codes) + ".",
        }
    if body:
        answers[415] = {
            "model": ErrorBody,
            "description": f"Codes: `{HTTP_CODES[415]}` (a body that is not `application/json`).",
        }
    if host:
        answers[421] = {
            "model": ErrorBody,
            "description": f"Codes: `{HOST_NOT_ALLOWED}` (a Host the service does not serve).",
        }
    answers[500] = {
        "model": ErrorBody,
        "description": "Codes: `internal` (an unexpected fault, logged with its traceback).",
    }
    for status, header in RESPONSE_HEADERS.items():
        if status in answers:
            answers[status]["headers"] = header
    return dict(sorted(answers.items(), key=lambda item: int(item[0])))


def _status_of_class(cls: type[errors.RationaleError]) -> int:
    for base in cls.__mro__:
        if base in STATUS:
            return STATUS[base]
    return 500


def _union(models: list[type[BaseModel]]) -> Any:
    """Return one model, or the union of several (FastAPI renders it as `anyOf`)."""
    if len(models) == 1:
        return models[0]
    union: Any = models[0]
    for model in models[1:]:
        union = union | model
    return union
