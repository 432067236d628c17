"""A trace before it is stored: built from the request, checked, cleaned, and its searchable text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from service.domain.models import ProducedDraft, StepDraft, StepKind, StepStatus, TraceDraft
from service.domain.quality import conclusion_of
from service.domain.text import clean_text
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
        The draft with every text cleaned and duplicate citations dropped.

    Raises:
        InvalidInputError: no steps, bad kinds/statuses, a `rejects` index that is not an
            earlier step, both `produced` and `produced_memory_id`.
        TooLargeError: too many steps or a text over the limit.
    """
    if not draft.steps:
        raise InvalidInputError("steps: a trace needs at least one step")
    if len(draft.steps) > max_steps:
        raise TooLargeError(f"steps: {len(draft.steps)} steps, the limit is {max_steps}")
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
                earlier = f"steps 0 to {i - 1}" if i > 1 else "step 0"
                raise InvalidInputError(
                    f"steps[{i}].rejects: step {i} rejects step {j}, but a step can only reject "
                    + (f"an earlier one ({earlier})" if i else "an earlier one and it has none"),
                    extra={"step": i, "rejects": j},
                )
        content = clean_text(step.content, field=f"steps[{i}].content", max_chars=max_chars)
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
            content=clean_text(produced.content, field="produced.content", max_chars=max_chars),
        )
    task = clean_text(draft.task, field="task", max_chars=max_chars)
    return replace(draft, task=task, steps=tuple(steps), produced=produced)


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
