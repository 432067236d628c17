"""Typed answers of the Rationale API; unknown fields are kept, so server additions never break."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Answer(BaseModel):
    """Base of every answer: extra fields the server adds are accepted and kept (`model_extra`)."""

    model_config = ConfigDict(extra="allow")


class Actor(Answer):
    """Provenance of one version: `origin` (user, ingestion, maintenance) and `actor` (free text)."""

    origin: str
    actor: str


class Memory(Answer):
    """One version of a memory (fact, decision, procedure or observation).

    Times are timezone-aware UTC datetimes: valid time `valid_from`..`valid_to` (when it was true
    in the world), system time `system_from`..`system_to` (when the service believed it).
    `change_reason` says why a later version was written (`challenged: <reason>`, ...) and
    `retracted_reason` why a version was retracted.
    """

    memory_id: str
    uid: str
    version: int
    kind: str
    content: str
    valid_from: datetime
    valid_to: datetime | None = None
    system_from: datetime
    system_to: datetime | None = None
    created_by: Actor
    last_modified_by: Actor
    subject: str | None = None
    attribute: str | None = None
    confidence: float | None = None
    status: str | None = None
    trigger: str | None = None
    metadata: dict[str, Any] | None = None
    episode: str | None = None
    position: int | None = None
    change_reason: str | None = None
    retracted_reason: str | None = None


class MemoryCreated(Memory):
    """The answer to a create: the memory plus `created` (False when an equal one existed)."""

    created: bool


class Memories(Answer):
    """A list of memories: `{items: [Memory], count}`."""

    items: list[Memory]
    count: int


class QualityIssue(Answer):
    """One quality finding: `code` (e.g. `missing_conclusion`), `severity`, `step` index or None."""

    code: str
    severity: str
    step: int | None = None
    message: str


class Quality(Answer):
    """The quality gate's assessment: `score` in [0, 1], `verdict` (accepted, poor, rejected)."""

    score: float
    verdict: str
    issues: list[QualityIssue]


class Cite(Answer):
    """Evidence a step cited: the exact version, and whether it still holds now."""

    memory_id: str
    version: int
    content: str | None = None
    still_valid: bool
    change: str | None = None
    changed_at: datetime | None = None


class Step(Answer):
    """One recorded step; `rejected_by` is the index of the step that ruled it out."""

    index: int
    kind: str
    content: str
    status: str
    rejected_by: int | None = None
    rejects: list[int] = Field(default_factory=list)
    cites: list[Cite] = Field(default_factory=list)


class Trace(Answer):
    """A reasoning trace with its steps in order and the memories it produced."""

    trace_id: str
    uid: str
    kind: str = "reasoning"
    task: str
    conclusion: str | None = None
    quality: Quality
    steps: list[Step]
    produced: list[Memory]
    created_by: Actor
    last_modified_by: Actor
    valid_from: datetime
    valid_to: datetime | None = None
    system_from: datetime
    system_to: datetime | None = None
    source_id: str | None = None


class Lineage(Answer):
    """A memory (current version), all its versions, and every trace that produced any of them."""

    memory: Memory
    versions: list[Memory]
    traces: list[Trace]


class Revisit(Answer):
    """A step whose cited evidence changed after the trace was recorded."""

    trace_id: str
    step: int
    memory_id: str
    version: int
    change: str
    changed_at: datetime | None = None


class Challenge(Lineage):
    """Lineage plus the steps to revisit; `memory` is the new `challenged` version for decisions."""

    revisit: list[Revisit]


class RetrievalItem(Answer):
    """One recall or search hit: a memory or a whole trace, plus ranking fields.

    `score` is the fused score (weighted normalised scores, or RRF when the service is set so),
    higher first; `lineage` is the lineage path when reasoning produced the memory. The
    memory's or trace's own fields are kept too; read them typed with `as_memory()` or
    `as_trace()` (a trace has no `content`: its text is its `task` and `steps`).
    """

    memory_id: str
    kind: str
    score: float
    has_reasoning: bool
    lineage: str | None = None
    origin: str | None = None
    similarity: float | None = None
    current: bool | None = None
    #: Near-duplicates collapsed into this item: `{count, memory_ids}`.
    duplicates: dict[str, Any] | None = None
    #: For a decision that leads its result group: the trace behind it (`trace_id`, `task`, ...).
    reasoning: dict[str, Any] | None = None
    #: For a trace that leads its result group: the memories it produced, ranked below it.
    produced_items: list[dict[str, Any]] | None = None
    #: Why it matched (when `explain` was asked): lexical and vector contributions, terms.
    explain: dict[str, Any] | None = None
    content: str | None = None

    def as_memory(self) -> Memory:
        """Return the hit as a `Memory` (for kinds other than `reasoning`).

        Raises:
            pydantic.ValidationError: the hit is a trace.
        """
        return Memory.model_validate(self.model_dump())

    def as_trace(self) -> Trace:
        """Return the hit as a `Trace` (for kind `reasoning`).

        Raises:
            pydantic.ValidationError: the hit is not a trace.
        """
        return Trace.model_validate(self.model_dump())


class Retrieval(Answer):
    """Ranked hits: `{items: [RetrievalItem], count}`, best first."""

    items: list[RetrievalItem]
    count: int


class IngestQuality(Answer):
    """The quality assessment of one ingested trace (`trace_id` None when the unit was refused)."""

    unit: str
    trace_id: str | None = None
    verdict: str | None = None
    score: float | None = None
    issues: list[str] = Field(default_factory=list)


class IngestChunks(Answer):
    """How many units came through, failed, or were refused by the quality gate."""

    ok: int
    failed: int
    refused: int = 0


class IngestUnit(Answer):
    """What became of one unit (trajectory, episode, ADR or text chunk): `ok|failed|refused`."""

    key: str
    title: str
    status: str
    error: str | None = None
    trace_id: str | None = None
    memory_ids: list[str] = Field(default_factory=list)


class IngestSupersession(Answer):
    """An ADR decision that superseded another one during this ingest."""

    memory_id: str
    supersedes_memory_id: str
    unit: str


class IngestReport(Answer):
    """Everything drawn out of ingested material; `new` is False on a repeat of the same content."""

    source_id: str
    source_name: str
    format: str
    sha256: str
    size_bytes: int
    new: bool
    status: str
    created: dict[str, int]
    memory_ids: list[str]
    trace_ids: list[str]
    quality: list[IngestQuality]
    chunks: IngestChunks
    units: list[IngestUnit]
    supersedes: list[IngestSupersession] = Field(default_factory=list)
    elapsed_s: float


class MaintenanceReport(Answer):
    """What one maintenance run did: memories `examined`, writes `changed`, ids concerned."""

    job: str
    examined: int
    changed: int
    memory_ids: list[str]
    trace_ids: list[str]


class UnrecognizedOrigins(Answer):
    """Current memories hidden because their origin is missing or unknown: count and sample ids."""

    count: int
    sample: list[str]


class Diagnostics(Answer):
    """Unrecognized origins and current memory counts per kind and origin."""

    unrecognized_origins: UnrecognizedOrigins
    counts: dict[str, dict[str, int]]


class Health(Answer):
    """`GET /healthz`: `status` is `ok` while the process is alive."""

    status: str


class Readiness(Answer):
    """`GET /readyz`: ready when Neo4j answers, the schema is online and the model is loaded."""

    status: str
    neo4j: bool
    schema_online: bool = Field(alias="schema")
    model: bool

    @property
    def ready(self) -> bool:
        """True when the service is ready to serve."""
        return self.status == "ready"


class BatchItem(Answer):
    """One item of a batch answer, in request order: `created` False when it existed already."""

    index: int
    created: bool
    memory: Memory


class BatchResult(Answer):
    """The answer to `POST /v1/memories/batch`: `{items: [BatchItem], count}`."""

    items: list[BatchItem]
    count: int


class Outcome(Answer):
    """One outcome of a decision: the observation and its `HAD_OUTCOME {result}` link."""

    outcome_id: str
    result: str
    content: str
    observed_at: str
    recorded_at: str


class OutcomeRecorded(Outcome):
    """Answer of recording an outcome: the outcome plus the decision's current version."""

    decision: Memory
    challenged: bool
    created: bool


class Outcomes(Answer):
    """A decision's outcomes in time order: `{items: [Outcome], count}`."""

    items: list[Outcome]
    count: int


class Precedent(Answer):
    """A past decision resembling the situation, its reasoning in brief and outcome record."""

    decision: Memory
    score: float
    matched: list[dict[str, Any]]
    reasoning: list[dict[str, Any]]
    outcome_record: dict[str, Any]


class Precedents(Answer):
    """Precedents, best first: `{items: [Precedent], count}`."""

    items: list[Precedent]
    count: int
