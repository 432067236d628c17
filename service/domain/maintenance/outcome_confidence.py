"""The outcome-confidence job: set a decision's confidence from its outcome record (DESIGN §12)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from service.domain.maintenance.base import JobReport, MaintenanceJob, excerpt, fmt_confidence
from service.domain.maintenance.drift import DRIFT_WEIGHT
from service.domain.memories import iso_utc, utcnow
from service.domain.models import StepDraft, StepKind, TraceDraft
from service.domain.outcomes import Outcome, OutcomeRecord, list_outcomes_in, outcome_record
from service.domain.reasoning import Lineage
from service.errors import ConflictError, MemoryNotFound, MissingReference, VersionConflict
from service.graph.query_names import QueryName
from service.graph.repository import Row, Tx

log = logging.getLogger(__name__)


def outcome_mean(record: OutcomeRecord) -> float:
    """Return the posterior mean of the decision's success rate under a uniform prior.

    Prior Beta(1, 1); a success adds 1 to alpha, a failure 1 to beta, a mixed outcome 1/2 to
    each: mean = (1 + s + m/2) / (2 + s + f + m).
    """
    s, f, m = record.successes, record.failures, record.mixed
    return (1 + s + m / 2) / (2 + s + f + m)


def drift_factor(lineage: Lineage, inputs: set[str]) -> tuple[float, int, int]:
    """Return the evidence-drift factor of a decision and its `(changed, cited)` counts.

    The evidence-drift job's counting: the distinct evidence versions (`memory_id@version`, the
    decision itself excluded) cited by the traces created through `inputs` that produced it;
    one *changed* when it was invalidated, superseded or retracted at or after its trace was
    recorded. factor = 1 - DRIFT_WEIGHT x changed / cited (1.0 when nothing is cited).
    """
    decision_id = lineage.memory.memory_id
    cited: dict[str, bool] = {}
    for trace in lineage.traces:
        if trace.created_by.origin not in inputs:
            continue
        for step in trace.steps:
            for cite in step.cites:
                if cite.memory_id == decision_id:
                    continue
                since = cite.recorded_at is None or cite.recorded_at >= trace.system_from
                key = f"{cite.memory_id}@{cite.version}"
                cited[key] = cited.get(key, False) or (cite.change is not None and since)
    if not cited:
        return 1.0, 0, 0
    changed = sum(cited.values())
    return 1 - DRIFT_WEIGHT * changed / len(cited), changed, len(cited)


@dataclass(frozen=True)
class _Plan:
    decision: Row
    outcomes: tuple[Outcome, ...]
    fresh: tuple[Outcome, ...]
    record: OutcomeRecord
    mean: float
    factor: float
    changed: int
    cited: int
    old: float | None
    new: float


class OutcomeConfidence(MaintenanceJob):
    """Set the confidence of decisions from what happened when they were acted on.

    Rule, for every current decision (created through `inputs()`, not retracted, still valid)
    with outcomes recorded through `inputs()`, taking s successes, f failures and m mixed::

        confidence = round(mean x drift, 3)
        mean  = (1 + s + m/2) / (2 + s + f + m)       posterior mean of Beta(1, 1) updated
        drift = 1 - 0.5 x changed / cited              the evidence-drift factor (`drift_factor`)

    The job acts only when some outcome is not yet accounted for: the outcome ids accounted for
    are stored as `outcome_evidence` on the version it writes (and read from every version), so
    a second run changes nothing and a later hand edit of the confidence stands until a new
    outcome arrives. When the rule gives the stored confidence, nothing is written either.
    Otherwise, in one transaction: a new version of the decision (`confidence`,
    `outcome_evidence`; `created_by_*` kept, `last_modified_by` maintenance/job:outcome-confidence)
    and a maintenance trace that PRODUCED it, one observation step per new outcome (citing the
    outcome's observation), the rule with its numbers, and the conclusion. The trace is
    maintenance-authored: in search and lineage, never in recall.
    """

    name = "outcome-confidence"
    summary = "set a decision's confidence from its outcome record (Beta(1,1) mean x drift)"

    def run(self, namespace: str) -> JobReport:
        """Examine every current decision with outcomes; write one version per change.

        Args:
            namespace: the tenant.

        Returns:
            `examined` decisions, `changed` = decisions given a new version, their ids, and the
            maintenance traces that produced those versions.
        """
        rows = self.graph.run(
            QueryName.OUTCOME_LIST_OUTCOME_DECISIONS,
            {"namespace": namespace, "origins": self.inputs(), "now": utcnow()},
        )
        changed: list[str] = []
        traces: list[str] = []
        for row in rows:
            plan = self._plan(namespace, row)
            if plan is None:
                continue
            try:
                traces.append(self._apply(namespace, plan))
            except (ConflictError, MissingReference) as exc:
                log.warning(
                    "%s: skipped decision %s in %s (next run looks again): %s",
                    self.name,
                    row["memory_id"],
                    namespace,
                    exc.message,
                )
                continue
            changed.append(row["memory_id"])
        return JobReport(
            self.name, namespace, len(rows), len(changed), tuple(sorted(changed)), tuple(traces)
        )

    def _plan(self, namespace: str, row: Row) -> _Plan | None:
        inputs = set(self.inputs())
        outcomes = tuple(
            o
            for o in list_outcomes_in(self.graph, namespace, [row["memory_id"]])
            if o.created_by.origin in inputs
        )
        accounted = set(row["accounted"] or ())
        fresh = tuple(o for o in outcomes if o.outcome_id not in accounted)
        if not fresh:
            return None
        try:
            lineage = self.reasoning.lineage(namespace, row["memory_id"])
        except MemoryNotFound:
            return None
        record = outcome_record(outcomes)
        mean = outcome_mean(record)
        factor, changed, cited = drift_factor(lineage, inputs)
        new = round(mean * factor, 3)
        old = None if row["confidence"] is None else float(row["confidence"])
        if old is not None and abs(old - new) < 5e-4:
            return None
        return _Plan(row, outcomes, fresh, record, mean, factor, changed, cited, old, new)

    def _draft(self, plan: _Plan) -> TraceDraft:
        d = plan.decision
        old = "unset" if plan.old is None else fmt_confidence(plan.old)
        new = fmt_confidence(plan.new)
        r = plan.record
        steps = [
            StepDraft(
                kind=StepKind.OBSERVATION,
                content=(
                    f"Decision {d['memory_id']} version {d['version']} (confidence {old}) reads "
                    f"'{excerpt(d['content'])}'. Its outcome record: {r.summary}."
                ),
            )
        ]
        for o in plan.fresh:
            steps.append(
                StepDraft(
                    kind=StepKind.OBSERVATION,
                    content=(
                        f"Outcome {o.outcome_id}: {o.result}, observed {iso_utc(o.observed_at)}, "
                        f"recorded {iso_utc(o.recorded_at)}: '{excerpt(o.content)}'."
                    ),
                    cites=(o.outcome_id,),
                )
            )
        mixed_half = r.mixed / 2
        steps.append(
            StepDraft(
                kind=StepKind.THOUGHT,
                content=(
                    f"Rule: confidence = mean x drift. mean = (1 + successes + mixed/2) / "
                    f"(2 + outcomes) = (1 + {r.successes} + {fmt_confidence(mixed_half)}) / "
                    f"(2 + {r.total}) = {fmt_confidence(round(plan.mean, 3))}; drift = 1 - "
                    f"{DRIFT_WEIGHT} x {plan.changed}/{plan.cited} changed evidence = "
                    f"{fmt_confidence(round(plan.factor, 3))}; confidence = {new}."
                ),
            )
        )
        steps.append(
            StepDraft(
                kind=StepKind.CONCLUSION,
                content=(
                    f"Set the confidence of decision {d['memory_id']} from {old} to {new}: "
                    f"{r.summary} so far. The decision itself stays as it is."
                ),
            )
        )
        return TraceDraft(
            task=(
                f"Outcome confidence: how far do the outcomes of decision {d['memory_id']} "
                f"('{excerpt(d['content'])}') support it?"
            ),
            steps=tuple(steps),
            produced_memory_id=d["memory_id"],
        )

    def _apply(self, namespace: str, plan: _Plan) -> str:
        writer = self.writer(namespace)
        draft = self.reasoning.clean_draft(self._draft(plan))
        vectors = self.memories.embedder.encode(self.reasoning.embedding_texts(draft))
        now = utcnow()
        decision = plan.decision
        accounted = sorted({*(decision["accounted"] or ()), *(o.outcome_id for o in plan.fresh)})
        reason = f"outcome confidence: {plan.record.summary}"

        def work(tx: Tx) -> str:
            current = self.memories.current_in(tx, namespace, decision["memory_id"])
            if current.version != decision["version"]:
                raise VersionConflict(
                    f"decision {decision['memory_id']} moved to version {current.version} during the run"
                )
            changes = {"confidence": plan.new, "outcome_evidence": accounted}
            self.memories.version_in(tx, current, changes, writer, now, reason=reason)
            recorded = self.reasoning.record_in(tx, writer, draft, vectors, now=now, gate=False)
            return recorded.trace_id

        return self.graph.write(work)
