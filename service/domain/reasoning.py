"""Reasoning traces as subgraphs: record (quality-gated), read, lineage, challenge, dependents.

A trace is recorded in one transaction (DESIGN §6): the `:Memory:ReasoningTrace` node, its
`:ReasoningStep`s (`HAS_STEP {index}`, `NEXT`), `REJECTS` from a later step to the hypothesis it
ruled out, `CITES` to the exact version of each cited memory, `SERVED` to a `:Task`, and
`PRODUCED` to the memory it led to. Any missing reference refuses the whole write.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from service.domain.memories import MemoryService, Writer, memory_public, utcnow
from service.domain.models import (
    Assessment,
    Kind,
    ProducedDraft,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
    Verdict,
)
from service.domain.policy import VisibilityPolicy
from service.domain.quality import QualityThresholds, assess
from service.domain.text import check_json, clean_text
from service.errors import (
    InvalidInputError,
    MemoryNotFound,
    MissingReference,
    ReasoningRejected,
    TooLargeError,
    TraceNotFound,
)
from service.graph.repository import Graph, Row, Tx

#: Characters of the trace's searchable `content` (task, steps, conclusion) that are stored.
MAX_TRACE_CONTENT_CHARS = 20_000
CONCLUDING = (StepKind.CONCLUSION, StepKind.DECISION)


def conclusion_of(draft: TraceDraft) -> str | None:
    """Return the trace's conclusion: the last conclusion/decision step, else the produced content."""
    for step in reversed(draft.steps):
        if step.kind in CONCLUDING:
            return step.content
    return draft.produced.content if draft.produced else None


def trace_content(draft: TraceDraft) -> str:
    """Return the trace as one searchable text: task, numbered steps, conclusion (truncated)."""
    lines = [f"Task: {draft.task}"]
    for i, step in enumerate(draft.steps):
        marker = f" [{step.status}]" if step.status != StepStatus.ASSERTED else ""
        lines.append(f"{i}. {step.kind}{marker}: {step.content}")
    conclusion = conclusion_of(draft)
    if conclusion:
        lines.append(f"Conclusion: {conclusion}")
    return "\n".join(lines)[:MAX_TRACE_CONTENT_CHARS]


def trace_public(row: Row) -> dict[str, Any]:
    """Map `reasoning/get_trace`'s row to the public trace shape (DESIGN §8)."""
    t = row["trace"]
    quality = (
        json.loads(t["quality_json"])
        if t.get("quality_json")
        else {
            "score": t.get("quality_score") or 0.0,
            "verdict": t.get("quality_verdict") or "unknown",
            "issues": [],
        }
    )
    return {
        "trace_id": t["memory_id"],
        "uid": t["uid"],
        "kind": "reasoning",
        "task": row.get("task") or t.get("task_text") or "",
        "conclusion": t.get("conclusion"),
        "quality": quality,
        "steps": [s for s in row["steps"] if s is not None],
        "produced": [memory_public(p) for p in row["produced"]],
        "created_by": {
            "origin": t.get("created_by_origin") or "unknown",
            "actor": t.get("created_by_actor") or "unknown",
        },
        "last_modified_by": {
            "origin": t.get("last_modified_by_origin") or "unknown",
            "actor": t.get("last_modified_by_actor") or "unknown",
        },
        "valid_from": t["valid_from"],
        "valid_to": t.get("valid_to"),
        "system_from": t["system_from"],
        "system_to": t.get("system_to"),
        "source_id": t.get("source_id"),
    }


@dataclass(frozen=True)
class RecordedTrace:
    """What `ReasoningService.record_in` wrote.

    Attributes:
        trace_id: the trace's `memory_id`.
        trace_uid: the trace node's `uid`.
        assessment: the quality assessment stored with it.
        produced: the produced memory's stored properties (created or existing), if any.
        produced_created: True when the produced memory was created by this write.
    """

    trace_id: str
    trace_uid: str
    assessment: Assessment
    produced: Row | None
    produced_created: bool


class ReasoningService:
    """Use cases on reasoning traces.

    Args:
        graph: the query runner.
        memories: the memory store (produced memories, new versions).
        policy: the visibility policy (lineage origins).
        thresholds: the quality gate's thresholds.
        max_steps: most steps in one trace.
    """

    def __init__(
        self,
        graph: Graph,
        memories: MemoryService,
        policy: VisibilityPolicy,
        thresholds: QualityThresholds,
        max_steps: int,
    ) -> None:
        self.graph = graph
        self.memories = memories
        self.policy = policy
        self.thresholds = thresholds
        self.max_steps = max_steps

    # -- recording --------------------------------------------------------------------------

    def clean_draft(self, draft: TraceDraft) -> TraceDraft:
        """Validate a draft's shape and normalise its text.

        Raises:
            InvalidInputError: no steps, bad kinds/statuses, a `rejects` index that is not an
                earlier step, both `produced` and `produced_memory_id`.
            TooLargeError: too many steps or a text over the limit.
        """
        limit = self.memories.max_content_chars
        if not draft.steps:
            raise InvalidInputError("steps: a trace needs at least one step")
        if len(draft.steps) > self.max_steps:
            raise TooLargeError(f"steps: {len(draft.steps)} steps, the limit is {self.max_steps}")
        if draft.produced is not None and draft.produced_memory_id is not None:
            raise InvalidInputError("give either produced or produced_memory_id, not both")
        steps = []
        for i, step in enumerate(draft.steps):
            if step.kind not in {k.value for k in StepKind}:
                raise InvalidInputError(f"steps[{i}].kind: unknown step kind {step.kind!r}")
            if step.status not in {s.value for s in StepStatus}:
                raise InvalidInputError(f"steps[{i}].status: unknown status {step.status!r}")
            for j in step.rejects:
                if not 0 <= j < i:
                    raise InvalidInputError(
                        f"steps[{i}].rejects: {j} is not an earlier step (0..{i - 1})",
                        extra={"step": i, "rejects": j},
                    )
            content = clean_text(step.content, field=f"steps[{i}].content", max_chars=limit)
            cites = tuple(
                dict.fromkeys(
                    clean_text(c, field=f"steps[{i}].cites", max_chars=200) for c in step.cites
                )
            )
            steps.append(replace(step, content=content, cites=cites))
        produced = draft.produced
        if produced is not None:
            produced = replace(
                produced,
                content=clean_text(produced.content, field="produced.content", max_chars=limit),
            )
        task = clean_text(draft.task, field="task", max_chars=limit)
        return replace(draft, task=task, steps=tuple(steps), produced=produced)

    def record(
        self,
        writer: Writer,
        draft: TraceDraft,
        *,
        gate: bool = True,
        self_assessment: Mapping[str, Any] | None = None,
        source_id: str | None = None,
        valid_from: datetime | None = None,
        resolve: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Record a trace and what it produced in one transaction.

        Args:
            writer: namespace, door and actor.
            draft: the trace (validated by `clean_draft` here).
            gate: refuse a serious issue or a score under the threshold (the main door); when
                False the assessment is only stored (ingestion's `annotate` policy).
            self_assessment: the agent's own view, stored as given, not trusted.
            source_id: the `:Source` this trace was drawn from, if ingested.
            valid_from: when the reasoning happened (default now).
            resolve: local citation references -> memory_ids (ingestion's `"obs:<i>"`).

        Returns:
            The public trace.

        Raises:
            MissingReference: a cited memory or `produced_memory_id` does not exist (422).
            ReasoningRejected: the gate refused the trace (422, with the assessment).
            InvalidInputError, TooLargeError: see `clean_draft`.
        """
        draft = self.clean_draft(draft)
        if self_assessment is not None:
            check_json(dict(self_assessment), field="self_assessment")
        now = utcnow()
        vectors = self.memories.embedder.encode(self.embedding_texts(draft))

        def work(tx: Tx) -> RecordedTrace:
            return self.record_in(
                tx,
                writer,
                draft,
                vectors,
                now=now,
                gate=gate,
                self_assessment=self_assessment,
                source_id=source_id,
                valid_from=valid_from,
                resolve=resolve,
            )

        recorded = self.graph.write(work)
        return self.get(writer.namespace, recorded.trace_id)

    def embedding_texts(self, draft: TraceDraft) -> list[str]:
        """Return the texts `record_in` needs embedded, in order: the trace, then the produced memory.

        Args:
            draft: a draft already passed through `clean_draft`.

        Returns:
            `[trace content]` or `[trace content, produced content]`.
        """
        return [trace_content(draft)] + ([draft.produced.content] if draft.produced else [])

    def record_in(
        self,
        tx: Tx,
        writer: Writer,
        draft: TraceDraft,
        vectors: Sequence[list[float]],
        *,
        now: datetime,
        gate: bool = True,
        self_assessment: Mapping[str, Any] | None = None,
        source_id: str | None = None,
        valid_from: datetime | None = None,
        resolve: Mapping[str, str] | None = None,
        produced_extra: Mapping[str, Any] | None = None,
    ) -> RecordedTrace:
        """Record a trace and what it produced inside an open write transaction.

        The caller owns the transaction, so it can write more in the same unit (ingestion adds
        the unit's observations before and `EXTRACTED_FROM` links after).

        Args:
            tx: the open write transaction.
            writer: namespace, door and actor.
            draft: the trace, already passed through `clean_draft`.
            vectors: the embeddings of `embedding_texts(draft)`, in that order (each a
                list[float], len == settings.embedding_dim, L2-normalised).
            now: the write's system time (timezone-aware UTC datetime).
            gate: refuse a serious issue or a score under the threshold (see `record`).
            self_assessment: the agent's own view, stored as given.
            source_id: the `:Source` uid this trace was drawn from, if ingested.
            valid_from: when the reasoning happened (default `now`).
            resolve: local citation references -> memory_ids, applied before anything is read.
            produced_extra: extra properties of a newly produced memory (e.g. ingestion's
                `adr_name`); ignored when an equal memory already existed.

        Returns:
            What was written: trace id and uid, assessment, produced memory and whether it
            was created.

        Raises:
            MissingReference: a cited memory or `produced_memory_id` does not exist (422).
            ReasoningRejected: the gate refused the trace (422, with the assessment).
        """
        if resolve:
            draft = replace(
                draft,
                steps=tuple(
                    replace(s, cites=tuple(resolve.get(c, c) for c in s.cites)) for s in draft.steps
                ),
            )
        valid_from = valid_from or now
        content = trace_content(draft)
        produced_props = None
        if draft.produced is not None:
            produced_props = self._produced_props(
                writer, draft.produced, now, vectors[1], valid_from
            )
            if produced_extra:
                produced_props.update(produced_extra)
        cited = self._cited(tx, writer.namespace, draft)
        evidence = {mid: row["content"] for mid, row in cited.items()}
        assessment = assess(draft, self.thresholds, evidence)
        if gate and assessment.verdict == Verdict.REJECTED:
            raise ReasoningRejected(
                "the reasoning did not pass the quality gate: "
                + "; ".join(f"{i.code} ({i.severity})" for i in assessment.issues),
                extra={"quality": assessment.as_dict()},
            )
        produced: Row | None = None
        produced_created = False
        if draft.produced_memory_id is not None:
            target = tx.one(
                "memory/get_memory",
                {
                    "namespace": writer.namespace,
                    "memory_id": draft.produced_memory_id,
                    "as_of": None,
                    "known_at": None,
                },
            )
            if target is None:
                raise MissingReference(
                    f"produced_memory_id {draft.produced_memory_id} does not exist",
                    extra={"missing": [draft.produced_memory_id]},
                )
            produced = target["memory"]
            if produced["kind"] == Kind.REASONING:
                raise InvalidInputError(
                    "produced_memory_id: a trace cannot be produced by another trace"
                )
        elif produced_props is not None:
            produced, produced_created = self.memories.create_in(tx, produced_props, now, writer)
        props = self._trace_props(
            writer,
            draft,
            assessment,
            content,
            vectors[0],
            now,
            valid_from,
            self_assessment,
            source_id,
        )
        trace = tx.one(
            "reasoning/create_trace",
            {"namespace": writer.namespace, "props": props, "task": draft.task, "now": now},
        )
        assert trace is not None
        self._link(tx, writer.namespace, trace["uid"], draft, cited, now, valid_from)
        if produced is not None:
            tx.run(
                "reasoning/link_produced",
                {
                    "namespace": writer.namespace,
                    "trace_uid": trace["uid"],
                    "memory_uid": produced["uid"],
                },
            )
        return RecordedTrace(
            trace_id=trace["memory_id"],
            trace_uid=trace["uid"],
            assessment=assessment,
            produced=produced,
            produced_created=produced_created,
        )

    def _produced_props(
        self,
        writer: Writer,
        produced: ProducedDraft,
        now: datetime,
        vector: list[float],
        valid_from: datetime,
    ) -> dict[str, Any]:
        return self.memories.new_props(
            writer,
            produced.kind,
            produced.content,
            now=now,
            embedding=vector,
            subject=produced.subject,
            attribute=produced.attribute,
            confidence=produced.confidence,
            status=produced.status,
            valid_from=valid_from,
        )

    def _cited(self, tx: Tx, namespace: str, draft: TraceDraft) -> dict[str, Row]:
        wanted = sorted({c for s in draft.steps for c in s.cites})
        if not wanted:
            return {}
        rows = tx.run(
            "reasoning/get_cited_memories", {"namespace": namespace, "memory_ids": wanted}
        )
        found = {r["memory_id"]: r for r in rows}
        missing = [m for m in wanted if m not in found]
        if missing:
            raise MissingReference(
                f"cited memories do not exist: {', '.join(missing)}", extra={"missing": missing}
            )
        return found

    def _trace_props(
        self,
        writer: Writer,
        draft: TraceDraft,
        assessment: Assessment,
        content: str,
        vector: list[float],
        now: datetime,
        valid_from: datetime,
        self_assessment: Mapping[str, Any] | None,
        source_id: str | None,
    ) -> dict[str, Any]:
        props = self.memories.new_props(
            writer, Kind.REASONING, content, now=now, embedding=vector, valid_from=valid_from
        )
        props.update(
            {
                "content_norm": props["content_norm"],
                "task_text": draft.task,
                "conclusion": conclusion_of(draft),
                "quality_score": assessment.score,
                "quality_issues": [i.code for i in assessment.issues],
                "quality_verdict": assessment.verdict,
                "quality_json": json.dumps(assessment.as_dict()),
                "step_count": len(draft.steps),
                "self_assessment_json": json.dumps(self_assessment, allow_nan=False)
                if self_assessment
                else None,
                "source_id": source_id,
            }
        )
        return props

    def _link(
        self,
        tx: Tx,
        namespace: str,
        trace_uid: str,
        draft: TraceDraft,
        cited: Mapping[str, Row],
        now: datetime,
        valid_from: datetime,
    ) -> None:
        rejected = {j for s in draft.steps for j in s.rejects}
        steps = [
            {
                "uid": str(uuid.uuid4()),
                "namespace": namespace,
                "index": i,
                "kind": s.kind,
                "content": s.content,
                "status": StepStatus.REJECTED if i in rejected else s.status,
                "valid_from": valid_from,
                "system_from": now,
            }
            for i, s in enumerate(draft.steps)
        ]
        tx.run(
            "reasoning/create_steps",
            {"namespace": namespace, "trace_uid": trace_uid, "steps": steps},
        )
        pairs = [{"by": i, "rejected": j} for i, s in enumerate(draft.steps) for j in s.rejects]
        if pairs:
            tx.run(
                "reasoning/link_rejections",
                {"namespace": namespace, "trace_uid": trace_uid, "pairs": pairs},
            )
        cites = [
            {"step": i, "uid": cited[c]["uid"]} for i, s in enumerate(draft.steps) for c in s.cites
        ]
        if cites:
            tx.run(
                "reasoning/link_citations",
                {"namespace": namespace, "trace_uid": trace_uid, "cites": cites},
            )

    # -- reading ----------------------------------------------------------------------------

    def get(self, namespace: str, trace_id: str) -> dict[str, Any]:
        """Return one trace with its steps in order.

        Raises:
            TraceNotFound: no such trace in the namespace.
        """
        row = self.graph.one(
            "reasoning/get_trace", {"namespace": namespace, "trace_id": trace_id, "now": utcnow()}
        )
        if row is None:
            raise TraceNotFound(f"reasoning trace {trace_id} not found")
        return trace_public(row)

    def lineage(self, namespace: str, memory_id: str) -> dict[str, Any]:
        """Return `{memory, versions, traces}`: every trace that produced any version.

        Traces are included whatever their origin among the lineage-visible ones (maintenance
        included, labelled by `created_by.origin`).

        Raises:
            MemoryNotFound: no such memory in the namespace.
        """
        versions = self.memories.history(namespace, memory_id)
        current = next((v for v in reversed(versions) if v["system_to"] is None), versions[-1])
        now = utcnow()

        def work(tx: Tx) -> list[dict[str, Any]]:
            ids = tx.run(
                "reasoning/list_lineage_traces",
                {
                    "namespace": namespace,
                    "memory_id": memory_id,
                    "origins": self.policy.origins("lineage"),
                },
            )
            out = []
            for r in ids:
                row = tx.one(
                    "reasoning/get_trace",
                    {"namespace": namespace, "trace_id": r["trace_id"], "now": now},
                )
                if row is not None:
                    out.append(trace_public(row))
            return out

        return {"memory": current, "versions": versions, "traces": self.graph.read(work)}

    def challenge(self, writer: Writer, memory_id: str, reason: str) -> dict[str, Any]:
        """Return lineage plus `revisit`: steps whose cited evidence changed after the trace.

        A decision also becomes `challenged` (a new version, `last_modified_by` the challenger).

        Raises:
            MemoryNotFound: no current version of the memory.
        """
        lineage = self.lineage(writer.namespace, memory_id)
        if lineage["memory"]["system_to"] is not None:
            raise MemoryNotFound(f"memory {memory_id} was retracted; nothing current to challenge")
        revisit = []
        for trace in lineage["traces"]:
            for step in trace["steps"]:
                for cite in step["cites"]:
                    if cite["change"] is not None and (
                        cite["changed_at"] is None or cite["changed_at"] >= trace["system_from"]
                    ):
                        revisit.append(
                            {
                                "trace_id": trace["trace_id"],
                                "step": step["index"],
                                "memory_id": cite["memory_id"],
                                "version": cite["version"],
                                "change": cite["change"],
                                "changed_at": cite["changed_at"],
                            }
                        )
        memory = lineage["memory"]
        if memory["kind"] == Kind.DECISION and memory.get("status") != "challenged":
            now = utcnow()

            def work(tx: Tx) -> Row:
                current = self.memories.current_in(tx, writer.namespace, memory_id)
                return self.memories.version_in(
                    tx,
                    current,
                    {"status": "challenged"},
                    writer,
                    now,
                    reason=f"challenged: {reason}",
                )

            memory = memory_public(self.memories.write_version(work))
            lineage["versions"] = [*lineage["versions"], memory]
        return {**lineage, "memory": memory, "revisit": revisit}

    def dependents(self, namespace: str, memory_id: str) -> list[dict[str, Any]]:
        """Return the current memories produced by reasoning that cites any version of `memory_id`.

        Raises:
            MemoryNotFound: no such memory in the namespace.
        """
        self.memories.history(namespace, memory_id)
        rows = self.graph.run(
            "reasoning/list_dependents",
            {
                "namespace": namespace,
                "memory_id": memory_id,
                "origins": self.policy.origins("lineage"),
            },
        )
        return [{**memory_public(r["memory"]), "trace_ids": r["trace_ids"]} for r in rows]


def draft_from_body(body: Mapping[str, Any]) -> TraceDraft:
    """Build a `TraceDraft` from the `POST /v1/reasoning` body (a `TraceCreate` dump)."""
    steps: Sequence[Mapping[str, Any]] = body["steps"]
    produced = body.get("produced")
    return TraceDraft(
        task=body["task"],
        steps=tuple(
            StepDraft(
                kind=s["kind"],
                content=s["content"],
                status=s.get("status") or StepStatus.ASSERTED,
                rejects=tuple(s.get("rejects") or ()),
                cites=tuple(s.get("cites") or ()),
            )
            for s in steps
        ),
        produced=ProducedDraft(**produced) if produced else None,
        produced_memory_id=body.get("produced_memory_id"),
    )
