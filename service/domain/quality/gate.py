"""The quality gate (DESIGN §6): `assess` runs every rule on a trace, then scores and judges it.

The gate is pure Python, uses no randomness and no model: the same draft and thresholds always
give the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.domain.models import Assessment, QualityIssue, Severity, TraceDraft, Verdict
from service.domain.quality.facts import TraceFacts, read_trace
from service.domain.quality.rules import RULES
from service.domain.quality.thresholds import DEFAULT_THRESHOLDS, QualityThresholds


def score(trace: TraceFacts, issues: Sequence[QualityIssue], th: QualityThresholds) -> float:
    """Return the trace's score in [0, 1].

    ``score = 1.0 - serious_penalty * (distinct serious codes) - poor_penalty * (distinct poor
    codes) - grounding_weight * (1 - grounding) - repetition_weight * repeated_share``, clamped
    to [0, 1] and rounded to 4 decimals (`TraceFacts` defines grounding and repeated share).

    Args:
        trace: the trace's facts.
        issues: the rules' issues.
        th: the gate's numbers.

    Returns:
        The score, 4 decimals.
    """
    serious_codes = {i.code for i in issues if i.severity == Severity.SERIOUS}
    poor_codes = {i.code for i in issues if i.severity == Severity.POOR}
    value = (
        1.0
        - th.serious_penalty * len(serious_codes)
        - th.poor_penalty * len(poor_codes)
        - th.grounding_weight * (1.0 - trace.grounding)
        - th.repetition_weight * trace.repeated_share
    )
    return round(min(1.0, max(0.0, value)), 4)


def verdict(value: float, issues: Sequence[QualityIssue], th: QualityThresholds) -> Verdict:
    """Return the verdict for a score and its issues.

    Args:
        value: the score in [0, 1].
        issues: the rules' issues.
        th: the gate's numbers (`min_score`).

    Returns:
        ``rejected`` if any serious issue or ``value < min_score``; else ``poor`` if any poor
        issue; else ``accepted``.
    """
    if any(i.severity == Severity.SERIOUS for i in issues) or value < th.min_score:
        return Verdict.REJECTED
    if any(i.severity == Severity.POOR for i in issues):
        return Verdict.POOR
    return Verdict.ACCEPTED


def assess(
    draft: TraceDraft,
    thresholds: QualityThresholds | None = None,
    evidence: Mapping[str, str] | None = None,
) -> Assessment:
    """Assess a reasoning trace with the documented deterministic rules (`rules.RULES`).

    Args:
        draft: the trace to assess (steps in order, index = position).
        thresholds: the gate's numbers; `DEFAULT_THRESHOLDS` when None.
        evidence: text of cited evidence when known, keyed by the reference used in
            `StepDraft.cites` (a stored `memory_id` or a local `"obs:<i>"`); may also hold the
            text of `draft.produced_memory_id`.

    Returns:
        An `Assessment` with score in [0, 1] (rounded to 4 decimals), verdict (`accepted`,
        `poor`, `rejected`) and the issues in rule order.
    """
    th = thresholds or DEFAULT_THRESHOLDS
    trace = read_trace(draft, th, evidence or {})
    issues = [issue for rule in RULES for issue in rule(trace, th)]
    value = score(trace, issues, th)
    return Assessment(score=value, verdict=verdict(value, issues, th), issues=tuple(issues))
