"""Typed rows at the graph boundary: stored memories, traces, steps and citations as frozen records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

#: A memory's period bounds. Reads that return many memories (`retrieval/list_hits`,
#: `reasoning/get_traces`) send them as UTC ISO-8601 text: the driver's own DateTime hydration
#: (pure Python) cost ~0.1 ms a value, most of those queries' client time.
PERIOD_FIELDS = ("valid_from", "valid_to", "system_from", "system_to")


def with_instants(props: dict[str, Any]) -> dict[str, Any]:
    """Return a memory map with its period bounds sent as text parsed back to datetimes.

    Args:
        props: a memory map; each of `PERIOD_FIELDS` is UTC ISO-8601 text, a datetime, None,
            or (not a zoned datetime in the store) whatever the driver gave.

    Returns:
        `props`, each ISO text bound replaced by its timezone-aware UTC `datetime`
        (microseconds, truncated like the driver's `to_native`); other values as they were.
    """
    for name in PERIOD_FIELDS:
        value = props.get(name)
        if isinstance(value, str):
            try:
                props[name] = datetime.fromisoformat(value)
            except ValueError:
                continue
    return props


@dataclass(frozen=True)
class MemoryRecord:
    """One stored `:Memory` version, as `RETURN m {.*, embedding: null} AS memory` gives it.

    Times are timezone-aware UTC datetimes; `embedding` is never read back. Properties that only
    some writers set (ingestion's `adr_*`, maintenance's `drift_evidence`, a trace's
    `self_assessment_json`, ...) are kept in `extra`, by name.

    Attributes:
        uid: this version's node id.
        memory_id: stable across versions.
        version: 1, 2, ...
        kind: a `Kind` value.
        extra: the remaining stored properties, by name.
    """

    uid: str
    namespace: str
    memory_id: str
    version: int
    kind: str
    content: str
    valid_from: datetime
    system_from: datetime
    valid_to: datetime | None = None
    system_to: datetime | None = None
    content_norm: str | None = None
    subject: str | None = None
    attribute: str | None = None
    confidence: float | None = None
    status: str | None = None
    trigger: str | None = None
    metadata_json: str | None = None
    created_by_origin: str | None = None
    created_by_actor: str | None = None
    last_modified_by_origin: str | None = None
    last_modified_by_actor: str | None = None
    task_text: str | None = None
    conclusion: str | None = None
    quality_score: float | None = None
    quality_issues: tuple[str, ...] | None = None
    quality_verdict: str | None = None
    quality_json: str | None = None
    step_count: int | None = None
    source_id: str | None = None
    episode: str | None = None
    position: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> MemoryRecord:
        """Map a memory's property map (native values; period bounds may be ISO text) to a record.

        Raises:
            TypeError: a required property (`uid`, `memory_id`, `version`, ...) is missing.
        """
        known = _MEMORY_FIELDS
        values = with_instants({k: v for k, v in props.items() if k in known})
        if values.get("quality_issues") is not None:
            values["quality_issues"] = tuple(values["quality_issues"])
        extra = {k: v for k, v in props.items() if k not in known and k != "embedding"}
        return cls(**values, extra=extra)

    def stored(self, name: str) -> Any:
        """Return a stored property by name (a field, else `extra`, else None)."""
        if name in _MEMORY_FIELDS:
            value = getattr(self, name)
            return list(value) if isinstance(value, tuple) else value
        return self.extra.get(name)


_MEMORY_FIELDS = frozenset(f.name for f in fields(MemoryRecord)) - {"extra"}


@dataclass(frozen=True)
class CiteRecord:
    """A cited memory version, with whether it still holds (`reasoning/get_traces`'s `cites`).

    Attributes:
        content: the cited version's text, or None when `hidden`.
        change: `invalidated`, `superseded`, `retracted`, or None while it holds.
        changed_at: when it changed (timezone-aware UTC datetime), or None: for an
            invalidation the end of its valid time, which may lie before the trace.
        recorded_at: when the change was recorded (system time), or None: a step is to revisit
            when its evidence changed after the trace was recorded (trial 24: evidence
            invalidated later with an earlier `valid_to` was "nothing to revisit").
        hidden: True when the cited memory's origin is not visible to the read (its content is
            left out; id, version, kind and whether it holds remain).
    """

    memory_id: str
    version: int
    content: str | None
    kind: str | None
    still_valid: bool
    change: str | None
    changed_at: datetime | None
    hidden: bool = False
    recorded_at: datetime | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> CiteRecord:
        """Map one `cites` map of `reasoning/get_traces`."""
        return cls(
            memory_id=row["memory_id"],
            version=row["version"],
            content=row.get("content"),
            kind=row.get("kind"),
            still_valid=bool(row["still_valid"]),
            change=row.get("change"),
            changed_at=row.get("changed_at"),
            hidden=bool(row.get("hidden", False)),
            recorded_at=row.get("recorded_at"),
        )


@dataclass(frozen=True)
class StepRecord:
    """One stored `:ReasoningStep` with its rejections and citations, in trace order.

    Attributes:
        index: 0-based position in the trace.
        rejected_by: index of the first later step that rules this one out, or None.
        rejects: indexes of the earlier steps this one rules out.
    """

    index: int
    kind: str
    content: str
    status: str
    rejected_by: int | None
    rejects: tuple[int, ...]
    cites: tuple[CiteRecord, ...]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> StepRecord:
        """Map one `steps` map of `reasoning/get_traces`."""
        return cls(
            index=row["index"],
            kind=row["kind"],
            content=row["content"],
            status=row["status"],
            rejected_by=row.get("rejected_by"),
            rejects=tuple(row.get("rejects") or ()),
            cites=tuple(CiteRecord.from_row(c) for c in row.get("cites") or () if c is not None),
        )


@dataclass(frozen=True)
class TraceRecord:
    """A stored trace: its node, task text, steps in order and the memory versions it produced."""

    trace: MemoryRecord
    task: str | None
    steps: tuple[StepRecord, ...]
    produced: tuple[MemoryRecord, ...]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> TraceRecord:
        """Map the row of `reasoning/get_traces` (columns `trace`, `task`, `steps`, `produced`)."""
        return cls(
            trace=MemoryRecord.from_props(row["trace"]),
            task=row.get("task"),
            steps=tuple(StepRecord.from_row(s) for s in row["steps"] if s is not None),
            produced=tuple(MemoryRecord.from_props(p) for p in row["produced"]),
        )


@dataclass(frozen=True)
class CitedMemory:
    """The last version of a memory a new trace or outcome cites (`reasoning/get_cited_memories`).

    `current` False: it cannot be cited, because it was retracted (`retracted`; `replaced_by`
    names the memory whose new value of the same key from the same valid time corrected it,
    None for a retraction), or, when not, because a concurrent update closed it and its
    successor is not visible yet.
    """

    memory_id: str
    uid: str
    version: int
    content: str
    kind: str
    current: bool = True
    retracted: bool = False
    replaced_by: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> CitedMemory:
        """Map one row of `reasoning/get_cited_memories`."""
        return cls(
            memory_id=row["memory_id"],
            uid=row["uid"],
            version=row["version"],
            content=row["content"],
            kind=row["kind"],
            current=bool(row.get("current", True)),
            retracted=bool(row.get("retracted", False)),
            replaced_by=row.get("replaced_by"),
        )


@dataclass(frozen=True)
class DependentRecord:
    """A current memory produced by reasoning that cites some memory, with those traces' ids."""

    memory: MemoryRecord
    trace_ids: tuple[str, ...]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> DependentRecord:
        """Map one row of `reasoning/list_dependents` (columns `memory`, `trace_ids`)."""
        return cls(MemoryRecord.from_props(row["memory"]), tuple(row["trace_ids"]))
