"""Pydantic models of outcomes and precedents (DESIGN §12): requests and answers."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field

from service.domain.models import Kind
from service.domain.outcomes import OutcomeResult
from service.json_types import JsonInt
from service.schemas.common import ActorRef, Strict, UtcDatetime, _only
from service.schemas.memories import MemoryPublic
from service.schemas.reasoning import ChallengePublic, LineagePublic

#: The kinds a precedent may be.
PrecedentKind = Annotated[Kind, *_only(Kind.DECISION, Kind.PROCEDURE, Kind.FACT)]


class OutcomeCreate(Strict):
    """Body of `POST /v1/memories/{decision_id}/outcomes`."""

    result: OutcomeResult = Field(
        description="What happened when the decision was acted on.", examples=["failure"]
    )
    content: str = Field(
        min_length=1,
        description="What was observed; stored as an observation (exactly as given after NFC).",
        examples=["test_upload failed again in CI with connection reset during setup"],
    )
    observed_at: UtcDatetime | None = Field(
        default=None,
        description=(
            "When it was observed (the observation's valid time); default now. Neither before "
            "the decision took effect nor in the future (60 s of clock skew allowed): 422."
        ),
        examples=["2024-03-21T09:14:00Z"],
    )
    cites: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="memory_ids of evidence of the outcome (e.g. the CI log of the run).",
    )
    actor: str | None = Field(
        default=None, max_length=200, description="Who writes; default the API key's name."
    )


class OutcomePublic(BaseModel):
    """One outcome: the observation and its `HAD_OUTCOME {result}` link."""

    outcome_id: str = Field(description="The observation's memory_id.")
    uid: str = Field(description="The observation version's uid.")
    decision_id: str
    decision_version: int = Field(
        description="The decision version current when the outcome was recorded."
    )
    result: OutcomeResult
    content: str
    observed_at: datetime = Field(description="Valid time of the observation.")
    recorded_at: datetime = Field(description="System time the outcome was recorded.")
    created_by: ActorRef
    last_modified_by: ActorRef
    cites: list[str] = Field(description="memory_ids the observation cites.")


class OutcomeRecorded(OutcomePublic):
    """The answer to `POST .../outcomes`."""

    decision: MemoryPublic = Field(description="The decision's current version after the write.")
    challenged: bool = Field(description="True when this outcome made the decision challenged.")
    created: bool = Field(description="False when the same outcome was already recorded.")


class OutcomesPublic(BaseModel):
    """A decision's outcomes, in time order."""

    items: list[OutcomePublic]
    count: int


class OutcomeRecordPublic(BaseModel):
    """A decision's outcome record."""

    successes: int
    failures: int
    mixed: int
    last_result: OutcomeResult | None = None
    last_observed_at: datetime | None = None
    summary: str = Field(examples=["1 success, 1 failure"])


class LineageWithOutcomes(LineagePublic):
    """Lineage with a decision's outcomes beside its reasoning."""

    outcomes: list[OutcomePublic] = Field(default_factory=list)
    outcome_record: OutcomeRecordPublic


class ChallengeWithOutcomes(ChallengePublic):
    """Challenge with the decision's outcomes and those recorded since its reasoning."""

    outcomes: list[OutcomePublic] = Field(default_factory=list)
    outcome_record: OutcomeRecordPublic
    outcomes_since: list[OutcomePublic] = Field(
        default_factory=list,
        description="Outcomes recorded after the latest non-maintenance trace that produced it.",
    )


class PrecedentsRequest(Strict):
    """Body of `POST /v1/precedents`."""

    situation: str = Field(
        min_length=1,
        description="The situation at hand: what is being decided, what was observed.",
        examples=["test_upload fails intermittently in CI"],
    )
    limit: JsonInt = Field(default=5, ge=1, le=100, description="Max precedents, 1..100.")
    kinds: list[PrecedentKind] | None = Field(
        default=None,
        min_length=1,
        description="Kinds a precedent may be (at least one); default decisions.",
    )
    as_of: UtcDatetime | None = Field(default=None, description="Valid time; default now.")
    known_at: UtcDatetime | None = Field(default=None, description="System time; default now.")


class HypothesisOut(BaseModel):
    """A hypothesis a trace considered, and the step that rejected it."""

    step: int
    content: str
    status: str
    rejected_by: int | None = None
    rejected_because: str | None = None


class ReasoningBriefOut(BaseModel):
    """A trace behind a precedent, in brief."""

    trace_id: str
    task: str
    conclusion: str | None = None
    step_count: int
    quality_verdict: str | None = None
    origin: str
    hypotheses: list[HypothesisOut]
    recorded_at: datetime


class MatchOut(BaseModel):
    """Why a precedent matched: one retrieval hit standing for it."""

    via: str = Field(description="decision or reasoning.", examples=["reasoning"])
    memory_id: str
    score: float = Field(description="Fused (RRF, quality-weighted) score.")
    similarity: float | None = Field(
        description="Cosine similarity in [0, 1]; null if lexical only."
    )
    lexical: float | None = Field(description="Fulltext score; null if vector only.")
    shared_terms: list[str]


class PrecedentOut(BaseModel):
    """A past decision resembling the situation."""

    decision: MemoryPublic
    score: float
    similarity: float | None = None
    matched: list[MatchOut]
    reasoning: list[ReasoningBriefOut]
    outcome_record: OutcomeRecordPublic


class PrecedentsPublic(BaseModel):
    """Precedents, best first."""

    items: list[PrecedentOut]
    count: int
