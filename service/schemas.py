"""Pydantic request and response models: the HTTP contract of DESIGN §8."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from service.domain.ingestion.report import UnitStatus
from service.domain.models import WRITABLE_KINDS, Kind, StepKind, StepStatus
from service.domain.text import check_json

DecisionStatus = Literal["active", "challenged", "retracted"]


def _utc(value: datetime) -> datetime:
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("time is out of range once normalised to UTC") from exc


def _iso_text(value: Any) -> Any:
    if not isinstance(value, str | datetime):
        raise ValueError(
            "a time must be an ISO 8601 string with an offset, e.g. 2024-01-01T00:00:00Z"
        )
    return value


def _checked_json(value: dict[str, Any]) -> dict[str, Any]:
    check_json(value, field="JSON object")
    return value


def _only(*allowed: Kind) -> tuple[BeforeValidator, WithJsonSchema]:
    """Restrict a `Kind` field to `allowed`: same error and JSON schema as a `Literal` of them."""
    values = [k.value for k in allowed]
    expected = ", ".join(repr(v) for v in values[:-1]) + f" or {values[-1]!r}"

    def check(value: Any) -> Any:
        if not (isinstance(value, str) and value in values):
            raise PydanticCustomError(
                "literal_error", "Input should be {expected}", {"expected": expected}
            )
        return value

    return BeforeValidator(check), WithJsonSchema({"enum": values, "type": "string"})


#: The kinds a client may create through `POST /v1/memories` (`WRITABLE_KINDS`).
MemoryKind = Annotated[Kind, *_only(*WRITABLE_KINDS)]

#: Free-form JSON: valid Unicode, finite numbers, at most 32 levels deep.
JsonObject = Annotated[dict[str, Any], AfterValidator(_checked_json)]

#: An ISO 8601 time that must carry an offset; normalised to UTC.
UtcDatetime = Annotated[AwareDatetime, BeforeValidator(_iso_text), AfterValidator(_utc)]


class Strict(BaseModel):
    """Base of request bodies: unknown fields are refused (422), so typos are never ignored."""

    model_config = ConfigDict(extra="forbid", use_enum_values=True)


class ActorRef(BaseModel):
    """Provenance of one version: the door it came through and who wrote it."""

    origin: str = Field(
        description="user, ingestion or maintenance (or unrecognized).", examples=["user"]
    )
    actor: str = Field(description="Free-form writer name.", examples=["agent:ci-triage"])


class MemoryCreate(Strict):
    """Body of `POST /v1/memories`."""

    kind: MemoryKind = Field(description="What sort of memory.", examples=["fact"])
    content: str = Field(
        min_length=1,
        description="The text, stored as given after NFC.",
        examples=["Alice lives in District 2"],
    )
    subject: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        description="Key subject (facts).",
        examples=["alice"],
    )
    attribute: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        description="Key attribute (facts).",
        examples=["home_district"],
    )
    confidence: float | None = Field(
        default=None, ge=0, le=1, description="Confidence in [0, 1].", examples=[0.9]
    )
    status: DecisionStatus | None = Field(
        default=None, description="Decision status; default active."
    )
    trigger: str | None = Field(
        default=None, max_length=2000, description="When a procedure applies."
    )
    valid_from: UtcDatetime | None = Field(
        default=None, description="When it became true; default now."
    )
    valid_to: UtcDatetime | None = Field(default=None, description="When it stopped being true.")
    actor: str | None = Field(
        default=None, max_length=200, description="Who writes; default the API key's name."
    )
    metadata: JsonObject | None = Field(default=None, description="Free JSON metadata.")


class MemoryUpdate(Strict):
    """Body of `PATCH /v1/memories/{memory_id}` (send `If-Match: <version>`)."""

    content: str | None = Field(default=None, min_length=1, description="New text.")
    confidence: float | None = Field(default=None, ge=0, le=1, description="New confidence.")
    status: DecisionStatus | None = Field(default=None, description="New decision status.")
    trigger: str | None = Field(default=None, max_length=2000, description="New trigger.")
    metadata: JsonObject | None = Field(default=None, description="Replaces the metadata.")
    valid_from: UtcDatetime | None = Field(default=None, description="New start of valid time.")
    valid_to: UtcDatetime | None = Field(default=None, description="New end of valid time.")
    actor: str | None = Field(default=None, max_length=200, description="Who writes.")

    @model_validator(mode="after")
    def _no_null_for_required(self) -> MemoryUpdate:
        for name in ("content", "valid_from", "status"):
            if name in self.model_fields_set and getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null (omit it to keep the current value)")
        return self


class InvalidateRequest(Strict):
    """Body of `POST .../invalidate`: it stopped being true at `valid_to` (default now)."""

    valid_to: UtcDatetime | None = Field(default=None, description="When it stopped being true.")
    reason: str = Field(min_length=1, max_length=2000, description="Why.")
    actor: str | None = Field(default=None, max_length=200, description="Who writes.")


class ReasonRequest(Strict):
    """Body of `POST .../retract` and `POST .../challenge`."""

    reason: str = Field(min_length=1, max_length=2000, description="Why.")
    actor: str | None = Field(default=None, max_length=200, description="Who writes.")


class MemoryPublic(BaseModel):
    """One version of a memory."""

    memory_id: str
    uid: str
    version: int
    kind: str
    content: str
    valid_from: datetime
    valid_to: datetime | None = None
    system_from: datetime
    system_to: datetime | None = None
    created_by: ActorRef
    last_modified_by: ActorRef
    subject: str | None = None
    attribute: str | None = None
    confidence: float | None = None
    status: str | None = None
    trigger: str | None = None
    metadata: JsonObject | None = None


class MemoryCreated(MemoryPublic):
    """The answer to `POST /v1/memories`."""

    created: bool = Field(
        description="False when an equal current memory existed (nothing was written)."
    )


class MemoriesPublic(BaseModel):
    """A list of memories."""

    items: list[MemoryPublic]
    count: int


class StepIn(Strict):
    """One step of a trace to record."""

    kind: StepKind = Field(description="thought, action, observation, decision or conclusion.")
    content: str = Field(min_length=1, description="The step's text.")
    status: StepStatus | None = Field(
        default=None, description="hypothesis for a guess under test."
    )
    rejects: list[int] = Field(
        default_factory=list, description="Indexes of earlier steps this one rules out."
    )
    cites: list[str] = Field(
        default_factory=list, description="memory_ids of the evidence relied on."
    )


class ProducedIn(Strict):
    """A memory the trace creates and `PRODUCED`."""

    kind: MemoryKind = Field(default=Kind.DECISION, description="Usually a decision.")
    content: str = Field(min_length=1, description="Its text.")
    confidence: float | None = Field(default=None, ge=0, le=1)
    subject: str | None = Field(default=None, min_length=1, max_length=512)
    attribute: str | None = Field(default=None, min_length=1, max_length=512)


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
    content: str | None = None
    still_valid: bool
    change: str | None = None
    changed_at: datetime | None = None


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


class RecallRequest(Strict):
    """Body of `POST /v1/recall`."""

    query: str = Field(min_length=1, description="What the agent needs context for.")
    limit: int = Field(
        default=10, ge=1, le=100, strict=True, description="Max items returned, 1..100."
    )
    kinds: list[Kind] | None = Field(default=None, description="Only these kinds.")
    as_of: UtcDatetime | None = Field(default=None, description="Valid time; default now.")
    known_at: UtcDatetime | None = Field(default=None, description="System time; default now.")


class SearchRequest(RecallRequest):
    """Body of `POST /v1/search`."""

    origins: list[str] | None = Field(
        default=None, description="Only memories created through these doors."
    )
    include_superseded: bool = Field(default=False, description="Also return closed versions.")


class RetrievalItem(BaseModel):
    """One recall or search hit: a memory or a whole trace, with score and lineage path."""

    model_config = ConfigDict(extra="allow")

    memory_id: str
    kind: str
    score: float
    has_reasoning: bool
    lineage: str | None = None


class RetrievalPublic(BaseModel):
    """Ranked hits."""

    items: list[dict[str, Any]]
    count: int


class IngestRequest(Strict):
    """Body of `POST /v1/ingest`."""

    format: Literal["auto", "swe-agent", "react", "openhands", "adr", "text"] = "auto"
    content: str = Field(min_length=1, description="The material itself (text or JSON as text).")
    source_name: str = Field(min_length=1, max_length=500, description="Its file name or URL.")


class IngestQuality(BaseModel):
    """The stored quality assessment of one ingested trace (or of a refused unit's trace)."""

    unit: str = Field(
        description="Key of the unit the trace was drawn from.", examples=["episode-12"]
    )
    trace_id: str | None = Field(
        description="The trace's memory_id; null when the unit was refused."
    )
    verdict: str | None = Field(description="accepted, poor or rejected.", examples=["poor"])
    score: float | None = Field(description="Quality score in [0, 1].", examples=[0.62])
    issues: list[str] = Field(description="Issue codes.", examples=[["repetitive"]])


class IngestChunks(BaseModel):
    """How many units came through, failed, or were refused by the quality gate."""

    ok: int
    failed: int
    refused: int = 0


class IngestUnitReport(BaseModel):
    """What became of one unit (trajectory, episode, ADR or text chunk)."""

    key: str = Field(
        description="Stable key of the unit within its source.", examples=["episode-12"]
    )
    title: str = Field(description="Short human label.")
    status: UnitStatus = Field(description="ok, failed (see error) or refused (quality gate).")
    error: str | None = Field(default=None, description="Why the unit failed or was refused.")
    trace_id: str | None = Field(default=None, description="The trace drawn from the unit, if any.")
    memory_ids: list[str] = Field(
        description="Observations and produced memories drawn from the unit."
    )


class IngestSupersession(BaseModel):
    """An ADR decision that superseded another one during this ingest."""

    memory_id: str = Field(description="The newer decision.")
    supersedes_memory_id: str = Field(description="The older decision, now closed in valid time.")
    unit: str = Field(description="The unit whose ingestion made the link.")


class IngestReport(BaseModel):
    """The answer to `POST /v1/ingest`: everything drawn out of the material, unit by unit."""

    source_id: str = Field(description="uid of the `:Source` node.")
    source_name: str
    format: str = Field(
        description="The format the material was parsed as.", examples=["swe-agent"]
    )
    sha256: str
    size_bytes: int
    new: bool = Field(
        description="False when the same content was ingested before in this namespace."
    )
    status: Literal["complete", "partial"] = Field(
        description="partial while some unit has failed; re-ingest retries those."
    )
    created: dict[str, int] = Field(
        description="Memories this call created, per kind.",
        examples=[{"observation": 5, "reasoning": 1, "decision": 1}],
    )
    memory_ids: list[str] = Field(
        description="Non-trace memories drawn from the source, each once."
    )
    trace_ids: list[str] = Field(description="Traces drawn from the source.")
    quality: list[IngestQuality]
    chunks: IngestChunks
    units: list[IngestUnitReport]
    supersedes: list[IngestSupersession] = Field(default_factory=list)
    elapsed_s: float = Field(description="Wall time of this call, in seconds.")


class MaintenanceRequest(Strict):
    """Body of `POST /v1/maintenance/run`."""

    job: str = Field(
        description="evidence-drift, duplicate-candidates or contradiction-candidates.",
        examples=["evidence-drift"],
    )


class MaintenanceReport(BaseModel):
    """What one run of one maintenance job did (`POST /v1/maintenance/run`)."""

    job: str = Field(description="The job's name.", examples=["evidence-drift"])
    examined: int = Field(
        description="Memories looked at: decisions (evidence-drift) or current facts."
    )
    changed: int = Field(
        description="Writes made: new decision versions, or new proposal traces; 0 on a repeat."
    )
    memory_ids: list[str] = Field(description="The memories those writes concern, sorted.")
    trace_ids: list[str] = Field(
        description="The maintenance traces recorded (origin `maintenance`)."
    )


class ErrorBody(BaseModel):
    """Every error answer: a message and a stable dotted code."""

    detail: Any
    code: str
