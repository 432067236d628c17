"""`/v1/recall` and `/v1/search`: origin-aware retrieval over the hybrid index (DESIGN §7)."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.deps import ReadPrincipal, ServicesDep
from service.schemas import RecallRequest, RetrievalPublic, SearchRequest

router = APIRouter(prefix="/v1", tags=["retrieval"])


@router.post("/recall", response_model=RetrievalPublic)
def recall_memories(
    body: RecallRequest, services: ServicesDep, principal: ReadPrincipal
) -> dict[str, object]:
    """Return current, valid, recall-visible memories and whole traces for an agent's context.

    Each item carries `score`, `origin`, `has_reasoning` and `lineage` (the lineage path when
    reasoning produced it). Maintenance-written memories and unrecognized origins never come back.
    """
    return services.retrieval.recall(principal.namespace, body.model_dump())


@router.post("/search", response_model=RetrievalPublic)
def search_memories(
    body: SearchRequest, services: ServicesDep, principal: ReadPrincipal
) -> dict[str, object]:
    """Return search-visible memories and traces, `origin` on each; optionally closed versions too."""
    return services.retrieval.search(principal.namespace, body.model_dump())
