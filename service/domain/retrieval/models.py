"""The typed values retrieval passes between its steps: config, request, candidates, answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from service.domain.memories import Memory
from service.domain.reasoning import Trace
from service.graph.repository import Row
from service.settings import Settings


@dataclass(frozen=True)
class RetrievalConfig:
    """The settings retrieval reads (see `service/settings.py` for each field's meaning)."""

    vector_index: str = "memory_embedding"
    fulltext_index: str = "memory_content"
    rrf_k: int = 60
    vector_depth: int = 100
    lexical_depth: int = 100
    vector_overfetch: int = 10
    max_candidates: int = 2000
    max_query_chars: int = 2000

    @classmethod
    def from_settings(cls, settings: Settings) -> RetrievalConfig:
        """Return the retrieval part of the process settings."""
        return cls(
            vector_index=settings.vector_index,
            fulltext_index=settings.fulltext_index,
            rrf_k=settings.rrf_k,
            vector_depth=settings.retrieval_vector_depth,
            lexical_depth=settings.retrieval_lexical_depth,
            vector_overfetch=settings.vector_overfetch,
            max_candidates=settings.max_candidates,
            max_query_chars=settings.max_query_chars,
        )


@dataclass(frozen=True)
class RetrievalRequest:
    """What a caller asks recall or search for (the fields of `RecallRequest`/`SearchRequest`).

    Attributes:
        query: the query text, as sent (checked and NFC-normalised by the service).
        limit: max items returned, 1..100.
        kinds: only these kinds (`Kind` values), or None for all.
        as_of: valid time, timezone-aware UTC, or None for now.
        known_at: system time, timezone-aware UTC, or None for the current versions.
        origins: search only: only these doors, intersected with the search-visible ones
            (never widening them); None for all visible.
        include_superseded: search only: also closed versions.
    """

    query: str
    limit: int = 10
    kinds: Sequence[str] | None = None
    as_of: datetime | None = None
    known_at: datetime | None = None
    origins: Sequence[str] | None = None
    include_superseded: bool = False


@dataclass(frozen=True)
class RetrievalQuery:
    """One recall or search, after validation.

    Attributes:
        text: the query, NFC-normalised.
        limit: max items returned, 1..100.
        kinds: only these kinds, or None for all.
        as_of: valid time, timezone-aware UTC.
        known_at: system time, timezone-aware UTC, or None for the current versions.
        origins: the `created_by_origin` values that may come back (from the policy).
        include_superseded: also closed versions (search only).
    """

    text: str
    limit: int
    kinds: list[str] | None
    as_of: datetime
    known_at: datetime | None
    origins: list[str]
    include_superseded: bool = False

    def filters(self, namespace: str) -> dict[str, Any]:
        """Return the filter parameters every candidate query takes."""
        return {
            "namespace": namespace,
            "kinds": self.kinds,
            "as_of": self.as_of,
            "known_at": self.known_at,
            "include_superseded": self.include_superseded,
            "origins": self.origins,
        }


@dataclass(frozen=True)
class Hit:
    """One visible candidate of one index: a memory version and its index score.

    Attributes:
        uid: the version's `uid`.
        memory_id: the memory's id.
        kind: a `Kind` value.
        score: the index's score (cosine similarity in [0, 1] for the vector index, higher is
            closer; Lucene's score for fulltext).
        quality_verdict: a trace's `quality_verdict`, else None.
        quality_score: a trace's `quality_score` in [0, 1], else None.
    """

    uid: str
    memory_id: str
    kind: str | None
    score: float
    quality_verdict: str | None = None
    quality_score: float | None = None

    @classmethod
    def from_row(cls, row: Row) -> Hit:
        """Map one candidate row (`{uid, memory_id, kind, score, quality_*}`) to a `Hit`."""
        return cls(
            uid=row["uid"],
            memory_id=row["memory_id"],
            kind=row.get("kind"),
            score=float(row["score"]),
            quality_verdict=row.get("quality_verdict"),
            quality_score=row.get("quality_score"),
        )


@dataclass(frozen=True)
class Unrecognized:
    """A candidate the filters hid because its `created_by_origin` is missing or unknown."""

    memory_id: str | None
    origin: str | None

    @classmethod
    def from_row(cls, row: Row) -> Unrecognized:
        """Map one `{memory_id, origin}` row."""
        return cls(memory_id=row.get("memory_id"), origin=row.get("origin"))


@dataclass
class Candidates:
    """The filtered candidates of one index, best first, and what the filters hid as unrecognized."""

    hits: list[Hit] = field(default_factory=list)
    unrecognized: list[Unrecognized] = field(default_factory=list)
    rounds: int = 0
    k: int = 0
    exhausted: bool = False


@dataclass(frozen=True)
class Ranked:
    """A fused candidate: its quality-weighted RRF score and its vector similarity, if any."""

    hit: Hit
    score: float
    similarity: float | None
    last: bool


@dataclass(frozen=True)
class RetrievalItem:
    """One answer of recall or search: a memory version or a whole trace, with its ranking.

    Attributes:
        memory_id: the memory's (or the trace's) id.
        version: the version of the memory (or trace node) that was ranked.
        record: the memory version (DESIGN §8 shape) or the whole trace.
        score: fused, quality-weighted RRF score.
        similarity: cosine similarity to the query in [0, 1] (higher is closer), or None when
            only the fulltext index found it.
        has_reasoning: a lineage-visible trace `PRODUCED` some version of the memory.
        lineage: the lineage path (`/v1/memories/<id>/lineage`) when `has_reasoning`.
    """

    memory_id: str
    version: int
    record: Memory | Trace
    score: float
    similarity: float | None
    has_reasoning: bool
    lineage: str | None

    @property
    def origin(self) -> str:
        """Return the door the memory came through (`created_by.origin`)."""
        return self.record.created_by.origin

    @property
    def current(self) -> bool:
        """Return True when the version is the current one (`system_to` is None)."""
        return self.record.system_to is None

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON shape of one item: the record's fields plus the ranking fields.

        A trace item leads with `memory_id` and `version` (a memory carries both already).
        """
        record = asdict(self.record)
        if isinstance(self.record, Trace):
            record = {"memory_id": self.memory_id, "version": self.version, **record}
        return {
            **record,
            "score": self.score,
            "similarity": self.similarity,
            "origin": self.origin,
            "current": self.current,
            "has_reasoning": self.has_reasoning,
            "lineage": self.lineage,
        }


@dataclass(frozen=True)
class RetrievalResult:
    """The ranked items of one recall or search, best first."""

    items: tuple[RetrievalItem, ...] = ()

    @property
    def count(self) -> int:
        """Return how many items came back."""
        return len(self.items)
