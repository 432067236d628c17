"""Which step of a trace is its conclusion: the one definition the gate, the store and tools share."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.models import StepDraft, StepKind, TraceDraft

#: Step kinds that conclude a trace.
CONCLUDING: frozenset[StepKind] = frozenset({StepKind.CONCLUSION, StepKind.DECISION})


def conclusion_index(steps: Sequence[StepDraft]) -> int | None:
    """Return the index of the conclusion step: the last step of kind conclusion or decision.

    Args:
        steps: a trace's steps in order (index = position).

    Returns:
        The 0-based index, or None when no step concludes.
    """
    index = None
    for i, step in enumerate(steps):
        if step.kind in CONCLUDING:
            index = i
    return index


def conclusion_of(draft: TraceDraft) -> str | None:
    """Return the trace's conclusion text: the conclusion step's content, else the produced one.

    Args:
        draft: the trace.

    Returns:
        The content of the step `conclusion_index` names (even when empty); else
        `draft.produced.content`; None when neither exists.
    """
    index = conclusion_index(draft.steps)
    if index is not None:
        return draft.steps[index].content
    return draft.produced.content if draft.produced else None
