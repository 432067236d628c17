"""What the quality gate reads off a trace before its rules run: roles of steps, evidence, terms.

Steps and roles
    - *thought-like* steps: kinds ``thought``, ``decision``, ``conclusion``.
    - *evidence* steps: kinds ``observation`` and ``action`` that no step rejected (a rejected
      observation is a hypothesis that failed, not evidence); a step's ``cites`` are evidence
      too (their text comes from the ``evidence`` mapping when known).
    - the *conclusion*: the last step of kind ``conclusion`` or ``decision`` (`conclusion_index`);
      its text is that step's content plus ``produced.content`` (or the evidence text of
      ``produced_memory_id`` when the mapping has it).
    - *hypotheses*: steps with status ``hypothesis`` or ``rejected`` and steps listed in some
      step's ``rejects``; a hypothesis is *rejected* when its status is ``rejected`` or a step
      lists it in ``rejects``.
    - two texts are *related* when they share at least ``min_shared_terms`` topic terms
      (`topic_terms`: the negation term ``not`` does not count) or name marks (`name_marks`: a
      capital letter standing alone, as in "service Y", which `terms` drops as one character).
    - a *bridge* is a thought-like step before the conclusion, neither a hypothesis nor
      rejected, related to the evidence or to an earlier bridge (`bridge_terms`): reasoning
      that links what was observed to what is concluded ("RabbitMQ queues back up during peak
      traffic" -> "Kafka absorbs peak traffic with partitioned logs" -> "Switch to Kafka").
      The conclusion is *supported* when it is related to the evidence or to a bridge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.domain.models import StepDraft, StepKind, StepStatus, TraceDraft
from service.domain.quality.conclusion import conclusion_index
from service.domain.quality.thresholds import QualityThresholds
from service.domain.text import name_marks, similarity, topic_terms

THOUGHT_LIKE = frozenset({StepKind.THOUGHT, StepKind.DECISION, StepKind.CONCLUSION})
_EVIDENCE_KINDS = frozenset({StepKind.OBSERVATION, StepKind.ACTION})


@dataclass(frozen=True)
class Evidence:
    """The evidence before the conclusion.

    Attributes:
        has_observation: an observation step lies before the conclusion.
        has_cites: a step up to and including the conclusion cites something.
        texts: the texts of evidence steps before the conclusion and of known cites.
        unknown_cites: cites (count) whose text is not in the evidence mapping.
    """

    has_observation: bool
    has_cites: bool
    texts: tuple[str, ...]
    unknown_cites: int


@dataclass(frozen=True)
class TraceFacts:
    """A trace as the rules see it (computed once by `read_trace`).

    Attributes:
        draft: the trace.
        conclusion_index: index of the conclusion step, None when no step concludes.
        conclusion_texts: the conclusion step's content and the produced content (non-empty).
        has_conclusion: a step concludes or something is produced.
        end: the conclusion's index, or `len(steps)` when no step concludes.
        evidence: the evidence before the conclusion.
        conclusion_terms: topic terms and name marks of the conclusion texts.
        evidence_terms: topic terms and name marks of the evidence texts.
        related: the conclusion shares at least ``max(min_shared_terms, 1)`` terms with the
            evidence or with a bridge (`bridge_terms`).
        grounding: share in [0, 1] of the conclusion's terms found in the evidence (0 with no
            conclusion or evidence text; 1 when only cites of unknown text support it).
        sources: ``(step index, text)`` of every observation before the conclusion and of every
            known cited text on a step up to and including it (at the citing step), in order.
        actions: indexes of the action steps before the conclusion.
        rejected: indexes of rejected hypotheses.
        hypotheses: indexes of all hypotheses (rejected included).
        repeated: indexes of steps repeating an earlier step of the same kind.
    """

    draft: TraceDraft
    conclusion_index: int | None
    conclusion_texts: tuple[str, ...]
    has_conclusion: bool
    end: int
    evidence: Evidence
    conclusion_terms: frozenset[str]
    evidence_terms: frozenset[str]
    related: bool
    grounding: float
    sources: tuple[tuple[int, str], ...]
    actions: tuple[int, ...]
    rejected: frozenset[int]
    hypotheses: frozenset[int]
    repeated: tuple[int, ...]

    @property
    def steps(self) -> tuple[StepDraft, ...]:
        """The trace's steps, index = position."""
        return self.draft.steps

    @property
    def repeated_share(self) -> float:
        """Share in [0, 1] of repeated steps (0.0 for a trace without steps)."""
        return len(self.repeated) / len(self.steps) if self.steps else 0.0


def is_evidence_step(step: StepDraft) -> bool:
    """Return True for an observation step or a step that cites something."""
    return step.kind == StepKind.OBSERVATION or bool(step.cites)


def rejected_indexes(steps: Sequence[StepDraft]) -> set[int]:
    """Return the indexes of steps with status rejected or listed in some step's `rejects`."""
    rejected = {i for i, s in enumerate(steps) if s.status == StepStatus.REJECTED}
    for s in steps:
        rejected.update(r for r in s.rejects if 0 <= r < len(steps))
    return rejected


def _conclusion_texts(
    draft: TraceDraft, index: int | None, evidence: Mapping[str, str]
) -> tuple[str, ...]:
    texts: list[str] = []
    if index is not None and draft.steps[index].content.strip():
        texts.append(draft.steps[index].content)
    if draft.produced is not None and draft.produced.content.strip():
        texts.append(draft.produced.content)
    elif draft.produced_memory_id is not None and draft.produced_memory_id in evidence:
        texts.append(evidence[draft.produced_memory_id])
    return tuple(texts)


def evidence_before(
    steps: Sequence[StepDraft],
    end: int,
    evidence: Mapping[str, str],
    rejected: set[int],
) -> Evidence:
    """Collect the evidence of steps[:end] plus the cites of step `end` (if it exists).

    Args:
        steps: the trace's steps.
        end: the conclusion's index (or `len(steps)`).
        evidence: known texts of cited references.
        rejected: indexes of rejected steps: their own text is no evidence (their cites are).

    Returns:
        The evidence found.
    """
    has_obs = False
    has_cites = False
    unknown = 0
    texts: list[str] = []
    for i, step in enumerate(steps[: end + 1]):
        if i < end and step.kind in _EVIDENCE_KINDS and i not in rejected:
            texts.append(step.content)
            has_obs = has_obs or step.kind == StepKind.OBSERVATION
        for ref in step.cites:
            has_cites = True
            if ref in evidence:
                texts.append(evidence[ref])
            else:
                unknown += 1
    return Evidence(has_obs, has_cites, tuple(texts), unknown)


def evidence_sources(
    steps: Sequence[StepDraft],
    end: int,
    evidence: Mapping[str, str],
    rejected: set[int],
) -> tuple[tuple[int, str], ...]:
    """Return what the trace observed before step `end`, each text with the step it came in.

    Args:
        steps: the trace's steps.
        end: the conclusion's index (or `len(steps)`).
        evidence: known texts of cited references.
        rejected: indexes of rejected steps (their own text is left out, their cites kept).

    Returns:
        ``(index, text)`` of each observation step before `end` that no step rejected and of
        each known cited text of steps[:end + 1] (at the citing step's index; a step's own
        content comes first), in order.
    """
    out: list[tuple[int, str]] = []
    for i, step in enumerate(steps[: end + 1]):
        if i < end and step.kind == StepKind.OBSERVATION and i not in rejected:
            out.append((i, step.content))
        out.extend((i, evidence[ref]) for ref in step.cites if ref in evidence)
    return tuple(out)


def repeated_steps(steps: Sequence[StepDraft], thresholds: QualityThresholds) -> tuple[int, ...]:
    """Return the steps that are the same thought as an earlier step of the same kind.

    Args:
        steps: the trace's steps.
        thresholds: `same_thought_similarity` decides "the same thought".

    Returns:
        The indexes of repeated steps, ascending.
    """
    repeated: list[int] = []
    for j, step in enumerate(steps):
        for i in range(j):
            if steps[i].kind != step.kind:
                continue
            if similarity(steps[i].content, step.content) >= thresholds.same_thought_similarity:
                repeated.append(j)
                break
    return tuple(repeated)


def bridge_terms(
    steps: Sequence[StepDraft],
    end: int,
    evidence_terms: frozenset[str],
    hypotheses: set[int],
    least: int,
) -> frozenset[str]:
    """Return the terms of the bridges before step `end` (see the module doc), in one pass.

    A thought-like step before `end` that is not a hypothesis is a bridge when it shares at
    least `least` terms with the evidence or with a bridge before it; its terms then join
    those a later step (and the conclusion) may share. Without evidence terms nothing is a
    bridge: a conclusion resting on thoughts alone stays unsupported.

    Args:
        steps: the trace's steps.
        end: the conclusion's index (or `len(steps)`).
        evidence_terms: topic terms and name marks of the evidence texts.
        hypotheses: indexes of hypotheses (rejected ones included): never a bridge.
        least: `max(min_shared_terms, 1)`.

    Returns:
        The bridges' topic terms and name marks (empty when there is none).
    """
    if not evidence_terms:
        return frozenset()
    reached = set(evidence_terms)
    bridged: set[str] = set()
    for i, step in enumerate(steps[:end]):
        if step.kind not in THOUGHT_LIKE or i in hypotheses:
            continue
        own = topic_terms([step.content]) | name_marks(step.content)
        if len(own & reached) >= least:
            bridged |= own
            reached |= own
    return frozenset(bridged)


def read_trace(
    draft: TraceDraft, thresholds: QualityThresholds, evidence: Mapping[str, str]
) -> TraceFacts:
    """Read the roles, evidence, terms and repetitions of a trace once, for every rule.

    Args:
        draft: the trace.
        thresholds: the gate's numbers.
        evidence: known texts of cited references (and of `produced_memory_id`).

    Returns:
        The trace's facts.
    """
    steps = draft.steps
    rejected = rejected_indexes(steps)
    hypotheses = {
        i for i, s in enumerate(steps) if s.status in (StepStatus.HYPOTHESIS, StepStatus.REJECTED)
    } | rejected
    index = conclusion_index(steps)
    nothing_produced = draft.produced is None and draft.produced_memory_id is None
    end = index if index is not None else len(steps)
    found = evidence_before(steps, end, evidence, rejected)
    texts = _conclusion_texts(draft, index, evidence)
    conclusion_terms = topic_terms(texts).union(*(name_marks(t) for t in texts))
    evidence_terms = topic_terms(found.texts).union(*(name_marks(t) for t in found.texts))
    shared = conclusion_terms & evidence_terms
    least = max(thresholds.min_shared_terms, 1)
    bridged = bridge_terms(steps, end, frozenset(evidence_terms), hypotheses, least)
    if conclusion_terms and evidence_terms:
        grounding = len(shared) / len(conclusion_terms)
    elif found.unknown_cites and not evidence_terms:
        grounding = 1.0
    else:
        grounding = 0.0
    return TraceFacts(
        draft=draft,
        conclusion_index=index,
        conclusion_texts=texts,
        has_conclusion=index is not None or not nothing_produced,
        end=end,
        evidence=found,
        conclusion_terms=frozenset(conclusion_terms),
        evidence_terms=frozenset(evidence_terms),
        related=len(shared) >= least or len(conclusion_terms & bridged) >= least,
        grounding=grounding,
        sources=evidence_sources(steps, end, evidence, rejected),
        actions=tuple(i for i, s in enumerate(steps[:end]) if s.kind == StepKind.ACTION),
        rejected=frozenset(rejected),
        hypotheses=frozenset(hypotheses),
        repeated=repeated_steps(steps, thresholds),
    )
