"""`/v1/memories/{decision_id}/outcomes`: record and list what happened when a decision was acted on."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from service.api.auth_gate import ScopedRoute
from service.api.deps import ReadPrincipal, ServicesDep, WritePrincipal, user_writer
from service.api.errors import error_responses
from service.api.idempotent import IDEMPOTENCY_KEY, respond
from service.domain.models import as_plain
from service.domain.outcomes import NewOutcome
from service.errors import (
    ConflictError,
    EmbeddingError,
    MemoryNotFound,
    MissingReference,
    NotADecision,
    TooLargeError,
    VersionConflict,
)
from service.schemas import UtcDatetime
from service.schemas.outcomes import OutcomeCreate, OutcomeRecorded, OutcomesPublic

router = APIRouter(prefix="/v1/memories", tags=["outcomes"], route_class=ScopedRoute)


@router.post(
    "/{decision_id}/outcomes",
    status_code=201,
    response_model=OutcomeRecorded,
    openapi_extra=IDEMPOTENCY_KEY,
    responses={
        200: {"model": OutcomeRecorded, "description": "The same outcome was recorded before."},
        **error_responses(
            MemoryNotFound,
            NotADecision,
            MissingReference,
            TooLargeError,
            EmbeddingError,
            ConflictError,
            VersionConflict,
            body=True,
            idempotent=True,
        ),
    },
)
def record_outcome(
    decision_id: str,
    body: OutcomeCreate,
    request: Request,
    services: ServicesDep,
    principal: WritePrincipal,
) -> JSONResponse:
    """Record an outcome; a failure or mixed one makes an active decision `challenged`.

    404 for an unknown decision (or another namespace's), 422 `outcome.not_a_decision` for a
    memory of another kind; 200 with `created: false` when the same outcome was recorded before.
    """

    def call() -> tuple[int, object]:
        recorded = services.outcomes.record(
            user_writer(principal, body.actor),
            decision_id,
            NewOutcome(
                result=body.result,
                content=body.content,
                observed_at=body.observed_at,
                cites=tuple(body.cites),
            ),
        )
        answer = {
            **as_plain(recorded.outcome),
            "decision": as_plain(recorded.decision),
            "challenged": recorded.challenged,
            "created": recorded.created,
        }
        return (201 if recorded.created else 200), answer

    return respond(services, principal, request, body, call)


@router.get(
    "/{decision_id}/outcomes",
    response_model=OutcomesPublic,
    responses=error_responses(MemoryNotFound),
)
def list_outcomes(
    decision_id: str,
    services: ServicesDep,
    principal: ReadPrincipal,
    as_of: Annotated[
        UtcDatetime | None, Query(description="Only outcomes observed by then (valid time).")
    ] = None,
    known_at: Annotated[
        UtcDatetime | None, Query(description="Only outcomes recorded by then (system time).")
    ] = None,
) -> dict[str, object]:
    """Return the decision's outcomes in time order (observed, then recorded)."""
    items = services.outcomes.list(principal.namespace, decision_id, as_of, known_at)
    return {"items": [as_plain(o) for o in items], "count": len(items)}
