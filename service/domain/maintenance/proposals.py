"""Proposal jobs' framework: the facts they compare and one idempotent proposal trace per pair."""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from service.domain.maintenance.base import JobReport, MaintenanceJob, excerpt
from service.domain.memories import utcnow
from service.domain.models import StepDraft, StepKind, TraceDraft
from service.errors import ConflictError, MissingReference
from service.graph.query_names import QueryName
from service.graph.repository import Tx

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Fact:
    """A current fact as the candidate jobs see it.

    Attributes:
        embedding: list[float], len == settings.embedding_dim, L2-normalised; None if missing.
    """

    memory_id: str
    version: int
    content: str
    subject: str | None = None
    attribute: str | None = None
    embedding: Sequence[float] | None = field(default=None, repr=False, compare=False)

    @property
    def keyed(self) -> bool:
        """True when the fact has a key (subject + attribute)."""
        return self.subject is not None and self.attribute is not None

    def describe(self) -> str:
        """Return `Fact <id> version <n> [(key '<subject>' / '<attribute>')] reads: '<content>'`."""
        key = f" (key '{self.subject}' / '{self.attribute}')" if self.keyed else ""
        return f"Fact {self.memory_id} version {self.version}{key} reads: '{excerpt(self.content)}'"


@dataclass(frozen=True)
class Proposal:
    """A pair of facts a proposal job wants to propose, with the reasons (sentences)."""

    a: Fact
    b: Fact
    reasons: tuple[str, ...]


class ProposalJob(MaintenanceJob):
    """A job that only proposes: one maintenance trace per new pair of facts, nothing changed.

    A proposal trace carries `proposal_key = "<job>:<memory_id a>|<memory_id b>"` (ids
    sorted), set in the trace's transaction and unique per namespace (schema constraint
    `reasoning_trace_proposal_key`): a pair is proposed at most once, whatever its later
    versions say, even when two runs race (the loser gets a conflict and skips).
    """

    @abstractmethod
    def find(self, facts: Sequence[Fact]) -> list[Proposal]:
        """Return the candidate pairs (a.memory_id < b.memory_id), in a stable order."""

    @abstractmethod
    def texts(self, proposal: Proposal) -> tuple[str, str, str]:
        """Return `(task, thought, conclusion)` for a proposal's trace."""

    def run(self, namespace: str) -> JobReport:
        """Propose each new candidate pair once.

        Args:
            namespace: the tenant.

        Returns:
            `examined` current facts, `changed` = proposals recorded, the facts they concern,
            and the proposal traces.
        """
        now = utcnow()
        facts = [
            Fact(**r)
            for r in self.graph.run(
                QueryName.MAINTENANCE_LIST_CURRENT_FACTS,
                {"namespace": namespace, "origins": self.inputs(), "now": now},
            )
        ]
        done = {
            r["proposal_key"]
            for r in self.graph.run(
                QueryName.MAINTENANCE_LIST_PROPOSAL_KEYS,
                {"namespace": namespace, "prefix": f"{self.name}:"},
            )
        }
        memory_ids: set[str] = set()
        traces: list[str] = []
        for proposal in self.find(facts):
            key = f"{self.name}:{proposal.a.memory_id}|{proposal.b.memory_id}"
            if key in done:
                continue
            try:
                traces.append(self._propose(namespace, proposal, key))
            except (ConflictError, MissingReference) as exc:  # raced, or a fact went away
                log.warning(
                    "%s: skipped %s in %s: %s",
                    self.name,
                    key,
                    namespace,
                    exc.message,
                )
                continue
            memory_ids.update((proposal.a.memory_id, proposal.b.memory_id))
        return JobReport(
            self.name, namespace, len(facts), len(traces), tuple(sorted(memory_ids)), tuple(traces)
        )

    def _propose(self, namespace: str, proposal: Proposal, key: str) -> str:
        task, thought, conclusion = self.texts(proposal)
        draft = TraceDraft(
            task=task,
            steps=(
                StepDraft(
                    kind=StepKind.OBSERVATION,
                    content=proposal.a.describe(),
                    cites=(proposal.a.memory_id,),
                ),
                StepDraft(
                    kind=StepKind.OBSERVATION,
                    content=proposal.b.describe(),
                    cites=(proposal.b.memory_id,),
                ),
                StepDraft(kind=StepKind.THOUGHT, content=thought),
                StepDraft(kind=StepKind.CONCLUSION, content=conclusion),
            ),
        )
        draft = self.reasoning.clean_draft(draft)
        vectors = self.memories.embedder.encode(self.reasoning.embedding_texts(draft))
        writer = self.writer(namespace)
        now = utcnow()

        def work(tx: Tx) -> str:
            recorded = self.reasoning.record_in(tx, writer, draft, vectors, now=now, gate=False)
            tx.one(
                QueryName.MAINTENANCE_UPDATE_TRACE_PROPOSAL_KEY,
                {"namespace": namespace, "trace_uid": recorded.trace_uid, "proposal_key": key},
            )
            return recorded.trace_id

        return self.graph.write(work)


def ordered(a: Fact, b: Fact) -> tuple[Fact, Fact]:
    """Return the two facts with the smaller `memory_id` first."""
    return (a, b) if a.memory_id < b.memory_id else (b, a)
