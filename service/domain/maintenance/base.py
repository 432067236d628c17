"""The maintenance job framework: the job base class, its report, its thresholds, its wording."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from service.domain.memories import MemoryService, Writer
from service.domain.policy import VisibilityPolicy
from service.domain.reasoning import ReasoningService
from service.graph.repository import Graph
from service.origins import Origin

#: Longest excerpt of a memory quoted in a maintenance trace, in characters.
EXCERPT_CHARS = 200


def excerpt(text: str) -> str:
    """Return `text` with white space collapsed, cut to `EXCERPT_CHARS` characters (with "…")."""
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def fmt_confidence(value: float) -> str:
    """Return a confidence for a sentence: up to 3 decimals, no trailing zeros (`"0.75"`)."""
    return f"{value:.3f}".rstrip("0").rstrip(".") if value else "0"


@dataclass(frozen=True)
class JobReport:
    """What one run of one job did (the answer of `POST /v1/maintenance/run`).

    Attributes:
        job: the job's name.
        namespace: where it ran.
        examined: memories looked at (decisions for evidence-drift, facts for the others).
        changed: writes made: new decision versions, or new proposal traces.
        memory_ids: the memories those writes concern, sorted.
        trace_ids: the maintenance traces recorded, in order.
    """

    job: str
    namespace: str
    examined: int
    changed: int
    memory_ids: tuple[str, ...] = ()
    trace_ids: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON shape `{job, examined, changed, memory_ids, trace_ids}`."""
        return {
            "job": self.job,
            "examined": self.examined,
            "changed": self.changed,
            "memory_ids": list(self.memory_ids),
            "trace_ids": list(self.trace_ids),
        }


@dataclass(frozen=True)
class MaintenanceConfig:
    """Thresholds of the jobs (documented on the job classes).

    Attributes:
        duplicate_similarity: raw cosine from which two facts are duplicate candidates
            (`settings.duplicate_similarity`).
        opposition_similarity: raw cosine from which two same-subject facts with opposite
            polarity are contradiction candidates.
        max_edits: most edits between two normalised key parts that differ only in spelling.
        min_edit_chars: edits count only when both normalised parts are at least this long.
        pair_block: rows of the similarity matrix computed at once (memory: pair_block x n floats).
    """

    duplicate_similarity: float = 0.92
    opposition_similarity: float = 0.85
    max_edits: int = 2
    min_edit_chars: int = 6
    pair_block: int = 1024


class MaintenanceJob(ABC):
    """One maintenance job: a name, a run on one namespace, a report.

    A job runs on one namespace and returns a `JobReport`. Every write goes through
    `Writer(namespace, "maintenance", "job:<name>")`: a new version of a user's decision keeps
    its `created_by_*` (copied by `MemoryService.version_in`), so the decision stays in recall;
    the job's own traces are created by `maintenance` and so are searchable, labelled in lineage
    and silent in recall (the visibility policy decides that, not the job).

    Jobs are idempotent: a second run with nothing new changes nothing. Each write (a version
    and the trace that produced it, or a proposal trace and its key) is one transaction.
    Maintenance traces are recorded with `ReasoningService.record_in(..., gate=False)`: they
    carry the gate's assessment but are never refused; they are still well-formed (observation
    steps citing the evidence, a thought giving the rule, a conclusion).

    Jobs only read memories and traces created through the origins
    `VisibilityPolicy.maintenance_inputs()` names (`self.inputs()`): maintenance never acts on
    maintenance output, so no job feeds on another's speculation.

    Args:
        graph: the query runner.
        memories: the memory store (versions keep `created_by_*`).
        reasoning: the trace store (`record_in`, `lineage`).
        policy: the visibility policy (which origins the job takes as input).
        config: thresholds.
    """

    name: ClassVar[str]
    summary: ClassVar[str]

    def __init__(
        self,
        graph: Graph,
        memories: MemoryService,
        reasoning: ReasoningService,
        policy: VisibilityPolicy,
        config: MaintenanceConfig,
    ) -> None:
        self.graph = graph
        self.memories = memories
        self.reasoning = reasoning
        self.policy = policy
        self.config = config

    def inputs(self) -> list[str]:
        """Return the origins whose memories and traces the job reads and acts on (the policy's)."""
        return self.policy.maintenance_inputs()

    def writer(self, namespace: str) -> Writer:
        """Return the job's writer: origin `maintenance`, actor `job:<name>`."""
        return Writer(namespace=namespace, origin=Origin.MAINTENANCE, actor=f"job:{self.name}")

    @abstractmethod
    def run(self, namespace: str) -> JobReport:
        """Run once on `namespace` and report; a second run with nothing new changes nothing.

        Raises:
            GraphUnavailableError: Neo4j is unreachable.
        """
