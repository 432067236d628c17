"""Bodies and answers of `/v1/reasoning` and the lineage reads: traces, lineage, challenge."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import (
    BaseModel,
    Field,
)

from service.domain.models import Kind, StepKind, StepStatus
from service.json_types import JsonInt
from service.schemas.common import (
    ActorRef,
    JsonObject,
    MemoryKind,
    Strict,
    UtcDatetime,
)
from service.schemas.memories import MemoryPublic


class StepIn(Strict):
    """One step of a trace to record."""

    kind: StepKind = Field(description="thought, action, observation, decision or conclusion.")
    content: str = Field(min_length=1, description="The step's text.")
    status: StepStatus | None = Field(
        default=None, description="hypothesis for a guess under test."
    )
    rejects: list[JsonInt] = Field(
        default_factory=list, description="Indexes of earlier steps this one rules out."
    )
    cites: list[str] = Field(
        default_factory=list, description="memory_ids of the evidence relied on."
    )


class ProducedIn(Strict):
    """A memory the trace creates and `PRODUCED`."""

    kind: MemoryKind = Field(default=Kind.DECISION, description="Usually a decision.")
    content: str = Field(min_length=1, description="Its text.")
    confidence: float | None = Field(default=None, ge=0, le=1, strict=True)
    subject: str | None = Field(default=None, min_length=1, max_length=512)
    attribute: str | None = Field(default=None, min_length=1, max_length=512)
    valid_from: UtcDatetime | None = Field(
        default=None,
        description=(
            "When it became true (ISO 8601 with offset), e.g. a decision taken or a fact that "
            "held before the reasoning was recorded; default the recording time. Not in the "
            "future (60 s of clock skew allowed): 422. The trace itself is still recorded now."
        ),
        examples=["2026-12-01T12:00:00Z"],
    )


class TraceCreate(Strict):
    """Body of `POST /v1/reasoning`."""

    task: str = Field(min_length=1, description="What the reasoning served.")
    steps: list[StepIn] = Field(description="Ordered steps, index 0 first.")
    produced: ProducedIn | None = Field(
        default=None, description="A memory to create as the outcome."
    )
    produced_memory_id: str | None = Field(
        default=None, description="Or an existing memory it led to."
    )
    actor: str | None = Field(default=None, max_length=200)
    self_assessment: JsonObject | None = Field(
        default=None, description="The agent's own view; stored, not trusted."
    )


class QualityIssueOut(BaseModel):
    """One quality finding."""

    code: str
    severity: str
    step: int | None
    message: str


class QualityOut(BaseModel):
    """The quality gate's assessment."""

    score: float
    verdict: str
    issues: list[QualityIssueOut]


class CiteOut(BaseModel):
    """Evidence a step cited: the exact version, and whether it still holds now."""

    memory_id: str
    version: int
    content: str | None = Field(
        default=None, description="The cited version's text; null when `hidden`."
    )
    still_valid: bool
    change: str | None = None
    changed_at: datetime | None = None
    hidden: bool = Field(
        default=False,
        description=(
            "True when the cited memory's origin is not visible to this read (e.g. maintenance"
            " reasoning in recall, an unrecognized origin anywhere): its content is left out."
        ),
    )


class StepOut(BaseModel):
    """One recorded step."""

    index: int
    kind: str
    content: str
    status: str
    rejected_by: int | None = None
    rejects: list[int] = Field(default_factory=list)
    cites: list[CiteOut] = Field(default_factory=list)


class TracePublic(BaseModel):
    """A reasoning trace with its steps in order."""

    trace_id: str
    uid: str
    kind: Literal[Kind.REASONING] = Kind.REASONING
    task: str
    conclusion: str | None
    quality: QualityOut
    steps: list[StepOut]
    produced: list[MemoryPublic]
    created_by: ActorRef
    last_modified_by: ActorRef
    valid_from: datetime
    valid_to: datetime | None = None
    system_from: datetime
    system_to: datetime | None = None
    source_id: str | None = None


class TraceCreated(TracePublic):
    """The answer to `POST /v1/reasoning`."""

    created: bool = Field(
        description="False when an equal current trace existed (nothing was written)."
    )


class LineagePublic(BaseModel):
    """A memory, its versions, and every trace that produced any of them."""

    memory: MemoryPublic
    versions: list[MemoryPublic]
    traces: list[TracePublic]


class RevisitItem(BaseModel):
    """A step whose cited evidence changed after the trace was recorded."""

    trace_id: str
    step: int
    memory_id: str
    version: int
    change: str
    changed_at: datetime | None


class ChallengePublic(LineagePublic):
    """Lineage plus the steps to revisit; `memory` is the new (challenged) version for decisions."""

    revisit: list[RevisitItem]
