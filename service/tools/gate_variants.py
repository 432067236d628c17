"""Broken variants of a reasoning trace, built deterministically, to calibrate the quality gate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from service.domain.models import StepDraft, StepKind, StepStatus, TraceDraft
from service.domain.quality import conclusion_index

#: Variant names in report order; ``original`` is the unbroken trace.
VARIANTS: tuple[str, ...] = ("original", "loop", "no_evidence", "concludes_rejected")


def _rebuild(entries: Sequence[tuple[int | None, StepDraft]]) -> tuple[StepDraft, ...]:
    """Return the steps of `entries`, remapping `rejects` of kept steps to their new indexes.

    Entries with an old index None are new steps whose `rejects` are already new indexes.
    """
    new_index = {old: new for new, (old, _) in enumerate(entries) if old is not None}
    out: list[StepDraft] = []
    for old, step in entries:
        if old is None:
            out.append(step)
        else:
            out.append(
                replace(step, rejects=tuple(new_index[r] for r in step.rejects if r in new_index))
            )
    return tuple(out)


def make_loop(draft: TraceDraft) -> TraceDraft:
    """Return a copy of the trace that returns to a thought with no observation in between.

    Args:
        draft: the original trace.

    Returns:
        The trace with its first asserted ``thought`` step duplicated right after itself, or,
        without such a step, with two identical thoughts restating the task inserted before the
        conclusion (or at the end).
    """
    entries: list[tuple[int | None, StepDraft]] = list(enumerate(draft.steps))
    first = next(
        (
            i
            for i, s in enumerate(draft.steps)
            if s.kind == StepKind.THOUGHT and s.status == StepStatus.ASSERTED and s.content.strip()
        ),
        None,
    )
    if first is not None:
        copy = StepDraft(kind=StepKind.THOUGHT, content=draft.steps[first].content)
        entries.insert(first + 1, (None, copy))
    else:
        at = conclusion_index(draft.steps)
        at = len(entries) if at is None else at
        thought = StepDraft(kind=StepKind.THOUGHT, content=f"Consider the task: {draft.task}")
        entries[at:at] = [(None, thought), (None, thought)]
    return replace(draft, steps=_rebuild(entries))


def make_no_evidence(draft: TraceDraft) -> TraceDraft:
    """Return a copy of the trace without its evidence.

    Args:
        draft: the original trace.

    Returns:
        The trace with every ``observation`` and ``action`` step removed and every cite dropped.
    """
    entries = [
        (i, replace(s, cites=()))
        for i, s in enumerate(draft.steps)
        if s.kind not in (StepKind.OBSERVATION, StepKind.ACTION)
    ]
    return replace(draft, steps=_rebuild(entries))


def make_concludes_rejected(draft: TraceDraft) -> TraceDraft:
    """Return a copy of the trace whose conclusion restates a rejected hypothesis.

    Args:
        draft: the original trace.

    Returns:
        With a rejected hypothesis in the trace (status ``rejected`` or listed in the
        ``rejects`` of a step other than the conclusion, whose own rejections the variant drops;
        the first one with text), the conclusion step and the produced content replaced by that
        hypothesis' text. Otherwise the trace with a ``hypothesis`` step stating its conclusion
        (or produced content) and a step rejecting it inserted before the conclusion, which then
        restates it.
    """
    steps = draft.steps
    conclusion = conclusion_index(steps)
    rejected = sorted(
        {i for i, s in enumerate(steps) if s.status == StepStatus.REJECTED}
        | {
            r
            for k, s in enumerate(steps)
            if k != conclusion
            for r in s.rejects
            if 0 <= r < len(steps)
        }
    )
    rejected = [i for i in rejected if steps[i].content.strip()]
    produced = draft.produced
    if rejected:
        text = steps[rejected[0]].content
        entries: list[tuple[int | None, StepDraft]] = list(enumerate(steps))
        if conclusion is None:
            entries.append((None, StepDraft(kind=StepKind.CONCLUSION, content=text)))
        else:
            entries[conclusion] = (
                conclusion,
                replace(steps[conclusion], content=text, cites=(), rejects=()),
            )
        if produced is not None:
            produced = replace(produced, content=text)
        return replace(draft, steps=_rebuild(entries), produced=produced)

    if conclusion is not None and steps[conclusion].content.strip():
        text = steps[conclusion].content
    elif produced is not None and produced.content.strip():
        text = produced.content
    else:
        text = draft.task
    at = len(steps) if conclusion is None else conclusion
    entries = list(enumerate(steps))
    hypothesis = StepDraft(kind=StepKind.THOUGHT, content=text, status=StepStatus.HYPOTHESIS)
    rejection = StepDraft(
        kind=StepKind.THOUGHT,
        content="Ruled out: the observations so far contradict this hypothesis.",
        rejects=(at,),
    )
    entries[at:at] = [(None, hypothesis), (None, rejection)]
    if conclusion is None:
        entries.append((None, StepDraft(kind=StepKind.CONCLUSION, content=text)))
    return replace(draft, steps=_rebuild(entries))


#: Variant builders by name (the original is the identity); the broken variants:
#:
#: - ``loop``: the first plain ``thought`` step is repeated right after itself, so the trace
#:   returns to it with no observation in between (traces without such a thought get two identical
#:   thoughts restating the task just before the conclusion).
#: - ``no_evidence``: every ``observation`` and ``action`` step is removed and every cite dropped.
#: - ``concludes_rejected``: the conclusion is replaced by a hypothesis that a step rejected (the
#:   conclusion step's content and the produced content become that hypothesis' text). A trace
#:   without a rejected hypothesis first gets one: a ``hypothesis`` step stating its own
#:   conclusion and a step rejecting it are inserted just before the conclusion.
BUILDERS: dict[str, Callable[[TraceDraft], TraceDraft]] = {
    "original": lambda d: d,
    "loop": make_loop,
    "no_evidence": make_no_evidence,
    "concludes_rejected": make_concludes_rejected,
}
