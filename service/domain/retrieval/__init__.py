"""Origin-aware recall and search over the hybrid (vector + fulltext) Neo4j index (DESIGN §7)."""

from service.domain.retrieval.candidates import CandidateFinder, lucene_query
from service.domain.retrieval.fusion import fuse, quality_factor, rrf
from service.domain.retrieval.models import (
    RetrievalConfig,
    RetrievalItem,
    RetrievalRequest,
    RetrievalResult,
)
from service.domain.retrieval.recall import RetrievalService

__all__ = [
    "CandidateFinder",
    "RetrievalConfig",
    "RetrievalItem",
    "RetrievalRequest",
    "RetrievalResult",
    "RetrievalService",
    "fuse",
    "lucene_query",
    "quality_factor",
    "rrf",
]
