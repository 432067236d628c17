"""The lineage reads on `/v1/memories/{id}`: lineage, challenge, dependents."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from service.api.auth_gate import ScopedRoute
from service.api.deps import ReadPrincipal, ServicesDep, WritePrincipal, user_writer
from service.api.errors import error_responses
from service.api.idempotent import IDEMPOTENCY_KEY, respond
from service.domain.models import as_plain
from service.errors import ConflictError, InvalidInputError, MemoryNotFound, VersionConflict
from service.schemas import MemoriesPublic, ReasonRequest, UtcDatetime
from service.schemas.outcomes import ChallengeWithOutcomes, LineageWithOutcomes

router = APIRouter(prefix="/v1/memories", tags=["lineage"], route_class=ScopedRoute)


@router.get(
    "/{memory_id}/lineage",
    response_model=LineageWithOutcomes,
    responses=error_responses(MemoryNotFound),
)
def read_lineage(
    memory_id: str,
    services: ServicesDep,
    principal: ReadPrincipal,
    as_of: Annotated[
        UtcDatetime | None,
        Query(
            description=(
                "Valid time: `memory` is the version valid then (as `GET /v1/memories/{id}"
                "?as_of=`; 404 when none was), and only outcomes observed by then count."
            )
        ),
    ] = None,
    known_at: Annotated[
        UtcDatetime | None,
        Query(
            description=(
                "System time: only the versions, traces and outcomes recorded by then; with "
                "`as_of`, `memory` is the version believed then."
            )
        ),
    ] = None,
) -> dict[str, object]:
    """Return the versions, every trace that produced any (origin shown), a decision's outcomes.

    `as_of` / `known_at` read it as the graph stood: the version valid at `as_of` as believed
    at `known_at`, what was recorded by `known_at`, the outcomes observed by `as_of`.
    """
    lineage: dict[str, object] = as_plain(
        services.reasoning.lineage(principal.namespace, memory_id, as_of, known_at)
    )
    return lineage


@router.post(
    "/{memory_id}/challenge",
    response_model=ChallengeWithOutcomes,
    openapi_extra=IDEMPOTENCY_KEY,
    responses=error_responses(
        InvalidInputError,
        MemoryNotFound,
        ConflictError,
        VersionConflict,
        body=True,
        idempotent=True,
    ),
)
def challenge_memory(
    memory_id: str,
    body: ReasonRequest,
    request: Request,
    services: ServicesDep,
    principal: WritePrincipal,
) -> JSONResponse:
    """Return lineage plus the steps to revisit and the outcomes since; a decision becomes `challenged`."""

    def call() -> tuple[int, object]:
        return 200, as_plain(
            services.reasoning.challenge(user_writer(principal, body.actor), memory_id, body.reason)
        )

    return respond(services, principal, request, body, call)


@router.get(
    "/{memory_id}/dependents",
    response_model=MemoriesPublic,
    responses=error_responses(MemoryNotFound),
)
def read_dependents(
    memory_id: str, services: ServicesDep, principal: ReadPrincipal
) -> dict[str, object]:
    """Return the decisions resting on reasoning that cites this memory (any version)."""
    items = services.reasoning.dependents(principal.namespace, memory_id)
    return {"items": [as_plain(m) for m in items], "count": len(items)}
