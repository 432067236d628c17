"""Makes a POST safe to retry with `Idempotency-Key`: the first answer is stored and replayed.

Every answer, fresh or replayed, is validated against the route's `response_model` first
(`conform`), as FastAPI does for routes that return plain values: a wrong type is a 500 and an
unknown key is dropped, never sent or stored unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import ResponseValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError

from service.api.auth import Principal
from service.container import Services
from service.domain.idempotency import StoredAnswer, request_hash
from service.errors import InvalidInputError

#: The longest `Idempotency-Key` accepted, in characters (the shortest is 1).
MAX_KEY_CHARS = 200

#: The `openapi_extra` of every operation that answers through `respond`: the header it
#: reads, declared as `respond` enforces it. FastAPI does not validate it (a key of the wrong
#: length is the service's own 422 `input.invalid`, as a reused one is), so it is declared
#: here rather than as a parameter of the handlers.
IDEMPOTENCY_KEY: dict[str, Any] = {
    "parameters": [
        {
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            "description": (
                "Makes the write safe to retry: the first answer to a key is stored, and a "
                "later request with the same key, path and body gets it replayed (its status "
                "and body, with `Idempotent-Replay: true`) and writes nothing. A key is the "
                "caller's own (its namespace and the API key's name). "
                f"1 to {MAX_KEY_CHARS} characters, else 422 "
                "`input.invalid`; the same key with a different request is a 422 "
                '`input.invalid` ("Idempotency-Key was already used for a different '
                'request"); while the first request with the key is still being answered, 409 '
                "`idempotency.in_flight`."
            ),
            "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY_CHARS},
        }
    ]
}


#: The header on a replayed answer, as the OpenAPI document declares it (`declare_replays`).
REPLAY_HEADER: dict[str, Any] = {
    "description": (
        "`true` when this is the stored answer to an earlier request with the same "
        "`Idempotency-Key` (nothing was written this time); absent on a fresh answer."
    ),
    "schema": {"type": "string", "enum": ["true"]},
}


def declare_replays(app: FastAPI) -> None:
    """Make `app.openapi()` declare `Idempotent-Replay` on the operations that may replay.

    Every 2xx answer of an operation reading `Idempotency-Key` (`IDEMPOTENCY_KEY`) gets the
    header (`REPLAY_HEADER`): a replay keeps the stored answer's status, whichever it was.
    Done once on the generated document, so no route has to list its success statuses again.
    """
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()  # FastAPI caches the document: the headers are added to it once
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                names = {p.get("name") for p in operation.get("parameters", [])}
                if "Idempotency-Key" not in names:
                    continue
                for status, answer in operation.get("responses", {}).items():
                    if str(status).startswith("2"):
                        answer.setdefault("headers", {})["Idempotent-Replay"] = REPLAY_HEADER
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def conform(model: type[BaseModel], answer: Any) -> dict[str, Any]:
    """Validate an answer against a response model and return its JSON form.

    The same contract FastAPI applies to a route's return value: fields are validated (lax
    mode, as FastAPI does), keys the model does not declare are dropped, and times are rendered
    ISO 8601 (`Z` for UTC).

    Args:
        model: the route's response model.
        answer: the JSON-able answer (a dict, or a value the model validates from).

    Returns:
        The validated answer as JSON-ready data.

    Raises:
        ResponseValidationError: the answer breaks the model (a bug: answered as a 500).
    """
    try:
        validated = model.model_validate(answer)
    except ValidationError as exc:
        raise ResponseValidationError(exc.errors(include_url=False), body=answer) from exc
    return validated.model_dump(mode="json", by_alias=True)


def response_model_of(request: Request) -> type[BaseModel]:
    """Return the `response_model` declared by the route serving `request`.

    Raises:
        RuntimeError: the route declares none (a programming error: nothing to validate with).
    """
    route = request.scope.get("route")
    model = route.response_model if isinstance(route, APIRoute) else None
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise RuntimeError(f"{request.url.path}: an idempotent route needs a response_model")
    return model


def respond(
    services: Services,
    principal: Principal,
    request: Request,
    body: BaseModel | None,
    call: Callable[[], tuple[int, Any]],
) -> JSONResponse:
    """Run `call` once per `Idempotency-Key`, or replay the stored answer.

    With a key, the request first claims it (`IdempotencyService.begin`): concurrent requests
    with the same key wait for the holder's answer and replay it, or get 409
    `idempotency.in_flight`; only the holder runs `call`. A failed `call` releases the claim.

    Args:
        services: for the idempotency store.
        principal: the caller (an `Idempotency-Key` is its own: namespace and actor, the
            API key's name).
        request: to read the header, method, path and the route's response model.
        body: the parsed request body, part of the request's identity.
        call: does the work; returns `(status, JSON-able body)`.

    Returns:
        The answer, validated against the route's response model (`conform`) before it is
        stored or sent; replays carry `Idempotent-Replay: true`.

    Raises:
        InvalidInputError: the `Idempotency-Key` is not 1 to 200 characters, or was used for
            a different request.
        IdempotencyInFlight: another request with the key is still in flight (409).
        ResponseValidationError: the answer breaks the response model (500).
    """
    model = response_model_of(request)
    key = request.headers.get("Idempotency-Key")
    if key is None:
        status, answer = call()
        return JSONResponse(conform(model, answer), status_code=status)
    if not (1 <= len(key) <= MAX_KEY_CHARS):
        raise InvalidInputError(f"Idempotency-Key must be 1 to {MAX_KEY_CHARS} characters")
    payload = body.model_dump_json().encode() if body is not None else b""
    digest = request_hash(request.method, request.url.path, payload)
    # Each caller's own: two clients of one namespace may pick the same key.
    held = services.idempotency.begin(principal.namespace, f"{principal.actor}\x1f{key}", digest)
    if isinstance(held, StoredAnswer):
        return JSONResponse(
            conform(model, held.body),
            status_code=held.status,
            headers={"Idempotent-Replay": "true"},
        )
    try:
        status, answer = call()
        encoded = conform(model, answer)
    except BaseException:
        services.idempotency.release(held)
        raise
    services.idempotency.finish(held, status, encoded)
    return JSONResponse(encoded, status_code=status)
