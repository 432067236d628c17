"""`/v1/precedents`: past decisions resembling a situation, with reasoning and outcome record."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.auth_gate import ScopedRoute
from service.api.deps import ReadPrincipal, ServicesDep
from service.api.errors import error_responses
from service.domain.models import as_plain
from service.domain.precedents import PrecedentRequest
from service.errors import EmbeddingError, InvalidInputError, TooLargeError
from service.schemas.outcomes import PrecedentsPublic, PrecedentsRequest

router = APIRouter(prefix="/v1", tags=["precedents"], route_class=ScopedRoute)


@router.post(
    "/precedents",
    response_model=PrecedentsPublic,
    responses=error_responses(InvalidInputError, TooLargeError, EmbeddingError, body=True),
)
def find_precedents(
    body: PrecedentsRequest, services: ServicesDep, principal: ReadPrincipal
) -> dict[str, object]:
    """Return similar past decisions: reasoning in brief, outcome record, status, confidence, why.

    Recall's visibility: maintenance-authored traces never stand for a precedent; the user's
    decisions they touched do.
    """
    result = services.precedents.find(
        principal.namespace,
        PrecedentRequest(
            situation=body.situation,
            limit=body.limit,
            kinds=body.kinds,
            as_of=body.as_of,
            known_at=body.known_at,
        ),
    )
    return {"items": [as_plain(p) for p in result.items], "count": result.count}
