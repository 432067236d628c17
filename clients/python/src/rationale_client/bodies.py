"""Typed request bodies of the Rationale API (unknown fields are refused, as the server does)."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from rationale_client.errors import ArgumentError

MemoryKind = Literal["fact", "decision", "procedure", "observation"]
AnyKind = Literal["fact", "decision", "procedure", "observation", "reasoning"]
StepKind = Literal["thought", "action", "observation", "decision", "conclusion"]
StepStatus = Literal["asserted", "hypothesis", "rejected"]
#: The statuses a client may write (retraction is `memories.retract`, not a status).
DecisionStatus = Literal["active", "challenged"]
IngestFormat = Literal[
    "auto",
    "swe-agent",
    "react",
    "openhands",
    "adr",
    "text",
    "claude-code",
    "codex",
    "aider",
    "terminal",
]
OutcomeResult = Literal["success", "failure", "mixed"]


def _finite(value: Any) -> Any:
    """Refuse NaN and infinities anywhere in free-form JSON (ValueError), as the server does.

    Serialised, pydantic writes them as `null`: a `NaN` in `metadata` was stored as no value.
    """
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"Input should be a finite number, not {item}")
        if isinstance(item, dict):
            pending += item.values()
        elif isinstance(item, (list, tuple)):
            pending += item
    return value


#: Free-form JSON (`metadata`, `self_assessment`): numbers must be finite.
JsonObject = Annotated[dict[str, Any], AfterValidator(_finite)]


class Body(BaseModel):
    """Base of request bodies: a misspelt field fails here, before anything is sent.

    Numbers must be finite (`allow_inf_nan=False`, `JsonObject`), as the server requires.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    def __init__(self, **data: Any) -> None:
        """Validate the fields.

        Raises:
            ArgumentError: a field breaks the schema; its issues are in `errors`.
        """
        try:
            super().__init__(**data)
        except ValidationError as exc:
            errors = exc.errors(include_url=False, include_context=False, include_input=False)
            issues = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in errors
            )
            raise ArgumentError(
                f"{type(self).__name__} refused: {issues}", [dict(e) for e in errors]
            ) from exc

    def to_json(self) -> dict[str, Any]:
        """Return the JSON body: only the fields that were set, times as ISO 8601 strings."""
        return self.model_dump(mode="json", exclude_unset=True)


class MemoryCreate(Body):
    """Body of `POST /v1/memories` (and one item of `POST /v1/memories/batch`).

    A fact keyed by `subject` + `attribute` closes the valid time of the previous value.
    Times must carry an offset (timezone-aware); the server stores them in UTC. `episode` and
    `position` place a turn in its conversation (the turn before is indexed with it as
    context for lexical search); `context` is its immediate context in the material, never
    part of `content` (trial 24: the client could not send them).
    """

    kind: MemoryKind
    content: str = Field(min_length=1)
    subject: str | None = Field(default=None, min_length=1, max_length=512)
    attribute: str | None = Field(default=None, min_length=1, max_length=512)
    confidence: float | None = Field(default=None, ge=0, le=1)
    status: DecisionStatus | None = None
    trigger: str | None = None
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    actor: str | None = None
    metadata: JsonObject | None = None
    episode: str | None = Field(default=None, min_length=1, max_length=512)
    position: int | None = Field(default=None, ge=0)
    context: str | None = Field(default=None, min_length=1, max_length=2000)


class MemoryUpdate(Body):
    """Body of `PATCH /v1/memories/{memory_id}`: only the fields set are changed."""

    content: str | None = Field(default=None, min_length=1)
    confidence: float | None = Field(default=None, ge=0, le=1)
    status: DecisionStatus | None = None
    trigger: str | None = None
    metadata: JsonObject | None = None
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    actor: str | None = None


class InvalidateRequest(Body):
    """Body of `POST .../invalidate`: it stopped being true at `valid_to` (default now)."""

    valid_to: AwareDatetime | None = None
    reason: str = Field(min_length=1)
    actor: str | None = None


class ReasonRequest(Body):
    """Body of `POST .../retract` and `POST .../challenge`."""

    reason: str = Field(min_length=1)
    actor: str | None = None


class StepIn(Body):
    """One step of a trace: `rejects` are indexes of earlier steps, `cites` memory_ids."""

    kind: StepKind
    content: str = Field(min_length=1)
    status: StepStatus | None = None
    rejects: list[int] = Field(default_factory=list)
    cites: list[str] = Field(default_factory=list)


class ProducedIn(Body):
    """A memory the trace creates (usually a decision); `valid_from`: when it became true."""

    kind: MemoryKind = "decision"
    content: str = Field(min_length=1)
    confidence: float | None = Field(default=None, ge=0, le=1)
    subject: str | None = Field(default=None, min_length=1, max_length=512)
    attribute: str | None = Field(default=None, min_length=1, max_length=512)
    valid_from: AwareDatetime | None = None


class TraceCreate(Body):
    """Body of `POST /v1/reasoning`: steps in order (index 0 first), what they produced."""

    task: str = Field(min_length=1)
    steps: list[StepIn]
    produced: ProducedIn | None = None
    produced_memory_id: str | None = None
    actor: str | None = None
    self_assessment: JsonObject | None = None


class RecallRequest(Body):
    """Body of `POST /v1/recall`: `limit` is the max items returned, 1..100."""

    query: str = Field(min_length=1)
    limit: int = Field(default=10, ge=1, le=100)
    kinds: list[AnyKind] | None = None
    as_of: AwareDatetime | None = None
    known_at: AwareDatetime | None = None
    #: Ask for each item's `explain` (lexical and vector contributions, matched terms).
    explain: bool = False


class SearchRequest(RecallRequest):
    """Body of `POST /v1/search`: also `origins` and `include_superseded`."""

    origins: list[str] | None = None
    include_superseded: bool = False


class IngestRequest(Body):
    """Body of `POST /v1/ingest`."""

    format: IngestFormat = "auto"
    content: str = Field(min_length=1)
    source_name: str = Field(min_length=1, max_length=500)


class MaintenanceRequest(Body):
    """Body of `POST /v1/maintenance/run`."""

    job: str = Field(min_length=1)


class BatchRequest(Body):
    """Body of `POST /v1/memories/batch`: memories to create in one transaction."""

    items: list[MemoryCreate] = Field(min_length=1)


class OutcomeCreate(Body):
    """Body of `POST /v1/memories/{decision_id}/outcomes`: what happened when a decision was acted on.

    A `failure` or `mixed` outcome on an active decision makes it `challenged` (a new version).
    `observed_at` (timezone-aware) is the observation's valid time; default now.
    """

    result: OutcomeResult
    content: str
    observed_at: AwareDatetime | None = None
    cites: list[str] | None = None
    actor: str | None = None


class PrecedentsRequest(Body):
    """Body of `POST /v1/precedents`: past decisions resembling `situation`, best first."""

    situation: str
    limit: int = 5
    kinds: list[str] | None = None
    as_of: AwareDatetime | None = None
    known_at: AwareDatetime | None = None
