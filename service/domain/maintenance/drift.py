"""The evidence-drift job: lower a decision's confidence when the evidence it rests on changed."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service.domain.maintenance.base import JobReport, MaintenanceJob, excerpt, fmt_confidence
from service.domain.memories import iso_utc, utcnow
from service.domain.models import StepDraft, StepKind, TraceDraft
from service.errors import (
    ConflictError,
    MemoryNotFound,
    MissingReference,
    RationaleError,
    VersionConflict,
)
from service.graph.query_names import QueryName
from service.graph.repository import Row, Tx

log = logging.getLogger(__name__)

#: Share of the confidence removed when every cited piece of evidence changed.
DRIFT_WEIGHT = 0.5


@dataclass
class _Cited:
    """One cited evidence version, with where it was cited and whether it changed since."""

    memory_id: str
    version: int
    content: str
    change: str | None = None
    changed_at: datetime | None = None
    cited_by: list[tuple[str, int]] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.memory_id}@{self.version}"


@dataclass(frozen=True)
class _Drift:
    decision: Row
    trace_ids: tuple[str, ...]
    total: int
    changed: tuple[_Cited, ...]
    accounted: tuple[str, ...]
    old: float
    new: float


class EvidenceDrift(MaintenanceJob):
    """Lower the confidence of decisions whose cited evidence changed.

    For every current decision (created through an origin of `inputs()`, still valid, status
    not `retracted`) the job reads its lineage (`ReasoningService.lineage`) and keeps the traces
    created through `inputs()` that PRODUCED any of its versions. Their cited evidence is
    counted by exact version, as the key `memory_id@version`; a cite of the decision itself is not
    evidence. A key *changed* when `get_traces`'s change logic marks it `invalidated`,
    `superseded` or `retracted` at or after the citing trace was recorded (the rule of
    challenge). Keys already accounted for are those listed in `drift_evidence` on any
    version of the decision. With `total` distinct cited keys and `k` changed keys not yet
    accounted for (k > 0)::

        new confidence = round(old * (1 - 0.5 * k / total), 3)      (old = 1.0 when absent)

    so evidence that all changed at once halves the confidence, and each cited version lowers
    it once, whatever happens to it later. The job writes a new version of the decision
    (`confidence`, `drift_evidence` = accounted + new keys; `status` and content unchanged;
    `last_modified_by` = maintenance/job:evidence-drift) and, in the same transaction, a
    maintenance trace that PRODUCED that version. The trace's steps: the decision and the
    reasoning it rests on (citing those traces), one observation per changed piece of
    evidence saying what changed and when, the rule with its numbers, the conclusion.

    Citing changed evidence: `reasoning/get_cited_memories` accepts current versions only, so
    an observation cites the evidence's *current* version through the draft (when one exists)
    and, through `maintenance/link_version_citations`, the *exact version* the reasoning
    relied on, even when it was retracted. Lineage therefore shows, on the maintenance step,
    the version that changed (`still_valid: false`, with its change) next to what it is now.
    A decision changed by someone else between the read and the write (`VersionConflict`), or
    whose evidence went away meanwhile (`MissingReference`), is skipped with a warning and
    looked at again by the next run; proposals skip the same way.

    Any new version of cited evidence counts as a change, also one written by maintenance: a
    decision cited by other reasoning, lowered by this job, lowers the decisions that rest on
    it (once per cited version, so this terminates).
    """

    name = "evidence-drift"
    summary = "lower a decision's confidence when the evidence its reasoning cites changed"

    def run(self, namespace: str) -> JobReport:
        """Examine every current decision with cited reasoning; write one version per drift.

        Args:
            namespace: the tenant.

        Returns:
            `examined` decisions, `changed` = decisions given a new version, their ids, and the
            maintenance traces that produced those versions.
        """
        now = utcnow()
        rows = self.graph.run(
            QueryName.MAINTENANCE_LIST_DRIFT_CANDIDATES,
            {"namespace": namespace, "origins": self.inputs(), "now": now},
        )
        changed: list[str] = []
        traces: list[str] = []
        for row in rows:
            drift = self._drift(namespace, row)
            if drift is None:
                continue
            try:
                trace_id = self._apply(namespace, drift)
            except (ConflictError, MissingReference) as exc:  # changed during the run
                log.warning(
                    "%s: skipped decision %s in %s (next run looks again): %s",
                    self.name,
                    row["memory_id"],
                    namespace,
                    exc.message,
                )
                continue
            changed.append(row["memory_id"])
            traces.append(trace_id)
        return JobReport(
            self.name, namespace, len(rows), len(changed), tuple(sorted(changed)), tuple(traces)
        )

    def _drift(self, namespace: str, row: Row) -> _Drift | None:
        decision_id = row["memory_id"]
        try:
            lineage = self.reasoning.lineage(namespace, decision_id)
        except MemoryNotFound:
            return None
        inputs = set(self.inputs())
        producing = [t for t in lineage.traces if t.created_by.origin in inputs]
        cited: dict[str, _Cited] = {}
        for trace in producing:
            for step in trace.steps:
                for cite in step.cites:
                    if cite.memory_id == decision_id:
                        continue
                    item = cited.setdefault(
                        f"{cite.memory_id}@{cite.version}",
                        _Cited(cite.memory_id, cite.version, cite.content or ""),
                    )
                    item.cited_by.append((trace.trace_id, step.index))
                    since = cite.recorded_at is None or cite.recorded_at >= trace.system_from
                    if cite.change is not None and since and item.change is None:
                        item.change, item.changed_at = cite.change, cite.changed_at
        accounted = set(row["accounted"] or ())
        fresh = tuple(
            c for k, c in sorted(cited.items()) if c.change is not None and k not in accounted
        )
        if not fresh:
            return None
        old = 1.0 if row["confidence"] is None else float(row["confidence"])
        new = round(old * (1 - DRIFT_WEIGHT * len(fresh) / len(cited)), 3)
        return _Drift(
            decision=row,
            trace_ids=tuple(t.trace_id for t in producing),
            total=len(cited),
            changed=fresh,
            accounted=tuple(sorted(accounted | {c.key for c in fresh})),
            old=old,
            new=new,
        )

    def _describe(self, namespace: str, cite: _Cited) -> tuple[str, tuple[str, ...]]:
        """Return an observation's text about one changed piece of evidence, and its draft cites."""
        where = ", ".join(f"step {step} of trace {trace}" for trace, step in cite.cited_by)
        when = iso_utc(cite.changed_at) if cite.changed_at else "an unknown time"
        text = (
            f"Evidence {cite.memory_id} version {cite.version} ('{excerpt(cite.content)}'), "
            f"cited by {where}, was {cite.change} at {when}"
        )
        try:
            current = self.memories.get(namespace, cite.memory_id)
        except MemoryNotFound:
            return (
                text
                + "; it has no current version (retracted), so only that exact version is cited.",
                (),
            )
        text += f"; its current version {current.version} reads '{excerpt(current.content)}'"
        if current.valid_to is not None:
            text += f" and stopped being true at {iso_utc(current.valid_to)}"
        return text + ".", (cite.memory_id,)

    def _draft(self, namespace: str, drift: _Drift) -> tuple[TraceDraft, list[dict[str, Any]]]:
        d = drift.decision
        old, new = fmt_confidence(drift.old), fmt_confidence(drift.new)
        k, total = len(drift.changed), drift.total
        steps = [
            StepDraft(
                kind=StepKind.OBSERVATION,
                content=(
                    f"Decision {d['memory_id']} version {d['version']} (confidence {old}) reads "
                    f"'{excerpt(d['content'])}'. It was produced by reasoning "
                    f"{', '.join(drift.trace_ids)}, whose steps cite {total} distinct pieces of evidence."
                ),
                cites=drift.trace_ids,
            )
        ]
        pins: list[dict[str, Any]] = []
        for cite in drift.changed:
            text, cites = self._describe(namespace, cite)
            pins.append({"step": len(steps), "memory_id": cite.memory_id, "version": cite.version})
            steps.append(StepDraft(kind=StepKind.OBSERVATION, content=text, cites=cites))
        steps.append(
            StepDraft(
                kind=StepKind.THOUGHT,
                content=(
                    f"{k} of the {total} pieces of evidence the reasoning cites changed since it was "
                    f"recorded. Rule: new confidence = old x (1 - {DRIFT_WEIGHT} x changed / cited) "
                    f"= {old} x (1 - {DRIFT_WEIGHT} x {k}/{total}) = {new}."
                ),
            )
        )
        steps.append(
            StepDraft(
                kind=StepKind.CONCLUSION,
                content=(
                    f"Lower the confidence of decision {d['memory_id']} from {old} to {new}: {k} of "
                    f"the {total} pieces of evidence its reasoning cites changed since it was recorded. "
                    "The decision itself stays as it is; its authors may revisit it."
                ),
            )
        )
        draft = TraceDraft(
            task=f"Evidence drift: does decision {d['memory_id']} ('{excerpt(d['content'])}') still hold?",
            steps=tuple(steps),
            produced_memory_id=d["memory_id"],
        )
        return draft, pins

    def _apply(self, namespace: str, drift: _Drift) -> str:
        writer = self.writer(namespace)
        draft, pins = self._draft(namespace, drift)
        draft = self.reasoning.clean_draft(draft)
        vectors = self.memories.embedder.encode(self.reasoning.embedding_texts(draft))
        now = utcnow()
        decision = drift.decision
        reason = f"evidence drift: {len(drift.changed)} of {drift.total} cited pieces of evidence changed"

        def work(tx: Tx) -> str:
            current = self.memories.current_in(tx, namespace, decision["memory_id"])
            if current.version != decision["version"]:
                raise VersionConflict(
                    f"decision {decision['memory_id']} moved to version {current.version} during the run"
                )
            changes = {"confidence": drift.new, "drift_evidence": list(drift.accounted)}
            self.memories.version_in(tx, current, changes, writer, now, reason=reason)
            # produced_memory_id resolves to the current version: the one just written.
            recorded = self.reasoning.record_in(tx, writer, draft, vectors, now=now, gate=False)
            linked = tx.one(
                QueryName.MAINTENANCE_LINK_VERSION_CITATIONS,
                {"namespace": namespace, "trace_uid": recorded.trace_uid, "cites": pins},
            )
            if linked is None or linked["linked"] != len(pins):
                raise RationaleError(
                    f"{self.name}: cited {linked and linked['linked']} of {len(pins)} versions"
                )
            return recorded.trace_id

        return self.graph.write(work)
