"""A trace before it is stored: built from the request, checked, cleaned; its searchable text and digest."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from service.domain.memories.rows import CLOCK_SKEW, iso_utc, utcnow
from service.domain.models import (
    Assessment,
    DecisionStatus,
    Kind,
    ProducedDraft,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
    Verdict,
)
from service.domain.quality import conclusion_of
from service.domain.text import clean_text, normalise_for_match
from service.errors import InvalidInputError, TooLargeError

#: Characters of the trace's searchable `content` (task, steps, conclusion) that are stored.
MAX_TRACE_CONTENT_CHARS = 20_000


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


def embedding_texts(draft: TraceDraft) -> list[str]:
    """Return the texts a trace's write needs embedded, in order: trace, produced memory, task.

    The task's own embedding (`task_embedding`, vector index `memory_task_embedding`) lets
    retrieval find a trace when a query restates its task, besides the whole text's.

    Args:
        draft: a draft already passed through `clean_draft`.

    Returns:
        `[trace content, task]` or `[trace content, produced content, task]`.
    """
    produced = [draft.produced.content] if draft.produced else []
    return [trace_content(draft), *produced, draft.task]


def clean_draft(draft: TraceDraft, *, max_steps: int, max_chars: int) -> TraceDraft:
    """Validate a draft's shape and normalise its text.

    Args:
        draft: the trace as handed in.
        max_steps: most steps in one trace.
        max_chars: most characters of any one text (task, step, produced content).

    Returns:
        The draft with every text cleaned and repeated citations and rejections dropped (each
        kept once, in order of first appearance).

    Raises:
        InvalidInputError: no steps, bad kinds/statuses, a `rejects` index that is not an
            earlier step, a step marked rejected that no later step rejects, both `produced`
            and `produced_memory_id`, a `produced.valid_from` in the future
            (`check_produced_start`).
        TooLargeError: too many steps or a text over the limit.
    """
    if not draft.steps:
        raise InvalidInputError("steps: a trace needs at least one step")
    if len(draft.steps) > max_steps:
        raise TooLargeError(f"steps: {len(draft.steps)} steps, the limit is {max_steps}")
    if draft.produced is not None and draft.produced_memory_id is not None:
        raise InvalidInputError("give either produced or produced_memory_id, not both")
    rejected = {j for step in draft.steps for j in step.rejects}
    steps = []
    for i, step in enumerate(draft.steps):
        if step.kind not in {k.value for k in StepKind}:
            raise InvalidInputError(f"steps[{i}].kind: unknown step kind {step.kind!r}")
        if step.status not in {s.value for s in StepStatus}:
            raise InvalidInputError(f"steps[{i}].status: unknown status {step.status!r}")
        for j in step.rejects:
            if not 0 <= j < i:
                earlier = f"steps 0 to {i - 1}" if i > 1 else "step 0"
                raise InvalidInputError(
                    f"steps[{i}].rejects: step {i} rejects step {j}, but a step can only reject "
                    + (f"an earlier one ({earlier})" if i else "an earlier one and it has none"),
                    extra={"step": i, "rejects": j},
                )
        if step.status == StepStatus.REJECTED and i not in rejected:
            # Rejected hypotheses come back "rejected by step N" (DESIGN principle 5).
            raise InvalidInputError(
                f"steps[{i}].status: step {i} is marked rejected but no later step rejects it; "
                f"list {i} in the rejecting step's `rejects` (its status then becomes rejected)",
                extra={"step": i},
            )
        content = clean_text(step.content, field=f"steps[{i}].content", max_chars=max_chars)
        cites = tuple(
            dict.fromkeys(
                clean_text(c, field=f"steps[{i}].cites", max_chars=200) for c in step.cites
            )
        )
        rejects = tuple(dict.fromkeys(step.rejects))
        steps.append(replace(step, content=content, cites=cites, rejects=rejects))
    produced = draft.produced
    if produced is not None:
        check_produced_start(produced.valid_from, utcnow())
        produced = replace(
            produced,
            content=clean_text(produced.content, field="produced.content", max_chars=max_chars),
        )
    task = clean_text(draft.task, field="task", max_chars=max_chars)
    return replace(draft, task=task, steps=tuple(steps), produced=produced)


def check_produced_start(valid_from: datetime | None, now: datetime) -> None:
    """Refuse a produced memory's `valid_from` in the future (past `now` plus `CLOCK_SKEW`).

    Reasoning records what it led to once it did: a decision taken, a fact found to hold,
    possibly since before the trace is recorded (trial 24: "PostgreSQL 17 since 2026-12-01",
    recorded on 12-05). A start still to come is not what the reasoning produced.

    Args:
        valid_from: the produced memory's start (timezone-aware UTC), or None (the default).
        now: the server's time (timezone-aware UTC).

    Raises:
        InvalidInputError: `valid_from` is later than `now` plus `CLOCK_SKEW`.
    """
    if valid_from is not None and valid_from > now + CLOCK_SKEW:
        raise InvalidInputError(
            f"produced.valid_from: {iso_utc(valid_from)} is in the future (the server's time is "
            f"{iso_utc(now)}, allowing {CLOCK_SKEW.seconds} s of clock skew); reasoning "
            "records what it led to once it did"
        )


def draft_from_body(body: Mapping[str, Any]) -> TraceDraft:
    """Build a `TraceDraft` from the `POST /v1/reasoning` body (a `TraceCreate` dump).

    Raises:
        InvalidInputError: a step cites `produced_memory_id`, the memory the trace leads to:
            its lineage would rest on itself (DESIGN §6 `circular`: it concludes what it
            assumed). The body names the step and the cite.
    """
    steps: Sequence[Mapping[str, Any]] = body["steps"]
    produced = body.get("produced")
    target = body.get("produced_memory_id")
    for i, s in enumerate(steps):
        if target is not None and target in (s.get("cites") or ()):
            raise InvalidInputError(
                f"steps[{i}].cites: step {i} cites {target}, the memory this trace produces "
                "(produced_memory_id); a decision's reasoning cannot rest on the decision itself",
                extra={"step": i, "cite": target},
            )
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


def trace_digest(
    draft: TraceDraft, produced_id: str | None, cited_versions: Mapping[str, int]
) -> str:
    """Return what makes two traces of equal text the same reasoning, as a hex digest.

    Each step's kind, status, normalised text, cited memories with the version cited (evidence
    changed since is other evidence: reasoning recorded now cites its current version) and
    rejected steps, the task's key and the memory it produced (`produced_id`); with the
    normalised content this is the equality `reasoning/find_equal_trace` compares (BLAKE2b,
    16 bytes).

    Args:
        draft: the trace, citations resolved to memory ids.
        produced_id: the `memory_id` it produced, or None.
        cited_versions: memory id -> the version a step cites (its current one now).
    """
    shape = {
        "task": normalise_for_match(draft.task),
        "steps": [
            [
                s.kind,
                s.status,
                normalise_for_match(s.content),
                sorted(f"{c}@{cited_versions.get(c)}" for c in set(s.cites)),
                sorted(s.rejects),
            ]
            for s in draft.steps
        ],
        "produced": produced_id,
    }
    encoded = json.dumps(shape, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.blake2b(encoded, digest_size=16).hexdigest()


def challenge_if_rejected(produced: dict[str, Any], assessment: Assessment) -> None:
    """Write a decision produced by reasoning the gate rejected as `challenged`, saying why.

    Ingestion keeps rejected traces (`annotate`); the decision such reasoning produced is no
    standing decision (trial 23: "the flag is enabled", concluded against the observation
    that it is disabled, came back first in recall as `active`). Changes `produced` in place:
    `status` `challenged`, `change_reason` naming the gate's issues. Other kinds, and
    reasoning not rejected, are left as they are.

    Args:
        produced: the new produced memory's properties (`MemoryService.new_props`).
        assessment: the trace's quality assessment.
    """
    if assessment.verdict != Verdict.REJECTED or produced.get("kind") != Kind.DECISION:
        return
    codes = ", ".join(dict.fromkeys(i.code for i in assessment.issues))
    produced["status"] = DecisionStatus.CHALLENGED
    produced["change_reason"] = (
        f"challenged: the reasoning that produced it did not pass the quality gate ({codes})"
    )
