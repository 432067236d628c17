"""The shapes precedents answer with: a request, the reasoning in brief, why a decision matched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from service.domain.memories import Memory
from service.domain.outcomes import OutcomeRecord


@dataclass(frozen=True)
class PrecedentRequest:
    """What a caller asks precedents for (`POST /v1/precedents`).

    Attributes:
        situation: the situation at hand, as sent (checked and NFC-normalised by the service).
        limit: max precedents returned, 1..100.
        kinds: the kinds a precedent may be (`Kind` values); default decisions only.
        as_of: valid time, timezone-aware UTC, or None for now.
        known_at: system time, timezone-aware UTC, or None for the current versions.
    """

    situation: str
    limit: int = 5
    kinds: Sequence[str] | None = None
    as_of: datetime | None = None
    known_at: datetime | None = None


@dataclass(frozen=True)
class Hypothesis:
    """A hypothesis a trace considered: its step, text, status, and the step that rejected it."""

    step: int
    content: str
    status: str
    rejected_by: int | None
    rejected_because: str | None


@dataclass(frozen=True)
class ReasoningBrief:
    """One trace behind a precedent, in brief: task, conclusion, hypotheses and their fate."""

    trace_id: str
    task: str
    conclusion: str | None
    step_count: int
    quality_verdict: str | None
    origin: str
    hypotheses: tuple[Hypothesis, ...]
    recorded_at: datetime


@dataclass(frozen=True)
class Match:
    """Why a precedent matched: one retrieval hit standing for it.

    Attributes:
        via: `decision` (the decision's own text matched) or `reasoning` (a trace that produced
            it matched: its task, steps and conclusion).
        memory_id: the matching memory (the decision, or the trace).
        score: the hit's fused (recall's fusion setting, quality-weighted) score.
        similarity: cosine similarity in [0, 1] of the situation to the hit, higher is closer;
            None when only the fulltext index found it.
        lexical: the fulltext (Lucene, `english` analyzer) score, or None when only the vector
            index found it.
        shared_terms: content terms the situation and the hit's text share, sorted.
    """

    via: str
    memory_id: str
    score: float
    similarity: float | None
    lexical: float | None
    shared_terms: tuple[str, ...]


@dataclass(frozen=True)
class Precedent:
    """A past decision resembling the situation, with its reasoning, outcomes and standing.

    Attributes:
        decision: the decision's version believed at `known_at` (status and confidence on it).
        score: the group's score: its best match's fused score (the decision's own, or that
            of a trace that produced it).
        similarity: the best cosine similarity among its matches, or None.
        matched: why it matched, best first.
        reasoning: the recall-visible traces that produced it, oldest first.
        outcome_record: its outcomes' counts and the last one (as of `as_of`/`known_at`).
    """

    decision: Memory
    score: float
    similarity: float | None
    matched: tuple[Match, ...]
    reasoning: tuple[ReasoningBrief, ...]
    outcome_record: OutcomeRecord


@dataclass(frozen=True)
class PrecedentResult:
    """The precedents of one situation, best first."""

    items: tuple[Precedent, ...] = ()

    @property
    def count(self) -> int:
        """Return how many precedents came back."""
        return len(self.items)
