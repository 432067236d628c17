"""The typed values retrieval passes between its steps: config, request, candidates, answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from service.domain.memories import Memory
from service.domain.models import as_plain
from service.domain.reasoning import Trace
from service.graph.repository import Row
from service.settings import Settings


@dataclass(frozen=True)
class Fusion:
    """How the two candidate lists are fused (`service.domain.retrieval.fusion.fuse`).

    Attributes:
        method: `weighted` (normalised scores with weights) or `rrf` (reciprocal rank).
        lexical_weight: weight of the fulltext list's normalised score.
        vector_weight: weight of the vector list's normalised score.
        neighbour_weight: share of the mean fused score of a candidate's episode neighbours
            added to its own (0 = off).
        task_weight: share of a reasoning trace's task match in its fused score, in [0, 1]
            (`fusion.task_blend`; 0 = off).
        identifier_weight: what a candidate keeps of its fused score when the query is about a
            number it does not hold (`numbers.numbers_asked`), in [0, 1]; its square root when
            it holds the number without the query's label; 1 = off.
        norm_depth: how many of each list's best take part in its min-max normalisation.
        rrf_k: the RRF constant, for `rrf`.
    """

    method: Literal["weighted", "rrf"] = "weighted"
    lexical_weight: float = 0.6
    vector_weight: float = 0.4
    neighbour_weight: float = 0.2
    task_weight: float = 0.8
    identifier_weight: float = 0.1
    norm_depth: int = 100
    rrf_k: int = 60


@dataclass(frozen=True)
class RetrievalConfig:
    """The settings retrieval reads (see `service/settings.py` for each field's meaning)."""

    vector_index: str = "memory_embedding"
    fulltext_index: str = "memory_content"
    rrf_k: int = 60
    vector_depth: int = 100
    trace_vector_depth: int = 30
    lexical_depth: int = 100
    lexical_scoring: Literal["namespace", "word_lists", "index"] = "namespace"
    lexical_complete: int = 1000
    trace_lexical_complete: int = 0
    max_candidates: int = 2000
    max_query_chars: int = 2000
    duplicate_similarity: float = 0.8
    context_weight: float = 0.5
    fusion: Fusion = field(default_factory=Fusion)

    @classmethod
    def from_settings(cls, settings: Settings) -> RetrievalConfig:
        """Return the retrieval part of the process settings."""
        return cls(
            vector_index=settings.vector_index,
            fulltext_index=settings.fulltext_index,
            rrf_k=settings.rrf_k,
            vector_depth=settings.retrieval_vector_depth,
            trace_vector_depth=settings.retrieval_trace_vector_depth,
            lexical_depth=settings.retrieval_lexical_depth,
            lexical_scoring=settings.retrieval_lexical_scoring,
            lexical_complete=settings.retrieval_lexical_complete,
            trace_lexical_complete=settings.retrieval_trace_lexical_complete,
            max_candidates=settings.max_candidates,
            max_query_chars=settings.max_query_chars,
            duplicate_similarity=settings.retrieval_duplicate_similarity,
            context_weight=settings.retrieval_context_weight,
            fusion=Fusion(
                method=settings.retrieval_fusion,
                lexical_weight=settings.retrieval_lexical_weight,
                vector_weight=settings.retrieval_vector_weight,
                neighbour_weight=settings.retrieval_neighbour_weight,
                task_weight=settings.retrieval_task_weight,
                identifier_weight=settings.retrieval_identifier_weight,
                norm_depth=settings.retrieval_norm_depth,
                rrf_k=settings.rrf_k,
            ),
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
        explain: each item says why it matched (`RetrievalItem.explain`).
    """

    query: str
    limit: int = 10
    kinds: Sequence[str] | None = None
    as_of: datetime | None = None
    known_at: datetime | None = None
    origins: Sequence[str] | None = None
    include_superseded: bool = False
    explain: bool = False


#: How long before a read began a version's close may be and the version still be a candidate
#: (`RetrievalQuery.closed_after`): longer than a write transaction takes.
RECENTLY_CLOSED_S = 10.0


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
        explain: say why each item matched.
        as_of_given: False when `as_of` is the read's own time, not the caller's: a search with
            `include_superseded` then keeps versions of every valid time (a memory invalidated
            or a value replaced shows the version that says when it ended, not only the one
            believed open-ended before).
        read_at: when the read began (timezone-aware UTC), or None (closed versions are never
            candidates of a current read). A read of the current versions keeps a version
            closed shortly before it (`closed_after`): an update may commit while the read
            runs, each index may then answer with the old version or with neither, and a
            memory being updated would be missing (a fresh-user trial: 7 of 88 recalls); the
            read-back gives its current version, once.
    """

    text: str
    limit: int
    kinds: list[str] | None
    as_of: datetime
    known_at: datetime | None
    origins: list[str]
    include_superseded: bool = False
    explain: bool = False
    read_at: datetime | None = None
    as_of_given: bool = True

    @property
    def historical(self) -> bool:
        """True for a read of past or closed versions (`known_at`, `include_superseded`)."""
        return self.known_at is not None or self.include_superseded

    @property
    def valid_at(self) -> datetime | None:
        """The candidates' valid-time filter: `as_of`, or None (every valid time).

        None for `include_superseded` with no `as_of` given.
        """
        return None if self.include_superseded and not self.as_of_given else self.as_of

    def closed_after(self) -> datetime | None:
        """Return the instant after which a closed version is still a candidate, or None.

        `read_at - RECENTLY_CLOSED_S` for a read of the current versions: an update's close
        is stamped with the writer's clock before its transaction commits, so a version the
        read's indexes met may carry a close a little before `read_at`. The read-back
        (`retrieval/list_hits`) then gives the memory's current version, or nothing when it
        was retracted or stopped being valid.
        """
        if self.read_at is None or self.historical:
            return None
        return self.read_at - timedelta(seconds=RECENTLY_CLOSED_S)

    def filters(self, namespace: str) -> dict[str, Any]:
        """Return the filter parameters every candidate query takes."""
        return {
            "namespace": namespace,
            "kinds": self.kinds,
            "as_of": self.valid_at,
            "known_at": self.known_at,
            "include_superseded": self.include_superseded,
            "origins": self.origins,
            "closed_after": self.closed_after(),
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
        episode: the memory's episode, else None.
        position: its position in the episode, else None.
        text: the lexical field (`search_text`), fulltext candidates only.
        task_score: a trace's task similarity from the task index (`memory_task_embedding`,
            same scale as `score`), when that index found it, else None.
    """

    uid: str
    memory_id: str
    kind: str | None
    score: float
    quality_verdict: str | None = None
    quality_score: float | None = None
    episode: str | None = None
    position: int | None = None
    text: str | None = None
    task_score: float | None = None

    #: The columns of a candidate list (`from_columns`), in order.
    COLUMNS = (
        "uid",
        "memory_id",
        "kind",
        "score",
        "quality_verdict",
        "quality_score",
        "episode",
        "position",
        "text",
    )

    @classmethod
    def from_columns(cls, row: Sequence[Any], score: float | None = None) -> Hit:
        """Map one candidate list in `COLUMNS` order (the candidate statements' `hits`).

        The statements send a candidate as a list, not a map: the driver decodes a list of
        values about twice as fast as a map of the same values (measured: 496 fulltext rows,
        1.8-2.0 against 3.8-3.9 ms a round trip), and the fulltext side reads up to
        `max_candidates` of them per recall. `text` (the 9th column) is sent by the fulltext
        statements only, with the length of `content` after it (read by `CandidateFinder`).

        Args:
            row: `[uid, memory_id, kind, score, quality_verdict, quality_score, episode,
                position]` and optionally `text`.
            score: replaces the row's score when given.
        """
        return cls(
            uid=row[0],
            memory_id=row[1],
            kind=row[2],
            score=float(row[3]) if score is None else score,
            quality_verdict=row[4],
            quality_score=row[5],
            episode=row[6],
            position=row[7],
            text=row[8] if len(row) > 8 else None,
        )

    @classmethod
    def from_row(cls, row: Row, score: float | None = None) -> Hit:
        """Map one candidate row (`{uid, memory_id, kind, score, quality_*, episode, position}`).

        `score`, when given, replaces the row's.
        """
        return cls(
            uid=row["uid"],
            memory_id=row["memory_id"],
            kind=row.get("kind"),
            score=float(row["score"]) if score is None else score,
            quality_verdict=row.get("quality_verdict"),
            quality_score=row.get("quality_score"),
            episode=row.get("episode"),
            position=row.get("position"),
            text=row.get("text"),
            task_score=row.get("task_score"),
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
    """The filtered candidates of one index, best first, and what the filters hid as unrecognized.

    `identified` (fulltext only): how the candidates holding a number the query is about hold
    it (uid -> `numbers.LABELLED` or `numbers.NUMBER`), or None when the query is about none.
    """

    hits: list[Hit] = field(default_factory=list)
    unrecognized: list[Unrecognized] = field(default_factory=list)
    identified: dict[str, int] | None = None
    rounds: int = 0
    k: int = 0
    exhausted: bool = False


@dataclass(frozen=True)
class Ranked:
    """A fused candidate: its quality-weighted fused score and what it is made of.

    Attributes:
        hit: the candidate.
        score: the fused score (quality-weighted for a trace).
        similarity: the vector index's cosine score, or None when only fulltext found it.
        last: a rejected trace (ranked after every other item).
        lexical: the fulltext index's BM25 score, or None when only the vector index found it.
        lexical_norm: the BM25 score min-max normalised in its list (weighted fusion).
        vector_norm: the cosine score min-max normalised in its list (weighted fusion).
        neighbours: what episode neighbours added (weighted fusion), or None.
        task_similarity: a trace's task similarity (`Hit.task_score`), or None.
        task_norm: that similarity min-max normalised in the task list (weighted fusion).
        task_gain: what the task match added to the fused score (`fusion.task_blend`), or None.
        identified: how it holds the number the query is about (`numbers.LABELLED` 2,
            `NUMBER` 1, `NONE` 0), or None when the query is about none.
    """

    hit: Hit
    score: float
    similarity: float | None
    last: bool
    lexical: float | None = None
    lexical_norm: float | None = None
    vector_norm: float | None = None
    neighbours: float | None = None
    task_similarity: float | None = None
    task_norm: float | None = None
    task_gain: float | None = None
    identified: int | None = None


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
        duplicates: `{count, memory_ids}` of the near-duplicates collapsed into this item, or
            None.
        reasoning: `{trace_id, version, score, task, quality_verdict}` of the trace that
            produced it and was ranked with it (not repeated as an item), or None.
        produced_items: for a trace, `[{memory_id, kind, version, score}]` of what it
            produced that was ranked below it (not repeated as items), or None.
        in_force: for a trace that produced something, whether any of it still holds at the
            read's `as_of` (False: all of it was superseded, invalidated or retracted, and the
            trace ranks lower); None otherwise.
        explain: why it matched (`explain.explanation`), when asked, else None.
    """

    memory_id: str
    version: int
    record: Memory | Trace
    score: float
    similarity: float | None
    has_reasoning: bool
    lineage: str | None
    duplicates: dict[str, Any] | None = None
    reasoning: dict[str, Any] | None = None
    produced_items: list[dict[str, Any]] | None = None
    explain: dict[str, Any] | None = None
    in_force: bool | None = None

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
        record = as_plain(self.record)
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
            **{
                name: value
                for name, value in (
                    ("duplicates", self.duplicates),
                    ("reasoning", self.reasoning),
                    ("produced_items", self.produced_items),
                    ("in_force", self.in_force),
                    ("explain", self.explain),
                )
                if value is not None
            },
        }


@dataclass(frozen=True)
class RetrievalResult:
    """The ranked items of one recall or search, best first."""

    items: tuple[RetrievalItem, ...] = ()

    @property
    def count(self) -> int:
        """Return how many items came back."""
        return len(self.items)
