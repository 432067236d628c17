"""`/v1/reasoning` and the lineage reads on `/v1/memories/{id}`: lineage, challenge, dependents."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.api.deps import ReadPrincipal, ServicesDep, WritePrincipal, user_writer
from service.api.idempotent import respond
from service.domain.reasoning import draft_from_body
from service.schemas import (
    ChallengePublic,
    LineagePublic,
    MemoriesPublic,
    ReasonRequest,
    TraceCreate,
    TracePublic,
)

router = APIRouter(tags=["reasoning"])


@router.post("/v1/reasoning", status_code=201, response_model=TracePublic)
def record_trace(
    body: TraceCreate, request: Request, services: ServicesDep, principal: WritePrincipal
) -> JSONResponse:
    """Record a trace and what it produced in one transaction; 422 `reasoning.rejected` if the gate refuses."""

    def call() -> tuple[int, object]:
        trace = services.reasoning.record(
            user_writer(principal, body.actor),
            draft_from_body(body.model_dump()),
            gate=True,
            self_assessment=body.self_assessment,
        )
        return 201, asdict(trace)

    return respond(services, principal, request, body, call)


@router.get("/v1/reasoning/{trace_id}", response_model=TracePublic)
def read_trace(trace_id: str, services: ServicesDep, principal: ReadPrincipal) -> dict[str, object]:
    """Return one trace with its steps in order."""
    return asdict(services.reasoning.get(principal.namespace, trace_id))


@router.get("/v1/memories/{memory_id}/lineage", response_model=LineagePublic)
def read_lineage(
    memory_id: str, services: ServicesDep, principal: ReadPrincipal
) -> dict[str, object]:
    """Return the memory's versions and every trace that produced any of them (origin shown)."""
    return asdict(services.reasoning.lineage(principal.namespace, memory_id))


@router.post("/v1/memories/{memory_id}/challenge", response_model=ChallengePublic)
def challenge_memory(
    memory_id: str,
    body: ReasonRequest,
    request: Request,
    services: ServicesDep,
    principal: WritePrincipal,
) -> JSONResponse:
    """Return lineage plus the steps to revisit; a decision becomes `challenged`."""

    def call() -> tuple[int, object]:
        return 200, asdict(
            services.reasoning.challenge(user_writer(principal, body.actor), memory_id, body.reason)
        )

    return respond(services, principal, request, body, call)


@router.get("/v1/memories/{memory_id}/dependents", response_model=MemoriesPublic)
def read_dependents(
    memory_id: str, services: ServicesDep, principal: ReadPrincipal
) -> dict[str, object]:
    """Return the decisions resting on reasoning that cites this memory (any version)."""
    items = services.reasoning.dependents(principal.namespace, memory_id)
    return {"items": [asdict(m) for m in items], "count": len(items)}
