"""The shapes of outcomes: the result enum, one outcome, a decision's outcome record."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from service.domain.memories.public import provenance
from service.domain.models import Provenance
from service.graph.records import MemoryRecord


class OutcomeResult(StrEnum):
    """What happened when a decision was acted on (DESIGN §12)."""

    SUCCESS = "success"
    FAILURE = "failure"
    MIXED = "mixed"


#: Results that challenge an active decision (a new `challenged` version).
CHALLENGING: frozenset[str] = frozenset({OutcomeResult.FAILURE, OutcomeResult.MIXED})


@dataclass(frozen=True)
class NewOutcome:
    """An outcome a client records on a decision; times timezone-aware UTC.

    Attributes:
        result: an `OutcomeResult` value.
        content: what was observed (stored as the `:Observation`'s content).
        observed_at: when it was observed (the observation's valid time); default now.
        cites: memory_ids of evidence of the outcome (e.g. the CI log of the failing run).
    """

    result: str
    content: str
    observed_at: datetime | None = None
    cites: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """One outcome of a decision: the observation and its `HAD_OUTCOME {result}` link.

    Attributes:
        outcome_id: the observation's `memory_id`.
        decision_id: the decision's `memory_id`.
        decision_version: the decision version that was current when the outcome was recorded
            (the `HAD_OUTCOME` edge starts there).
        result: an `OutcomeResult` value.
        observed_at: valid time of the observation (timezone-aware UTC datetime).
        recorded_at: system time the outcome was recorded (timezone-aware UTC datetime).
        cites: memory_ids the observation cites as evidence.
    """

    outcome_id: str
    uid: str
    decision_id: str
    decision_version: int
    result: str
    content: str
    observed_at: datetime
    recorded_at: datetime
    created_by: Provenance
    last_modified_by: Provenance
    cites: tuple[str, ...]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Outcome:
        """Map one row of `outcome/list_outcomes` (decision, result, recorded_at, observation)."""
        o = MemoryRecord.from_props(row["observation"])
        return cls(
            outcome_id=o.memory_id,
            uid=o.uid,
            decision_id=row["decision_id"],
            decision_version=int(row["decision_version"]),
            result=row["result"],
            content=o.content,
            observed_at=o.valid_from,
            recorded_at=row["recorded_at"],
            created_by=provenance(o.created_by_origin, o.created_by_actor),
            last_modified_by=provenance(o.last_modified_by_origin, o.last_modified_by_actor),
            cites=tuple(row.get("cites") or ()),
        )


@dataclass(frozen=True)
class OutcomeRecord:
    """A decision's outcome record: counts per result and the last outcome.

    Attributes:
        successes, failures, mixed: counts.
        last_result: the result of the latest outcome by observed time, or None.
        last_observed_at: when it was observed (timezone-aware UTC datetime), or None.
        summary: e.g. `"1 success, 1 failure"` (`"no outcome"` when empty).
    """

    successes: int = 0
    failures: int = 0
    mixed: int = 0
    last_result: str | None = None
    last_observed_at: datetime | None = None
    summary: str = "no outcome"

    @property
    def total(self) -> int:
        """Return how many outcomes the record holds."""
        return self.successes + self.failures + self.mixed


def _plural(n: int, word: str, many: str) -> str:
    return f"{n} {word if n == 1 else many}"


def outcome_record(outcomes: Iterable[Outcome]) -> OutcomeRecord:
    """Summarise outcomes (any order) into counts, the last one and a short sentence.

    Returns:
        The record; `summary` lists non-zero counts as "1 success, 2 failures, 1 mixed".
    """
    items = sorted(outcomes, key=lambda o: (o.observed_at, o.recorded_at))
    if not items:
        return OutcomeRecord()
    s = sum(1 for o in items if o.result == OutcomeResult.SUCCESS)
    f = sum(1 for o in items if o.result == OutcomeResult.FAILURE)
    m = sum(1 for o in items if o.result == OutcomeResult.MIXED)
    parts = []
    if s:
        parts.append(_plural(s, "success", "successes"))
    if f:
        parts.append(_plural(f, "failure", "failures"))
    if m:
        parts.append(f"{m} mixed")
    return OutcomeRecord(
        successes=s,
        failures=f,
        mixed=m,
        last_result=items[-1].result,
        last_observed_at=items[-1].observed_at,
        summary=", ".join(parts),
    )
