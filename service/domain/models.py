"""Frozen domain types shared by the store, the quality gate, ingestion and retrieval."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from enum import StrEnum
from functools import cache
from typing import Any

from service.errors import InvalidInputError


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def as_plain(value: Any) -> Any:
    """Return a dataclass (also inside lists, tuples and dicts) as plain dicts and lists.

    What `dataclasses.asdict` gives for the JSON shapes (tuples become lists), without its
    `copy.deepcopy` of every leaf: leaves (str, numbers, datetimes, enums) are shared, which
    is safe because every domain dataclass is frozen. `asdict` was most of a recall's
    response time (cProfile: 6 ms of a 5-trace page under load).

    Args:
        value: a dataclass instance, a list, tuple or dict of them, or a leaf.

    Returns:
        The same data as dicts (field name -> value, in field order), lists and leaves.
    """
    if is_dataclass(value) and not isinstance(value, type):
        return {name: as_plain(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, list | tuple):
        return [as_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: as_plain(v) for k, v in value.items()}
    return value


class Kind(StrEnum):
    """The kind of a `:Memory` node (DESIGN §2)."""

    FACT = "fact"
    DECISION = "decision"
    PROCEDURE = "procedure"
    OBSERVATION = "observation"
    REASONING = "reasoning"


#: The kinds a client may create through `POST /v1/memories` (a trace has its own door).
WRITABLE_KINDS: tuple[Kind, ...] = (Kind.FACT, Kind.DECISION, Kind.PROCEDURE, Kind.OBSERVATION)

#: Neo4j label of each kind, next to `:Memory`.
KIND_LABELS: dict[Kind, str] = {
    Kind.FACT: "Fact",
    Kind.DECISION: "Decision",
    Kind.PROCEDURE: "Procedure",
    Kind.OBSERVATION: "Observation",
    Kind.REASONING: "ReasoningTrace",
}


class StepKind(StrEnum):
    """The kind of one reasoning step."""

    THOUGHT = "thought"
    ACTION = "action"
    OBSERVATION = "observation"
    DECISION = "decision"
    CONCLUSION = "conclusion"


class DecisionStatus(StrEnum):
    """The status a decision is written with (DESIGN §2); `challenged` is also set by challenge."""

    ACTIVE = "active"
    CHALLENGED = "challenged"


#: Why `status: "retracted"` is refused: retraction is its own write (it closes system time).
RETRACTED_IS_NOT_A_STATUS = (
    "status: 'retracted' cannot be written; to retract a memory (we were wrong to record it) "
    "use POST /v1/memories/{memory_id}/retract"
)


def check_decision_status(status: str) -> str:
    """Return `status` when a decision may be written with it.

    Raises:
        InvalidInputError: `retracted` (pointing to `/retract`) or not a `DecisionStatus`.
    """
    if status == "retracted":
        raise InvalidInputError(RETRACTED_IS_NOT_A_STATUS)
    if status not in {s.value for s in DecisionStatus}:
        raise InvalidInputError(f"status: must be one of active, challenged, not {status!r}")
    return status


class StepStatus(StrEnum):
    """Whether a step is asserted, a hypothesis under test, or a hypothesis ruled out."""

    ASSERTED = "asserted"
    HYPOTHESIS = "hypothesis"
    REJECTED = "rejected"


class Severity(StrEnum):
    """How bad a quality issue is: `serious` refuses a trace at the main door, `poor` lowers it."""

    SERIOUS = "serious"
    POOR = "poor"


class Verdict(StrEnum):
    """The quality gate's verdict on a trace."""

    ACCEPTED = "accepted"
    POOR = "poor"
    REJECTED = "rejected"


class Change(StrEnum):
    """How a cited piece of evidence changed since it was cited."""

    INVALIDATED = "invalidated"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"


@dataclass(frozen=True)
class Writer:
    """Who writes: the tenant, the door (origin) and the actor's name."""

    namespace: str
    origin: str
    actor: str


@dataclass(frozen=True)
class NewMemory:
    """A memory a client asks to create (`POST /v1/memories`); times timezone-aware UTC.

    Attributes:
        kind: a writable `Kind` value (not `reasoning`).
        content: the text, cleaned and checked by the store.
        subject: with `attribute`, a fact's key; both or neither.
        metadata: a JSON object, stored as JSON text.
    """

    kind: str
    content: str
    subject: str | None = None
    attribute: str | None = None
    confidence: float | None = None
    status: str | None = None
    trigger: str | None = None
    metadata: dict[str, Any] | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    episode: str | None = None
    position: int | None = None
    context: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Who wrote a version: the door (`origin`) and the actor's free-form name."""

    origin: str
    actor: str


@dataclass(frozen=True)
class StepDraft:
    """One step of a trace before it is stored.

    Attributes:
        kind: a `StepKind` value.
        content: the step's text (NFC-normalised by the caller).
        status: a `StepStatus` value; `hypothesis` for a guess under test.
        rejects: 0-based indexes of earlier steps this step rules out.
        cites: references to evidence: a stored `memory_id`, or, inside ingestion, a local
            reference `"obs:<i>"` to the i-th observation of the same unit.
    """

    kind: str
    content: str
    status: str = StepStatus.ASSERTED
    rejects: tuple[int, ...] = ()
    cites: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProducedDraft:
    """The memory a trace produces, created in the same transaction as the trace."""

    kind: str
    content: str
    confidence: float | None = None
    subject: str | None = None
    attribute: str | None = None
    status: str | None = None
    #: When it became true (timezone-aware UTC); None: when the reasoning happened.
    valid_from: datetime | None = None


@dataclass(frozen=True)
class TraceDraft:
    """A reasoning trace before it is stored (input of the quality gate and of the store).

    Attributes:
        task: what the reasoning served.
        steps: the ordered steps, index = position.
        produced: a new memory the trace creates and `PRODUCED`, if any.
        produced_memory_id: an existing memory the trace `PRODUCED`, if any.
    """

    task: str
    steps: tuple[StepDraft, ...]
    produced: ProducedDraft | None = None
    produced_memory_id: str | None = None


@dataclass(frozen=True)
class QualityIssue:
    """One finding of the quality gate.

    Attributes:
        code: stable code (`missing_conclusion`, `circular`, `unsupported_conclusion`,
            `concludes_rejected`, `contradicts_evidence`, `repetitive`, `too_short`).
        severity: a `Severity` value.
        step: 0-based index of the step concerned, or None for the trace as a whole.
        message: a human-readable sentence.
    """

    code: str
    severity: str
    step: int | None
    message: str


@dataclass(frozen=True)
class Assessment:
    """The quality gate's answer: score in [0, 1], verdict and issues."""

    score: float
    verdict: str
    issues: tuple[QualityIssue, ...] = ()

    @property
    def serious(self) -> bool:
        """Return True when any issue is serious."""
        return any(i.severity == Severity.SERIOUS for i in self.issues)

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON shape `{score, verdict, issues[{code, severity, step, message}]}`."""
        return {
            "score": self.score,
            "verdict": self.verdict,
            "issues": [
                {"code": i.code, "severity": i.severity, "step": i.step, "message": i.message}
                for i in self.issues
            ],
        }


@dataclass(frozen=True)
class IngestUnit:
    """One unit of handed-in material: its own transaction, its own line in the report.

    Attributes:
        key: stable identifier of the unit within its source (e.g. `"episode-12"`).
        title: short human label for reports.
        observations: texts that become `:Observation` memories (cited as `"obs:<i>"`).
        trace: the reasoning drawn out of the unit, if any; its steps may cite `"obs:<i>"`.
        valid_from: when the material says this happened, if it says (UTC-aware).
        supersedes: names (e.g. ADR file stems or numbers) of decisions this unit's decision
            supersedes; resolved against other units of the same namespace.
        superseded_by: names of decisions that supersede this unit's decision.
        name: this unit's own name for `supersedes` resolution (e.g. the ADR's file stem).
    """

    key: str
    title: str
    observations: tuple[str, ...] = ()
    trace: TraceDraft | None = None
    valid_from: datetime | None = None
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
