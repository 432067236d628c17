"""Recording a reasoning trace as a subgraph, quality-gated, in one transaction.

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

from service import metrics
from service.domain.memories import MemoryService, Writer, iso_utc, utcnow
from service.domain.memories.cited import cited_memories
from service.domain.memories.locks import lock_contents
from service.domain.memories.reads import retracted_at
from service.domain.models import (
    Assessment,
    Kind,
    ProducedDraft,
    StepStatus,
    TraceDraft,
    Verdict,
)
from service.domain.policy import VisibilityPolicy
from service.domain.quality import QualityThresholds, assess, conclusion_of
from service.domain.reasoning.drafts import (
    challenge_if_rejected,
    clean_draft,
    embedding_texts,
    trace_content,
    trace_digest,
)
from service.domain.reasoning.public import Trace
from service.domain.reasoning.read import TraceReader
from service.domain.text import check_json, normalise_for_match
from service.errors import InvalidInputError, MissingReference, ReasoningRejected, echo_id
from service.graph.query_names import QueryName
from service.graph.records import CitedMemory, MemoryRecord
from service.graph.repository import Graph, Tx
from service.origins import Origin


def task_key(task: str) -> str:
    """Return a `:Task`'s identity within its namespace: its normalised text (`Task.key`).

    Two traces serve the same task when their task texts are equal after NFC, case folding and
    white-space collapsing (`normalise_for_match`); the `task_key` constraint keeps one node.
    """
    return normalise_for_match(task)


@dataclass(frozen=True)
class RecordedTrace:
    """What `ReasoningService.record_in` wrote.

    Attributes:
        trace_id: the trace's `memory_id`.
        trace_uid: the trace node's `uid`.
        assessment: the quality assessment stored with it.
        produced: the produced memory's stored version (created or existing), if any.
        produced_created: True when the produced memory was created by this write.
        created: False when an equal current trace already existed (`trace_digest`): nothing
            was written, the ids are that trace's.
    """

    trace_id: str
    trace_uid: str
    assessment: Assessment
    produced: MemoryRecord | None
    produced_created: bool
    created: bool = True


class ReasoningService(TraceReader):
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
        super().__init__(graph, memories, policy)
        self.thresholds = thresholds
        self.max_steps = max_steps

    # -- recording --------------------------------------------------------------------------

    def clean_draft(self, draft: TraceDraft) -> TraceDraft:
        """Validate a draft's shape and normalise its text (see `drafts.clean_draft`).

        Raises:
            InvalidInputError, TooLargeError: see `drafts.clean_draft`.
        """
        return clean_draft(
            draft, max_steps=self.max_steps, max_chars=self.memories.max_content_chars
        )

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
    ) -> tuple[Trace, bool]:
        """Record a trace and what it produced in one transaction, idempotently.

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
            `(the public trace, created)`; `created` is False when an equal current trace of
            the same origin existed (see `record_in`): nothing was written, it is that trace.

        Raises:
            MissingReference: a cited memory or `produced_memory_id` does not exist or was
                retracted (422).
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
        return self.get(writer.namespace, recorded.trace_id), recorded.created

    def embedding_texts(self, draft: TraceDraft) -> list[str]:
        """Return the texts `record_in` needs embedded, in order (see `drafts.embedding_texts`)."""
        return embedding_texts(draft)

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
        the unit's observations before and `EXTRACTED_FROM` links after). Recording the same
        reasoning again (user and ingestion doors; a maintenance trace records one run's
        action and is always written) writes no second trace: a current trace of the same origin with equal
        normalised content and `trace_digest` (steps, cites, rejections, what it produced) is
        returned instead, `created` False (under the content lock, so concurrent equal writes
        find each other); the same material ingested under another name, or an agent's retry
        without an `Idempotency-Key`, made twin traces before.

        Args:
            tx: the open write transaction.
            writer: namespace, door and actor.
            draft: the trace, already passed through `clean_draft`.
            vectors: the embeddings of `embedding_texts(draft)`, in that order (each a
                list[float], len == the model's `Embedder.dimension`, L2-normalised).
            now: the write's system time (timezone-aware UTC datetime).
            gate: refuse a serious issue or a score under the threshold (see `record`).
                Without it a rejected trace is kept, and a decision it produces anew is
                written `challenged` (its `change_reason` names the gate's issues).
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
            MissingReference: a cited memory or `produced_memory_id` does not exist or was
                retracted (422).
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
        evidence = {mid: c.content for mid, c in cited.items()}
        assessment = assess(draft, self.thresholds, evidence)
        if gate and assessment.verdict == Verdict.REJECTED:
            metrics.gate_refused(issue.code for issue in assessment.issues)
            raise ReasoningRejected(
                "the reasoning did not pass the quality gate: "
                + "; ".join(f"{i.code} ({i.severity})" for i in assessment.issues),
                extra={"quality": assessment.as_dict()},
            )
        if produced_props is not None:
            challenge_if_rejected(produced_props, assessment)
        produced: MemoryRecord | None = None
        produced_created = False
        if draft.produced_memory_id is not None:
            produced, state = self.memories.current_or_state_in(
                tx, writer.namespace, draft.produced_memory_id
            )
            if produced is None:
                closed, why = retracted_at(state), "does not exist"
                if closed is not None:  # as GET's 404: corrected by a new value of its key?
                    by, at = state.get("replaced_by") if state else None, iso_utc(closed)
                    how = f"corrected at {at} by memory {by}" if by else f"retracted at {at}"
                    why = f"was {how}: a trace produces a current memory"
                raise MissingReference(
                    f"produced_memory_id {echo_id(draft.produced_memory_id)} {why}",
                    extra={"missing": [draft.produced_memory_id]},
                )
            if produced.kind == Kind.REASONING:
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
        task_at = 2 if draft.produced else 1
        if len(vectors) > task_at:
            props["task_embedding"] = vectors[task_at]
        props["trace_digest"] = trace_digest(
            draft,
            produced.memory_id if produced else None,
            {mid: c.version for mid, c in cited.items()},
        )
        equal = None
        if writer.origin != Origin.MAINTENANCE:  # a maintenance trace records one run's act
            lock_contents(tx, writer.namespace, [props], now)
            equal = tx.one(
                QueryName.REASONING_FIND_EQUAL_TRACE,
                {
                    "namespace": writer.namespace,
                    "content_norm": props["content_norm"],
                    "origin": writer.origin,
                    "digest": props["trace_digest"],
                    "now": now,
                },
            )
        if equal is not None:
            return RecordedTrace(
                trace_id=str(equal["memory_id"]),
                trace_uid=str(equal["uid"]),
                assessment=assessment,
                produced=produced,
                produced_created=produced_created,
                created=False,
            )
        trace = tx.one(
            QueryName.REASONING_CREATE_TRACE,
            {
                "namespace": writer.namespace,
                "props": props,
                "task": draft.task,
                "task_key": task_key(draft.task),
                "now": now,
            },
        )
        assert trace is not None
        trace_id, trace_uid = str(trace["memory_id"]), str(trace["uid"])
        self._link(tx, writer.namespace, trace_uid, draft, cited, now, valid_from)
        if produced is not None:
            tx.run(
                QueryName.REASONING_LINK_PRODUCED,
                {
                    "namespace": writer.namespace,
                    "trace_uid": trace_uid,
                    "memory_uid": produced.uid,
                },
            )
        return RecordedTrace(
            trace_id=trace_id,
            trace_uid=trace_uid,
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
            valid_from=produced.valid_from or valid_from,
        )

    def _cited(self, tx: Tx, namespace: str, draft: TraceDraft) -> dict[str, CitedMemory]:
        return cited_memories(tx, namespace, sorted({c for s in draft.steps for c in s.cites}))

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
        cited: Mapping[str, CitedMemory],
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
            QueryName.REASONING_CREATE_STEPS,
            {"namespace": namespace, "trace_uid": trace_uid, "steps": steps},
        )
        pairs = [{"by": i, "rejected": j} for i, s in enumerate(draft.steps) for j in s.rejects]
        if pairs:
            tx.run(
                QueryName.REASONING_LINK_REJECTIONS,
                {"namespace": namespace, "trace_uid": trace_uid, "pairs": pairs},
            )
        # Sorted by memory: linking a step locks the cited memory, and concurrent traces citing
        # the same memories in different orders would deadlock (tests/faults/test_citation_locks).
        cites = sorted(
            ({"step": i, "uid": cited[c].uid} for i, s in enumerate(draft.steps) for c in s.cites),
            key=lambda cite: (cite["uid"], cite["step"]),
        )
        if cites:
            tx.run(
                QueryName.REASONING_LINK_CITATIONS,
                {"namespace": namespace, "trace_uid": trace_uid, "cites": cites},
            )
