"""Makes a POST safe to retry with `Idempotency-Key`: the first answer is stored and replayed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from service.api.auth import Principal
from service.container import Services
from service.domain.idempotency import request_hash
from service.errors import InvalidInputError


def iso_utc(value: datetime) -> str:
    """Render a time as ISO 8601 in UTC with `Z`, as the response models do."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def respond(
    services: Services,
    principal: Principal,
    request: Request,
    body: BaseModel | None,
    call: Callable[[], tuple[int, Any]],
) -> JSONResponse:
    """Run `call` once per `Idempotency-Key`, or replay the stored answer.

    Args:
        services: for the idempotency store.
        principal: the caller (keys are per namespace).
        request: to read the header, method and path.
        body: the parsed request body, part of the request's identity.
        call: does the work; returns `(status, JSON-able body)`.

    Returns:
        The answer; replays carry `Idempotent-Replay: true`.
    """
    key = request.headers.get("Idempotency-Key")
    payload = body.model_dump_json().encode() if body is not None else b""
    if key:
        if not (1 <= len(key) <= 200):
            raise InvalidInputError("Idempotency-Key must be 1 to 200 characters")
        digest = request_hash(request.method, request.url.path, payload)
        stored = services.idempotency.lookup(principal.namespace, key, digest)
        if stored is not None:
            return JSONResponse(
                stored.body, status_code=stored.status, headers={"Idempotent-Replay": "true"}
            )
    status, answer = call()
    encoded = jsonable_encoder(answer, custom_encoder={datetime: iso_utc})
    if key:
        services.idempotency.remember(principal.namespace, key, digest, status, encoded)
    return JSONResponse(encoded, status_code=status)
