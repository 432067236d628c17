"""`/v1/recall` and `/v1/search`: origin-aware retrieval over the hybrid index (DESIGN §7)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from service.api.auth_gate import ScopedRoute
from service.api.deps import ReadPrincipal, ServicesDep
from service.api.errors import error_responses
from service.domain.retrieval import RetrievalRequest, RetrievalResult
from service.errors import EmbeddingError, InvalidInputError, TooLargeError
from service.schemas import RecallRequest, RetrievalPublic, SearchRequest

router = APIRouter(prefix="/v1", tags=["retrieval"], route_class=ScopedRoute)


def _public(result: RetrievalResult) -> Response:
    """Return the answer as `RetrievalPublic` JSON, validated and serialised once.

    A plain `def` operation's returned model is validated again on FastAPI's thread pool
    before it is serialised (a second pass and a hand-off between threads on the hottest
    call); a `Response` is sent as it is, and `response_model` still documents it.
    """
    public = RetrievalPublic(items=[item.as_dict() for item in result.items], count=result.count)
    return Response(public.model_dump_json(), media_type="application/json")


@router.post(
    "/recall",
    response_model=RetrievalPublic,
    responses=error_responses(InvalidInputError, TooLargeError, EmbeddingError, body=True),
)
def recall_memories(
    body: RecallRequest, services: ServicesDep, principal: ReadPrincipal
) -> Response:
    """Return current, valid, recall-visible memories and whole traces for an agent's context.

    Each item carries `score`, `origin`, `has_reasoning` and `lineage` (the lineage path when
    reasoning produced it). Maintenance-written memories and unrecognized origins never come back.
    """
    request = RetrievalRequest(
        query=body.query,
        limit=body.limit,
        kinds=body.kinds,
        as_of=body.as_of,
        known_at=body.known_at,
        explain=body.explain,
    )
    return _public(services.retrieval.recall(principal.namespace, request))


@router.post(
    "/search",
    response_model=RetrievalPublic,
    responses=error_responses(InvalidInputError, TooLargeError, EmbeddingError, body=True),
)
def search_memories(
    body: SearchRequest, services: ServicesDep, principal: ReadPrincipal
) -> Response:
    """Return search-visible memories and traces, `origin` on each; optionally closed versions too."""
    request = RetrievalRequest(
        query=body.query,
        limit=body.limit,
        kinds=body.kinds,
        as_of=body.as_of,
        known_at=body.known_at,
        origins=body.origins,
        include_superseded=body.include_superseded,
        explain=body.explain,
    )
    return _public(services.retrieval.search(principal.namespace, request))
