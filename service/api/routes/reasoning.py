"""`/v1/reasoning`: record a trace, read one (the lineage reads are in `lineage.py`)."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.api.auth_gate import ScopedRoute
from service.api.deps import ReadPrincipal, ServicesDep, WritePrincipal, user_writer
from service.api.errors import error_responses
from service.api.idempotent import IDEMPOTENCY_KEY, respond
from service.api.links import trace_links
from service.domain.reasoning import draft_from_body
from service.errors import (
    ConflictError,
    EmbeddingError,
    MissingReference,
    ReasoningRejected,
    TooLargeError,
    TraceNotFound,
)
from service.schemas import TraceCreate, TraceCreated, TracePublic

router = APIRouter(tags=["reasoning"], route_class=ScopedRoute)


@router.post(
    "/v1/reasoning",
    status_code=201,
    response_model=TraceCreated,
    openapi_extra=IDEMPOTENCY_KEY,
    responses={
        201: trace_links(),
        200: {
            "description": "An equal current trace existed: nothing was written, it is returned."
        },
        **error_responses(
            ReasoningRejected,
            MissingReference,
            TooLargeError,
            EmbeddingError,
            ConflictError,
            body=True,
            idempotent=True,
        ),
    },
)
def record_trace(
    body: TraceCreate, request: Request, services: ServicesDep, principal: WritePrincipal
) -> JSONResponse:
    """Record a trace and what it produced in one transaction; 422 `reasoning.rejected` if the gate refuses.

    The same reasoning recorded again (equal task, steps, cites and product, same door) writes
    nothing: 200 with the existing trace and `created: false`.
    """

    def call() -> tuple[int, object]:
        trace, created = services.reasoning.record(
            user_writer(principal, body.actor),
            draft_from_body(body.model_dump()),
            gate=True,
            self_assessment=body.self_assessment,
        )
        return (201 if created else 200), {**asdict(trace), "created": created}

    return respond(services, principal, request, body, call)


@router.get(
    "/v1/reasoning/{trace_id}", response_model=TracePublic, responses=error_responses(TraceNotFound)
)
def read_trace(trace_id: str, services: ServicesDep, principal: ReadPrincipal) -> dict[str, object]:
    """Return one trace with its steps in order."""
    return asdict(services.reasoning.get(principal.namespace, trace_id))
