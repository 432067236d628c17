"""The quality gate's rules: one function per issue code, each documenting what it flags."""

from __future__ import annotations

from collections.abc import Callable

from service.domain.models import QualityIssue, Severity, StepKind
from service.domain.quality.facts import THOUGHT_LIKE, TraceFacts, is_evidence_step
from service.domain.quality.restating import circular_conclusion, contradicts_evidence
from service.domain.quality.thresholds import QualityThresholds
from service.domain.text import containment, restate_score, similarity

#: A rule: reads a trace's facts with the gate's numbers, returns its issues (possibly none).
Rule = Callable[[TraceFacts, QualityThresholds], list[QualityIssue]]


def missing_conclusion(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag a trace that concludes nothing (serious, step None).

    Rule: no ``conclusion``/``decision`` step and nothing produced (neither ``produced`` nor
    ``produced_memory_id``).

    Args:
        trace: the trace's facts.
        th: the gate's numbers (unused by this rule).

    Returns:
        One ``missing_conclusion`` issue, or none.
    """
    if trace.has_conclusion:
        return []
    return [
        QualityIssue(
            code="missing_conclusion",
            severity=Severity.SERIOUS,
            step=None,
            message="the trace has no conclusion or decision step and produces nothing",
        )
    ]


def circular_loop(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag thoughts that return to an earlier thought with no evidence between (``circular``).

    Rule (serious, step = j): a ``thought`` step j is the same thought
    (``similarity >= same_thought_similarity``) as an earlier thought-like step i and no
    observation step and no citing step lies strictly between them. Only thoughts loop: a
    conclusion that restates an earlier thought is how a trace normally ends, and is judged by
    `circular_restatement`, `unsupported_conclusion` and `concludes_rejected` instead.

    Args:
        trace: the trace's facts.
        th: the gate's numbers.

    Returns:
        One ``circular`` issue per looping thought, in step order.
    """
    steps = trace.steps
    issues: list[QualityIssue] = []
    thought_like = [i for i, s in enumerate(steps) if s.kind in THOUGHT_LIKE]
    for pos, j in enumerate(thought_like):
        if steps[j].kind != StepKind.THOUGHT:
            continue
        for i in reversed(thought_like[:pos]):
            if any(is_evidence_step(s) for s in steps[i + 1 : j]):
                break  # evidence came in between: this and all earlier pairs are not loops
            if similarity(steps[i].content, steps[j].content) >= th.same_thought_similarity:
                issues.append(
                    QualityIssue(
                        code="circular",
                        severity=Severity.SERIOUS,
                        step=j,
                        message=(
                            f"step {j} returns to the thought of step {i} with no new "
                            "observation in between"
                        ),
                    )
                )
                break
    return issues


def circular_restatement(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag a conclusion that only restates what the trace assumed (``circular``).

    Rule (serious, step = the conclusion step, None if only produced): the conclusion step's
    content or the produced content is contained (``containment >= restate_containment``) in
    the task or in the first thought step, and no observation or cited evidence related to the
    conclusion lies before it (cites of unknown text are presumed related).

    Args:
        trace: the trace's facts.
        th: the gate's numbers.

    Returns:
        One ``circular`` issue, or none.
    """
    if not (trace.has_conclusion and trace.conclusion_texts):
        return []
    supported = trace.related or (trace.evidence.unknown_cites > 0 and not trace.evidence_terms)
    if supported:
        return []
    steps = trace.steps
    assumptions = [("the task", trace.draft.task)]
    first_thought = next(
        (i for i, s in enumerate(steps[: trace.end]) if s.kind == StepKind.THOUGHT), None
    )
    if first_thought is not None:
        assumptions.append((f"step {first_thought}", steps[first_thought].content))
    for label, text in assumptions:
        if any(containment(c, text) >= th.restate_containment for c in trace.conclusion_texts):
            return [
                QualityIssue(
                    code="circular",
                    severity=Severity.SERIOUS,
                    step=trace.conclusion_index,
                    message=(
                        f"the conclusion restates {label} with nothing in between supporting it"
                    ),
                )
            ]
    return []


def unsupported_conclusion(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag a conclusion no evidence supports (serious, the conclusion step).

    Rule: no observation step before the conclusion and no cite on the conclusion or any step
    before it; or evidence text exists (observations, actions, cited texts before the
    conclusion) and the conclusion shares fewer than ``min_shared_terms`` terms with all of it
    and with every bridge (a thought related to that evidence, `facts.bridge_terms`).
    A rejected observation or action is no evidence: a conclusion resting only on one is
    unsupported (fresh-user trial 11).
    Cites whose text is unknown count as present evidence but cannot be checked for
    relatedness.

    Args:
        trace: the trace's facts.
        th: the gate's numbers (``min_shared_terms`` is already applied in `trace.related`).

    Returns:
        One ``unsupported_conclusion`` issue, or none.
    """
    if not trace.has_conclusion:
        return []
    if not trace.evidence.has_observation and not trace.evidence.has_cites:
        message = (
            "the conclusion rests on no observation step and no cited evidence "
            "(a rejected step is no evidence)"
        )
    elif trace.evidence_terms and trace.conclusion_terms and not trace.related:
        message = (
            "the conclusion shares no term with the observations, actions or cited evidence "
            "before it that no step rejected, nor with a reasoning step linking to them"
        )
    else:
        return []
    return [
        QualityIssue(
            code="unsupported_conclusion",
            severity=Severity.SERIOUS,
            step=trace.conclusion_index,
            message=message,
        )
    ]


def concludes_rejected(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag a conclusion that restates a hypothesis a step rejected (serious, conclusion step).

    Rule: for some rejected hypothesis H, the restating score
    ``max(similarity(H, C), containment(H, C))`` against the conclusion step's content or the
    produced content is ``>= restate_containment`` and strictly greater than the score of every
    hypothesis that is not rejected (the conclusion is closest to H).

    Args:
        trace: the trace's facts.
        th: the gate's numbers.

    Returns:
        One ``concludes_rejected`` issue (for the first such H), or none.
    """
    if not (trace.conclusion_texts and trace.rejected):
        return []
    steps = trace.steps

    def best(index: int) -> float:
        return max(restate_score(steps[index].content, c) for c in trace.conclusion_texts)

    kept = [best(i) for i in trace.hypotheses - trace.rejected if i != trace.conclusion_index]
    ceiling = max(kept, default=-1.0)
    for i in sorted(trace.rejected):
        if i == trace.conclusion_index:
            continue
        score = best(i)
        if score >= th.restate_containment and score > ceiling:
            return [
                QualityIssue(
                    code="concludes_rejected",
                    severity=Severity.SERIOUS,
                    step=trace.conclusion_index,
                    message=(
                        f"the conclusion restates the hypothesis of step {i}, which a step rejected"
                    ),
                )
            ]
    return []


def repetitive(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag a trace that keeps repeating itself (poor, the first repeated step).

    Rule: a step is *repeated* when an earlier step of the same kind is the same thought (same
    text for empty-term texts); with at least ``min_repetition_steps`` steps,
    ``repeated / len(steps) >= repetition_share``.

    Args:
        trace: the trace's facts.
        th: the gate's numbers.

    Returns:
        One ``repetitive`` issue, or none.
    """
    steps, share = trace.steps, trace.repeated_share
    if len(steps) < th.min_repetition_steps or share < th.repetition_share:
        return []
    return [
        QualityIssue(
            code="repetitive",
            severity=Severity.POOR,
            step=trace.repeated[0],
            message=(
                f"{len(trace.repeated)} of {len(steps)} steps repeat an earlier step ({share:.0%})"
            ),
        )
    ]


def too_short(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag a trace with fewer than ``min_steps`` steps (poor, step None).

    Args:
        trace: the trace's facts.
        th: the gate's numbers.

    Returns:
        One ``too_short`` issue, or none.
    """
    count = len(trace.steps)
    if count >= th.min_steps:
        return []
    return [
        QualityIssue(
            code="too_short",
            severity=Severity.POOR,
            step=None,
            message=f"the trace has {count} step(s), fewer than {th.min_steps}",
        )
    ]


#: Every rule, in the order its issues are reported.
RULES: tuple[Rule, ...] = (
    missing_conclusion,
    circular_loop,
    circular_restatement,
    circular_conclusion,
    unsupported_conclusion,
    concludes_rejected,
    contradicts_evidence,
    repetitive,
    too_short,
)
