"""`/v1/memories`: create, read as of any time, version, invalidate, retract, history."""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from starlette.convertors import StringConvertor, register_url_convertor

from service.api.auth_gate import ScopedRoute
from service.api.batch_route import BatchRoute
from service.api.deps import ReadPrincipal, ServicesDep, WritePrincipal, user_writer
from service.api.errors import error_responses
from service.api.idempotent import IDEMPOTENCY_KEY, respond
from service.api.links import memory_links
from service.domain.memories.batch import create_many
from service.domain.memories.batch_checks import BatchItem
from service.domain.models import NewMemory
from service.domain.text import INT64_MAX
from service.errors import (
    ConflictError,
    EmbeddingError,
    InvalidInputError,
    MemoryNotFound,
    PositionClash,
    PositionTaken,
    StateConflict,
    TooLargeError,
    VersionConflict,
)
from service.schemas import (
    InvalidateRequest,
    MemoriesPublic,
    MemoryBatchCreate,
    MemoryBatchCreated,
    MemoryCreate,
    MemoryCreated,
    MemoryPublic,
    MemoryUpdate,
    ReasonRequest,
    UtcDatetime,
)

router = APIRouter(prefix="/v1/memories", tags=["memories"], route_class=ScopedRoute)


#: `If-Match` as a version: digits (at most 19, as 2**63 - 1 has), bare or quoted, or a weak
#: tag (RFC 9110: `W/` then a quoted tag; `W/1` is not one).
IF_MATCH = re.compile(r'W/"([0-9]{1,19})"|"([0-9]{1,19})"|([0-9]{1,19})')

#: `If-Match` as `/openapi.json` declares it: required. The handler takes it as optional (hidden
#: from the schema) so that a missing one is the service's own 422, not FastAPI's list of issues.
IF_MATCH_HEADER: dict[str, Any] = {
    "parameters": [
        {
            "name": "If-Match",
            "in": "header",
            "required": True,
            "description": (
                'The version you read: `3`, `"3"` or `W/"3"`. Missing or not a version number: '
                "422 `input.invalid`; no longer the current version: 409 "
                "`memory.version_conflict`."
            ),
            "schema": {"type": "string"},
        }
    ]
}


class MemoryIdConvertor(StringConvertor):
    """A memory id as the last segment of `/v1/memories/...`: any segment but `batch`.

    `/v1/memories/batch` is the batch resource (POST): a GET or PATCH of it is a 405 naming
    POST, not a lookup of a memory whose id is `batch` (404 `memory.not_found`). The OpenAPI
    path stays `/v1/memories/{memory_id}`. (No memory has that id: ids are UUIDs.)
    """

    regex = "(?!batch$)[^/]+"


register_url_convertor("memory_id", MemoryIdConvertor())

#: A write that embeds new content: bad input, size limits, the model.
_CREATE_ERRORS = (InvalidInputError, TooLargeError, EmbeddingError)
_CREATED_AGAIN: dict[int | str, dict[str, Any]] = {
    200: {
        "model": MemoryCreated,
        "description": "An equal memory existed.",
        **memory_links("/memory_id"),
    },
    201: memory_links("/memory_id"),
}


@router.post(
    "",
    status_code=201,
    response_model=MemoryCreated,
    openapi_extra=IDEMPOTENCY_KEY,
    responses={
        **_CREATED_AGAIN,
        **error_responses(*_CREATE_ERRORS, PositionTaken, body=True, idempotent=True),
    },
)
def create_memory(
    body: MemoryCreate, request: Request, services: ServicesDep, principal: WritePrincipal
) -> JSONResponse:
    """Create a fact, decision, procedure or observation (200 with `created: false` on a repeat).

    A position is one turn's place in its episode: when a current memory holds the same
    `episode` and `position` with other content, the write is a 409 `memory.position_taken`
    naming it (`memory_id`); change that turn with PATCH, or retract it to free the place.
    """

    def call() -> tuple[int, object]:
        memory, created = services.memories.create(
            user_writer(principal, body.actor), NewMemory(**body.model_dump(exclude={"actor"}))
        )
        return (201 if created else 200), {**asdict(memory), "created": created}

    return respond(services, principal, request, body, call)


def create_memories(
    body: MemoryBatchCreate, request: Request, services: ServicesDep, principal: WritePrincipal
) -> JSONResponse:
    """Create many memories in one transaction, all or nothing (201; 200 when none was new).

    Every item is validated first, and one refusal names every invalid item: 422 with `index`
    (the first) and `errors` (`{index, code, detail}` per problem, schema issues and domain
    rules together; 413 when every problem is a size limit), and nothing is written; so is an
    item refused as it is written (a keyed fact whose `valid_to` runs into the next value of
    its key). A position is one turn's place in its episode: two items with the same
    `episode` and `position` and different content are a 422 `input.position_clash`; an item
    whose place a current stored memory holds with other content is a 409
    `memory.position_taken` naming it (`memory_id`); the same content there is a repeat. The
    items are embedded in one model call and written in order in one transaction, each as
    `POST /v1/memories` would: `created: false` for an equal current memory (stored before or
    earlier in the batch), keyed facts applied in order. More than RATIONALE_MAX_BATCH_ITEMS
    items (default 1000) is a 413. `Idempotency-Key` replays the first answer.
    """

    def call() -> tuple[int, object]:
        items = [
            BatchItem(
                writer=user_writer(principal, item.actor),
                memory=NewMemory(**item.model_dump(exclude={"actor"})),
            )
            for item in body.items
        ]
        outcomes = create_many(services.memories, items, services.settings.max_batch_items)
        answer = [
            {"index": o.index, "created": o.created, "memory": asdict(o.memory)} for o in outcomes
        ]
        status = 201 if any(o.created for o in outcomes) else 200
        return status, {"items": answer, "count": len(answer)}

    return respond(services, principal, request, body, call)


router.add_api_route(
    "/batch",
    create_memories,
    methods=["POST"],
    status_code=201,
    response_model=MemoryBatchCreated,
    openapi_extra=IDEMPOTENCY_KEY,
    responses={
        200: {
            "model": MemoryBatchCreated,
            "description": "Every item existed already.",
            **memory_links("/items/0/memory/memory_id"),
        },
        201: memory_links("/items/0/memory/memory_id"),
        **error_responses(
            *_CREATE_ERRORS, PositionClash, PositionTaken, body=True, idempotent=True
        ),
    },
    route_class_override=BatchRoute,
)


#: The 200 of a memory read or write: its version as an entity tag, for `If-Match`.
ETAG_HEADER: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The memory version.",
        "headers": {
            "ETag": {
                "description": 'The version as an entity tag (`"3"`): send it back as '
                "`If-Match` to update this version.",
                "schema": {"type": "string"},
            }
        },
    }
}


def tag_version(response: Response, memory: dict[str, object]) -> dict[str, object]:
    """Set `ETag: "<version>"` on a memory's answer (RFC 9110 §8.8.3) and return the memory."""
    response.headers["ETag"] = f'"{memory["version"]}"'
    return memory


@router.get(
    "/{memory_id:memory_id}",
    response_model=MemoryPublic,
    responses={**ETAG_HEADER, **error_responses(MemoryNotFound)},
)
def read_memory(
    memory_id: str,
    response: Response,
    services: ServicesDep,
    principal: ReadPrincipal,
    as_of: Annotated[
        UtcDatetime | None, Query(description="Valid time (ISO 8601 with offset).")
    ] = None,
    known_at: Annotated[
        UtcDatetime | None, Query(description="System time (ISO 8601 with offset).")
    ] = None,
) -> dict[str, object]:
    """Return the current version, or the one believed at `known_at` about `as_of`."""
    memory = asdict(services.memories.get(principal.namespace, memory_id, as_of, known_at))
    return tag_version(response, memory)


@router.patch(
    "/{memory_id:memory_id}",
    response_model=MemoryPublic,
    openapi_extra=IF_MATCH_HEADER,
    responses={
        **ETAG_HEADER,
        **error_responses(
            *_CREATE_ERRORS, MemoryNotFound, VersionConflict, ConflictError, body=True
        ),
    },
)
def update_memory(
    memory_id: str,
    body: MemoryUpdate,
    request: Request,
    response: Response,
    services: ServicesDep,
    principal: WritePrincipal,
    if_match: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> dict[str, object]:
    """Write a new version; one `If-Match: <version>` is required (409 when stale)."""
    if if_match is None:
        raise InvalidInputError("If-Match: <version> is required")
    sent = len(request.headers.getlist("if-match"))
    if sent > 1:
        # Two headers are one list (RFC 9110 §5.3), as "3, 4" is: a write names one version.
        raise InvalidInputError(f"If-Match must name the one version you read; got {sent} headers")
    updated = services.memories.update(
        user_writer(principal, body.actor),
        memory_id,
        expected_version(if_match),
        body.model_dump(exclude={"actor"}, exclude_unset=True),
    )
    return tag_version(response, asdict(updated))


def expected_version(if_match: str) -> int:
    """Return the version an `If-Match` header names: `3`, `"3"` or `W/"3"`, digits only.

    Python's `int` would also take `+3`, `3_0` or full-width digits; a version is written
    back exactly as it was read, so anything but ASCII digits is a mistake (422 `input.invalid`).

    Raises:
        InvalidInputError: not a version number from 1 to 2**63 - 1.
    """
    match = IF_MATCH.fullmatch(if_match.strip())
    expected = int(next(g for g in match.groups() if g is not None)) if match else 0
    if not 1 <= expected <= INT64_MAX:  # versions count from 1: 0 was never read
        raise InvalidInputError("If-Match must be the version number you read")
    return expected


@router.post(
    "/{memory_id}/invalidate",
    response_model=MemoryPublic,
    openapi_extra=IDEMPOTENCY_KEY,
    responses=error_responses(
        InvalidInputError,
        MemoryNotFound,
        VersionConflict,
        StateConflict,
        body=True,
        idempotent=True,
    ),
)
def invalidate_memory(
    memory_id: str,
    body: InvalidateRequest,
    request: Request,
    services: ServicesDep,
    principal: WritePrincipal,
) -> JSONResponse:
    """Close valid time: it stopped being true at `valid_to` (default now).

    A memory already invalidated (its valid time has ended) is a 409 `conflict` saying when it
    ended; nothing is written.
    """

    def call() -> tuple[int, object]:
        return 200, asdict(
            services.memories.invalidate(
                user_writer(principal, body.actor), memory_id, body.valid_to, body.reason
            )
        )

    return respond(services, principal, request, body, call)


@router.post(
    "/{memory_id}/retract",
    response_model=MemoryPublic,
    openapi_extra=IDEMPOTENCY_KEY,
    responses=error_responses(
        InvalidInputError, MemoryNotFound, VersionConflict, body=True, idempotent=True
    ),
)
def retract_memory(
    memory_id: str,
    body: ReasonRequest,
    request: Request,
    services: ServicesDep,
    principal: WritePrincipal,
) -> JSONResponse:
    """Close system time with no successor; history keeps it."""

    def call() -> tuple[int, object]:
        return 200, asdict(
            services.memories.retract(user_writer(principal, body.actor), memory_id, body.reason)
        )

    return respond(services, principal, request, body, call)


@router.get(
    "/{memory_id}/history", response_model=MemoriesPublic, responses=error_responses(MemoryNotFound)
)
def read_history(
    memory_id: str, services: ServicesDep, principal: ReadPrincipal
) -> dict[str, object]:
    """Return every version with its four times and both provenances, oldest first."""
    items = services.memories.history(principal.namespace, memory_id)
    return {"items": [asdict(m) for m in items], "count": len(items)}
