"""`/v1/diagnostics`: what the visibility policy hides and what a namespace holds."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from service.api.auth_gate import ScopedRoute
from service.api.deps import ReadPrincipal, ServicesDep
from service.api.errors import error_responses

router = APIRouter(prefix="/v1", tags=["diagnostics"], route_class=ScopedRoute)


class UnrecognizedOrigins(BaseModel):
    """Current memories whose `created_by_origin` is missing or unknown to the policy (hidden)."""

    count: int = Field(description="How many current memory versions.", examples=[1])
    sample: list[str] = Field(
        description="Some of their memory_ids, newest first.", examples=[["3f0c..."]]
    )


class DiagnosticsPublic(BaseModel):
    """The answer of `GET /v1/diagnostics` for the caller's namespace."""

    unrecognized_origins: UnrecognizedOrigins
    counts: dict[str, dict[str, int]] = Field(
        description="Current memory versions per kind and origin; missing values as '(missing)'.",
        examples=[{"decision": {"user": 3, "maintenance": 1}, "reasoning": {"user": 2}}],
    )


@router.get("/diagnostics", response_model=DiagnosticsPublic, responses=error_responses())
def read_diagnostics(services: ServicesDep, principal: ReadPrincipal) -> DiagnosticsPublic:
    """Return unrecognized origins (count and sample ids) and counts per kind and origin."""
    report = services.diagnostics.report(principal.namespace)
    return DiagnosticsPublic(
        unrecognized_origins=UnrecognizedOrigins(
            count=report.unrecognized_count, sample=list(report.unrecognized_sample)
        ),
        counts=report.counts,
    )
