"""The public shapes of traces, lineage, challenges and dependents (DESIGN §8)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from service.domain.memories import Memory, memory_public
from service.domain.memories.public import provenance
from service.domain.models import Provenance
from service.domain.outcomes import Outcome, OutcomeRecord
from service.graph.records import StepRecord, TraceRecord


@dataclass(frozen=True)
class Trace:
    """One reasoning trace as clients see it: quality, steps in order, what it produced.

    Attributes:
        trace_id: the trace's `memory_id`.
        quality: `{score, verdict, issues[{code, severity, step, message}]}` as stored.
        steps: in order; each with its rejections and cited versions (and whether they hold).
        produced: the memory version the trace produced and, when that memory changed since
            (updated, challenged, closed in valid time, retracted), its latest version too,
            oldest first: how what the trace produced stands now.
    """

    trace_id: str
    uid: str
    kind: str
    task: str
    conclusion: str | None
    quality: dict[str, Any]
    steps: tuple[StepRecord, ...]
    produced: tuple[Memory, ...]
    created_by: Provenance
    last_modified_by: Provenance
    valid_from: datetime
    valid_to: datetime | None
    system_from: datetime
    system_to: datetime | None
    source_id: str | None


@dataclass(frozen=True)
class Lineage:
    """A memory's current (else last) version, all its versions and the traces that produced them.

    Attributes:
        outcomes: a decision's outcomes (`HAD_OUTCOME` from any version), oldest observation
            first; empty for other kinds.
        outcome_record: their counts and the last one.
    """

    memory: Memory
    versions: tuple[Memory, ...]
    traces: tuple[Trace, ...]
    outcomes: tuple[Outcome, ...] = ()
    outcome_record: OutcomeRecord = field(default_factory=OutcomeRecord)


@dataclass(frozen=True)
class Revisit:
    """A step whose cited evidence changed after its trace was recorded."""

    trace_id: str
    step: int
    memory_id: str
    version: int
    change: str
    changed_at: datetime | None


@dataclass(frozen=True)
class Challenge(Lineage):
    """Lineage plus the steps to revisit (`POST .../challenge`).

    Attributes:
        revisit: steps whose cited evidence changed after their trace was recorded.
        outcomes_since: the outcomes recorded (system time) after the latest trace not written
            by maintenance that produced the memory (all outcomes when there is none).
    """

    revisit: tuple[Revisit, ...] = ()
    outcomes_since: tuple[Outcome, ...] = ()


@dataclass(frozen=True)
class Dependent(Memory):
    """A current memory produced by reasoning that cites a given memory, with those traces' ids."""

    trace_ids: tuple[str, ...]

    @classmethod
    def of(cls, memory: Memory, trace_ids: tuple[str, ...]) -> Dependent:
        """Return `memory` with `trace_ids` added."""
        values = {f.name: getattr(memory, f.name) for f in fields(Memory)}
        return cls(**values, trace_ids=trace_ids)


def trace_public(record: TraceRecord) -> Trace:
    """Map a stored trace (`reasoning/get_traces`) to its public shape."""
    t = record.trace
    quality = (
        json.loads(t.quality_json)
        if t.quality_json
        else {
            "score": t.quality_score or 0.0,
            "verdict": t.quality_verdict or "unknown",
            "issues": [],
        }
    )
    return Trace(
        trace_id=t.memory_id,
        uid=t.uid,
        kind="reasoning",
        task=record.task or t.task_text or "",
        conclusion=t.conclusion,
        quality=quality,
        steps=record.steps,
        produced=tuple(memory_public(p) for p in record.produced),
        created_by=provenance(t.created_by_origin, t.created_by_actor),
        last_modified_by=provenance(t.last_modified_by_origin, t.last_modified_by_actor),
        valid_from=t.valid_from,
        valid_to=t.valid_to,
        system_from=t.system_from,
        system_to=t.system_to,
        source_id=t.source_id,
    )
