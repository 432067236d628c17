"""Reading reasoning: one trace, a memory's lineage, challenging it, and what depends on it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from service.domain.memories import MemoryService, Writer, iso_utc, utcnow
from service.domain.memories.public import as_believed, memory_public
from service.domain.memories.store import MAX_REASON_CHARS
from service.domain.models import Kind
from service.domain.outcomes import list_outcomes_in, outcome_record
from service.domain.policy import VisibilityPolicy
from service.domain.reasoning.public import (
    Challenge,
    Dependent,
    Lineage,
    Revisit,
    Trace,
    trace_public,
)
from service.domain.text import clean_text
from service.errors import MemoryNotFound, TraceNotFound, echo_id
from service.graph.query_names import QueryName
from service.graph.records import DependentRecord, MemoryRecord, TraceRecord
from service.graph.repository import Graph, Runner, Tx
from service.origins import Origin


def read_traces(
    runner: Runner,
    namespace: str,
    trace_ids: Sequence[str],
    now: datetime,
    origins: Sequence[str],
) -> dict[str, TraceRecord]:
    """Return several whole traces in one round trip (`reasoning/get_traces`), by trace id.

    Each trace comes with its task, steps in order with their rejections and cited versions
    (whether each still holds at `now`), and what it produced. A cited memory created through
    an origin outside `origins` keeps its id, version and kind but not its content
    (`hidden`): a trace the reader may see never carries evidence the reader may not.

    Args:
        runner: a `Graph` or the `Tx` of a unit of work.
        namespace: the tenant.
        trace_ids: the traces' memory ids (repeats and unknown ids are allowed).
        now: the instant cited memories' changes are judged at (timezone-aware UTC).
        origins: the `created_by_origin` values the reader may see
            (`VisibilityPolicy.origins` of its read).

    Returns:
        trace id -> trace; ids with no trace in the namespace are absent.
    """
    if not trace_ids:
        return {}
    rows = runner.run(
        QueryName.REASONING_GET_TRACES,
        {
            "namespace": namespace,
            "trace_ids": list(dict.fromkeys(trace_ids)),
            "now": now,
            "origins": list(origins),
        },
    )
    records = (TraceRecord.from_row(r) for r in rows)
    return {r.trace.memory_id: r for r in records}


class TraceReader:
    """Reads of the trace store (the base of `ReasoningService`).

    Args:
        graph: the query runner.
        memories: the memory store (versions; a challenged decision's new version).
        policy: the visibility policy (lineage origins).
    """

    def __init__(self, graph: Graph, memories: MemoryService, policy: VisibilityPolicy) -> None:
        self.graph = graph
        self.memories = memories
        self.policy = policy

    def get(self, namespace: str, trace_id: str) -> Trace:
        """Return one trace with its steps in order.

        Raises:
            TraceNotFound: no such trace in the namespace.
        """
        record = read_traces(
            self.graph, namespace, [trace_id], utcnow(), self.policy.origins("search")
        ).get(trace_id)
        if record is None:
            raise TraceNotFound(f"reasoning trace {echo_id(trace_id)} not found")
        return trace_public(record)

    def lineage(
        self,
        namespace: str,
        memory_id: str,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> Lineage:
        """Return `{memory, versions, traces, outcomes}`: every trace that produced any version.

        Traces are included whatever their origin among the lineage-visible ones (maintenance
        included, labelled by `created_by.origin`). A decision's outcomes come beside them.
        "What did we believe at `known_at` about the world at `as_of`", as `MemoryService.get`:
        `memory` is the version valid at `as_of` as believed at `known_at`; `versions` (the
        history) and `traces` are what was recorded by `known_at`, whatever their valid time,
        each as believed then (`as_believed`: a close recorded later is left out, and a trace's
        `produced` lists the versions recorded by then).

        Args:
            namespace: the tenant.
            memory_id: the memory.
            as_of: valid time (timezone-aware UTC datetime): `memory` is the version valid
                then, and only outcomes observed by then count; None for the current version
                and every outcome.
            known_at: what was recorded by then (system time): versions, traces and outcomes
                recorded later are left out; None for now.

        Raises:
            MemoryNotFound: no such memory in the namespace, none recorded by `known_at`, none
                believed at `known_at` (retracted or corrected by then: the 404 of GET, saying
                so), or, with `as_of`, no version valid at `as_of` as believed at `known_at`.
        """
        versions = self.memories.history(namespace, memory_id)
        if known_at is not None:
            versions = [v for v in versions if v.system_from <= known_at]
            if not versions:
                raise MemoryNotFound(
                    f"memory {echo_id(memory_id)} was not recorded yet at {iso_utc(known_at)}"
                )
        believed = [
            v
            for v in versions
            if v.system_to is None or (known_at is not None and v.system_to > known_at)
        ]
        # No open version: retracted or corrected, or a concurrent update's new version is not
        # visible yet (read again, as GET does: never a 404 for an existing memory).
        if (
            not believed
            and known_at is None
            and self.memories.find_current_in(self.graph, namespace, memory_id) is not None
        ):
            versions = self.memories.history(namespace, memory_id)
            believed = [v for v in versions if v.system_to is None]
        if not believed:
            # As GET: none believed at known_at (retracted or corrected by then) is a 404.
            raise self.memories.not_found(namespace, memory_id)
        current = believed[-1]
        if as_of is not None:
            current = self.memories.get(namespace, memory_id, as_of, known_at)
        now = utcnow()

        def work(tx: Tx) -> list[Trace]:
            ids = tx.run(
                QueryName.REASONING_LIST_LINEAGE_TRACES,
                {
                    "namespace": namespace,
                    "memory_id": memory_id,
                    "origins": self.policy.origins("lineage"),
                },
            )
            wanted = [
                str(r["trace_id"]) for r in ids if known_at is None or r["system_from"] <= known_at
            ]
            found = read_traces(tx, namespace, wanted, now, self.policy.origins("lineage"))
            return [trace_public(found[t]) for t in wanted if t in found]

        traces = tuple(self.graph.read(work))
        if known_at is not None:  # as believed then: a later close or version is not known yet
            versions = [as_believed(v, known_at) for v in versions]
            current = as_believed(current, known_at)
            traces = tuple(
                replace(
                    t,
                    produced=tuple(
                        as_believed(p, known_at) for p in t.produced if p.system_from <= known_at
                    ),
                )
                for t in traces
            )
        outcomes = (
            tuple(list_outcomes_in(self.graph, namespace, [memory_id], as_of, known_at))
            if current.kind == Kind.DECISION
            else ()
        )
        return Lineage(
            memory=current,
            versions=tuple(versions),
            traces=traces,
            outcomes=outcomes,
            outcome_record=outcome_record(outcomes),
        )

    def challenge(self, writer: Writer, memory_id: str, reason: str) -> Challenge:
        """Return lineage plus `revisit`: steps whose cited evidence changed after the trace.

        A decision also becomes `challenged` (a new version, `last_modified_by` the challenger),
        once: a decision already challenged, also by a challenge racing this one, gets no new
        version (`MemoryVersions.write_racing` runs the write again after a lost race). A
        decision no longer in force (closed in valid time: superseded, rejected, invalidated)
        is not marked either: there is nothing in force to revisit, and its answer says until
        when it held (`memory.valid_to`; trial 22 challenged a superseded ADR into a new
        `challenged` version ending in 2024).

        Raises:
            MemoryNotFound: no current version of the memory.
            InvalidInputError: `reason` is not valid text (`clean_text`: e.g. only white space).
        """
        reason = clean_text(reason, field="reason", max_chars=MAX_REASON_CHARS)
        lineage = self.lineage(writer.namespace, memory_id)  # a retracted memory: its 404
        now = utcnow()
        ended = lineage.memory.valid_to is not None and lineage.memory.valid_to <= now
        if (
            lineage.memory.kind == Kind.DECISION
            and lineage.memory.status != "challenged"
            and not ended
        ):

            def work(tx: Tx) -> MemoryRecord:
                current = self.memories.current_in(tx, writer.namespace, memory_id)
                if current.status == "challenged":  # a concurrent challenge came first
                    return current
                return self.memories.version_in(
                    tx,
                    current,
                    {"status": "challenged"},
                    writer,
                    now,
                    reason=f"challenged: {reason}",
                )

            # No If-Match: a challenge racing another runs again and finds it challenged.
            self.memories.write_racing(work)
            # Read again: the answer shows the memory as it stands after the challenge (the
            # version challenged closed in system time, the traces' produced lists ending
            # with the challenged version), as GET and lineage would.
            lineage = self.lineage(writer.namespace, memory_id)
        revisit = []
        for trace in lineage.traces:
            for step in trace.steps:
                for cite in step.cites:
                    if cite.change is not None and (
                        cite.recorded_at is None or cite.recorded_at >= trace.system_from
                    ):
                        revisit.append(
                            Revisit(
                                trace_id=trace.trace_id,
                                step=step.index,
                                memory_id=cite.memory_id,
                                version=cite.version,
                                change=cite.change,
                                changed_at=cite.changed_at,
                            )
                        )
        reasoned = [
            t.system_from for t in lineage.traces if t.created_by.origin != Origin.MAINTENANCE
        ]
        since = max(reasoned) if reasoned else None
        return Challenge(
            memory=lineage.memory,
            versions=lineage.versions,
            traces=lineage.traces,
            outcomes=lineage.outcomes,
            outcome_record=lineage.outcome_record,
            revisit=tuple(revisit),
            outcomes_since=tuple(
                o for o in lineage.outcomes if since is None or o.recorded_at > since
            ),
        )

    def dependents(self, namespace: str, memory_id: str) -> list[Dependent]:
        """Return the current memories produced by reasoning that cites any version of `memory_id`.

        Raises:
            MemoryNotFound: no such memory in the namespace.
        """
        self.memories.history(namespace, memory_id)
        records = self.graph.mapped(
            QueryName.REASONING_LIST_DEPENDENTS,
            {
                "namespace": namespace,
                "memory_id": memory_id,
                "origins": self.policy.origins("lineage"),
            },
            DependentRecord.from_row,
        )
        return [Dependent.of(memory_public(r.memory), r.trace_ids) for r in records]
