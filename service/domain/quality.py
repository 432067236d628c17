"""Deterministic quality gate for reasoning traces (DESIGN §6).

The assessor reads a `TraceDraft` (and, when known, the text of the evidence its steps cite)
and returns an `Assessment`: a score in [0, 1], a verdict and coded issues. It is pure Python,
uses no randomness and no model: the same draft and thresholds always give the same answer.

Text comparison
    Every comparison works on *terms*: the text is NFKC-normalised and lower-cased, split into
    runs of letters/digits (``_`` and punctuation separate words, except an inner ``&`` or
    apostrophe: ``a&e``, ``at&t``, ``don't`` stay one word), negations (`NEGATIONS`) become the
    term ``not``, single characters and English `STOPWORDS` are dropped, and each word is
    lightly stemmed (one suffix of ``ies -> y``, ``ing``, ``ed``, ``es``, ``s`` is removed when
    at least three characters remain). The *shingles* of a text are its terms plus its adjacent
    term pairs (bigrams).

    - ``similarity(a, b)``: Jaccard index of the two shingle sets, in [0, 1]. Two steps are
      *the same thought* when ``similarity >= same_thought_similarity``.
    - ``containment(part, whole)``: share of ``part``'s shingles found in ``whole``, in [0, 1].
    - Two texts are *related* when they share at least ``min_shared_terms`` terms (the
      negation term ``not`` does not count: it says nothing about the topic).

Steps and roles
    - *thought-like* steps: kinds ``thought``, ``decision``, ``conclusion``.
    - *evidence* steps: kinds ``observation`` and ``action``; a step's ``cites`` are evidence too
      (their text comes from the ``evidence`` mapping when known).
    - the *conclusion*: the last step of kind ``conclusion`` or ``decision``; its text is that
      step's content plus ``produced.content`` (or the evidence text of ``produced_memory_id``
      when the mapping has it).
    - *hypotheses*: steps with status ``hypothesis`` or ``rejected`` and steps listed in some
      step's ``rejects``; a hypothesis is *rejected* when its status is ``rejected`` or a step
      lists it in ``rejects``.

Rules (code, severity, step the issue points at)
    - ``missing_conclusion`` (serious, None): no ``conclusion``/``decision`` step and nothing
      produced (neither ``produced`` nor ``produced_memory_id``).
    - ``circular`` (serious):
        (a) *loop*: a ``thought`` step j is the same thought as an earlier thought-like step i
        and no observation step and no citing step lies strictly between them (step = j).
        Only thoughts loop: a conclusion that restates an earlier thought is how a trace
        normally ends, and is judged by (b), ``unsupported_conclusion`` and
        ``concludes_rejected`` instead.
        (b) *concludes what it assumed*: the conclusion step's content or the produced content
        is contained (``containment >= restate_containment``) in the task or in the first
        thought step, and no observation or cited evidence related to the conclusion lies
        before the conclusion (cites of unknown text are presumed related; step = the
        conclusion step, None if only produced).
    - ``unsupported_conclusion`` (serious, the conclusion step): no observation step before the
      conclusion and no cite on the conclusion or any step before it; or evidence text exists
      (observations, actions, cited texts before the conclusion) and the conclusion shares fewer
      than ``min_shared_terms`` terms with all of it. Cites whose text is unknown count as
      present evidence but cannot be checked for relatedness.
    - ``concludes_rejected`` (serious, the conclusion step): for some rejected hypothesis H, the
      restating score ``max(similarity(H, C), containment(H, C))`` against the conclusion step's
      content or the produced content is ``>= restate_containment`` and strictly greater than
      the score of every hypothesis that is not rejected (the conclusion is closest to H).
    - ``repetitive`` (poor, first repeated step): a step is *repeated* when an earlier step of
      the same kind is the same thought (same text for empty-term texts); with at least
      ``min_repetition_steps`` steps, ``repeated / len(steps) >= repetition_share``.
    - ``too_short`` (poor, None): fewer than ``min_steps`` steps.

Score
    ``score = 1.0 - serious_penalty * (distinct serious codes) - poor_penalty * (distinct poor
    codes) - grounding_weight * (1 - grounding) - repetition_weight * repeated_share``,
    clamped to [0, 1] and rounded to 4 decimals, where ``grounding`` is the share of the
    conclusion's terms found in the evidence text (0 when there is no conclusion text or no
    evidence text, 1 when only cites of unknown text support it) and ``repeated_share`` is the
    share of repeated steps.

Verdict
    ``rejected`` if any serious issue or ``score < min_score``; else ``poor`` if any poor issue;
    else ``accepted``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import pairwise

from service.domain.models import (
    Assessment,
    QualityIssue,
    Severity,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
    Verdict,
)

#: Hedges that mark a guess ("maybe X", "perhaps X"): a hypothesis and a conclusion asserting
#: the same X must compare as the same claim, so these carry no topic.
HEDGES: frozenset[str] = frozenset(
    {
        "maybe",
        "perhaps",
        "possibly",
        "probably",
        "likely",
        "might",
        "guess",
        "suspect",
        "hypothesis",
        "seems",
        "seem",
        "think",
    }
)

#: English function words dropped before comparing texts (closed list, no library).
STOPWORDS: frozenset[str] = HEDGES | frozenset(
    {
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "either",
        "else",
        "ever",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "might",
        "more",
        "most",
        "must",
        "my",
        "myself",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "same",
        "shall",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "would",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "ll",
        "ve",
        "re",
        "let's",
        "i'm",
        "it's",
        "that's",
        "there's",
        "what's",
    }
)

#: Negation words; each becomes the term ``not`` (negation flips what a text restates).
NEGATIONS: frozenset[str] = frozenset(
    {
        "no",
        "not",
        "nor",
        "never",
        "none",
        "cannot",
        "can't",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "won't",
        "wouldn't",
        "shouldn't",
        "couldn't",
        "hasn't",
        "haven't",
        "hadn't",
        "without",
    }
)
_NOT = "not"

_WORD = re.compile(r"[^\W_]+(?:[&'][^\W_]+)*")
_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ies", "y"),
    ("ing", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
)
_THOUGHT_LIKE = frozenset({StepKind.THOUGHT, StepKind.DECISION, StepKind.CONCLUSION})
_CONCLUDING = frozenset({StepKind.DECISION, StepKind.CONCLUSION})
_EVIDENCE_KINDS = frozenset({StepKind.OBSERVATION, StepKind.ACTION})


@dataclass(frozen=True)
class QualityThresholds:
    """Tunable numbers of the quality gate (exposed as settings by the service).

    Attributes:
        min_score: score in [0, 1] under which a trace is rejected.
        same_thought_similarity: Jaccard similarity in [0, 1] of unigram+bigram term sets from
            which two steps count as the same thought.
        restate_containment: containment in [0, 1] from which a conclusion counts as restating
            a hypothesis, the task or the first thought.
        repetition_share: share in [0, 1] of repeated steps from which a trace is repetitive.
        min_repetition_steps: fewest steps (count) for the repetition rule to apply.
        min_shared_terms: fewest shared terms (count) for two texts to be related.
        min_steps: fewest steps (count) for a trace not to be too short.
        serious_penalty: score subtracted once per distinct serious issue code.
        poor_penalty: score subtracted once per distinct poor issue code.
        grounding_weight: weight of the ungrounded share of the conclusion's terms.
        repetition_weight: weight of the share of repeated steps.
    """

    min_score: float = 0.5
    same_thought_similarity: float = 0.85
    restate_containment: float = 0.8
    repetition_share: float = 0.3
    min_repetition_steps: int = 4
    min_shared_terms: int = 1
    min_steps: int = 2
    serious_penalty: float = 0.5
    poor_penalty: float = 0.15
    grounding_weight: float = 0.1
    repetition_weight: float = 0.1

    def __post_init__(self) -> None:
        """Check that every share, weight and threshold is in its range.

        Raises:
            ValueError: a float field is outside [0, 1] or a count field is negative.
        """
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not 0.0 <= value <= 1.0:
                raise ValueError(f"quality threshold {f.name}={value} is outside [0, 1]")
            if isinstance(value, int) and value < 0:
                raise ValueError(f"quality threshold {f.name}={value} is negative")


DEFAULT_THRESHOLDS = QualityThresholds()


def _stem(word: str) -> str:
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + replacement
    return word


@lru_cache(maxsize=65536)
def _terms_cached(text: str) -> tuple[str, ...]:
    normalised = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    out: list[str] = []
    for word in _WORD.findall(normalised):
        if word in NEGATIONS:
            out.append(_NOT)
            continue
        if word in STOPWORDS:
            continue
        if word.endswith("'s"):
            word = word[:-2]
        word = word.replace("'", "")
        if len(word) < 2 or word in STOPWORDS:
            continue
        out.append(_stem(word))
    return tuple(out)


def terms(text: str) -> tuple[str, ...]:
    """Return the content terms of a text, in order.

    Args:
        text: any text.

    Returns:
        The lower-cased, stopword-free, lightly stemmed words (length >= 2), duplicates kept.
    """
    return _terms_cached(text)


@lru_cache(maxsize=65536)
def shingles(text: str) -> frozenset[str]:
    """Return the unigram and bigram term set of a text.

    Args:
        text: any text.

    Returns:
        The set of terms plus ``"a b"`` pairs of adjacent terms; empty for a text with no term.
    """
    ts = terms(text)
    return frozenset(ts) | frozenset(f"{a} {b}" for a, b in pairwise(ts))


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def similarity(a: str, b: str) -> float:
    """Return the Jaccard similarity of two texts' shingle sets.

    Args:
        a: first text.
        b: second text.

    Returns:
        A float in [0, 1]; 1.0 for identical term sets. Texts without any term are compared
        on their whitespace-normalised lower-case form (1.0 if equal, else 0.0).
    """
    sa, sb = shingles(a), shingles(b)
    if not sa or not sb:
        return 1.0 if not sa and not sb and _norm(a) == _norm(b) else 0.0
    return len(sa & sb) / len(sa | sb)


def containment(part: str, whole: str) -> float:
    """Return the share of ``part``'s shingles that occur in ``whole``.

    Args:
        part: the text that may be restated.
        whole: the text that may restate it.

    Returns:
        A float in [0, 1]; 0.0 when ``part`` has no term.
    """
    sp = shingles(part)
    if not sp:
        return 0.0
    return len(sp & shingles(whole)) / len(sp)


def _restate_score(hypothesis: str, conclusion: str) -> float:
    return max(similarity(hypothesis, conclusion), containment(hypothesis, conclusion))


def _topic_terms(texts: Iterable[str]) -> set[str]:
    """Return the terms of texts without the negation term (it says nothing about the topic)."""
    out: set[str] = set()
    for text in texts:
        out.update(terms(text))
    out.discard(_NOT)
    return out


def _rejected_indexes(steps: Sequence[StepDraft]) -> set[int]:
    rejected = {i for i, s in enumerate(steps) if s.status == StepStatus.REJECTED}
    for s in steps:
        rejected.update(r for r in s.rejects if 0 <= r < len(steps))
    return rejected


def _hypothesis_indexes(steps: Sequence[StepDraft], rejected: set[int]) -> set[int]:
    hyp = {
        i for i, s in enumerate(steps) if s.status in (StepStatus.HYPOTHESIS, StepStatus.REJECTED)
    }
    return hyp | rejected


def _is_evidence_step(step: StepDraft) -> bool:
    return step.kind == StepKind.OBSERVATION or bool(step.cites)


@dataclass(frozen=True)
class _Conclusion:
    index: int | None
    texts: tuple[str, ...]


def _conclusion(draft: TraceDraft, evidence: Mapping[str, str]) -> _Conclusion:
    index = None
    for i, step in enumerate(draft.steps):
        if step.kind in _CONCLUDING:
            index = i
    texts: list[str] = []
    if index is not None and draft.steps[index].content.strip():
        texts.append(draft.steps[index].content)
    if draft.produced is not None and draft.produced.content.strip():
        texts.append(draft.produced.content)
    elif draft.produced_memory_id is not None and draft.produced_memory_id in evidence:
        texts.append(evidence[draft.produced_memory_id])
    return _Conclusion(index, tuple(texts))


@dataclass(frozen=True)
class _Evidence:
    has_observation: bool
    has_cites: bool
    texts: tuple[str, ...]
    unknown_cites: int


def _evidence_before(
    steps: Sequence[StepDraft], end: int, evidence: Mapping[str, str]
) -> _Evidence:
    """Collect the evidence of steps[:end] plus the cites of step `end` (if it exists)."""
    has_obs = False
    has_cites = False
    unknown = 0
    texts: list[str] = []
    for i, step in enumerate(steps[: end + 1]):
        if i < end and step.kind in _EVIDENCE_KINDS:
            texts.append(step.content)
            has_obs = has_obs or step.kind == StepKind.OBSERVATION
        for ref in step.cites:
            has_cites = True
            if ref in evidence:
                texts.append(evidence[ref])
            else:
                unknown += 1
    return _Evidence(has_obs, has_cites, tuple(texts), unknown)


def _loops(steps: Sequence[StepDraft], thresholds: QualityThresholds) -> list[QualityIssue]:
    issues: list[QualityIssue] = []
    thought_like = [i for i, s in enumerate(steps) if s.kind in _THOUGHT_LIKE]
    for pos, j in enumerate(thought_like):
        if steps[j].kind != StepKind.THOUGHT:
            continue
        for i in reversed(thought_like[:pos]):
            if any(_is_evidence_step(s) for s in steps[i + 1 : j]):
                break  # evidence came in between: this and all earlier pairs are not loops
            if similarity(steps[i].content, steps[j].content) >= thresholds.same_thought_similarity:
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


def _repeated(steps: Sequence[StepDraft], thresholds: QualityThresholds) -> list[int]:
    repeated: list[int] = []
    for j, step in enumerate(steps):
        for i in range(j):
            if steps[i].kind != step.kind:
                continue
            if similarity(steps[i].content, step.content) >= thresholds.same_thought_similarity:
                repeated.append(j)
                break
    return repeated


def assess(
    draft: TraceDraft,
    thresholds: QualityThresholds | None = None,
    evidence: Mapping[str, str] | None = None,
) -> Assessment:
    """Assess a reasoning trace with the documented deterministic rules.

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
    ev: Mapping[str, str] = evidence or {}
    steps = draft.steps
    issues: list[QualityIssue] = []

    rejected = _rejected_indexes(steps)
    hypotheses = _hypothesis_indexes(steps, rejected)
    conclusion = _conclusion(draft, ev)
    nothing_produced = draft.produced is None and draft.produced_memory_id is None

    # missing_conclusion
    if conclusion.index is None and nothing_produced:
        issues.append(
            QualityIssue(
                code="missing_conclusion",
                severity=Severity.SERIOUS,
                step=None,
                message="the trace has no conclusion or decision step and produces nothing",
            )
        )

    has_conclusion = conclusion.index is not None or not nothing_produced
    end = conclusion.index if conclusion.index is not None else len(steps)
    found = _evidence_before(steps, end, ev)
    conclusion_terms = _topic_terms(conclusion.texts)
    evidence_terms = _topic_terms(found.texts)
    shared = conclusion_terms & evidence_terms
    related = len(shared) >= max(th.min_shared_terms, 1)
    if conclusion_terms and evidence_terms:
        grounding = len(shared) / len(conclusion_terms)
    elif found.unknown_cites and not evidence_terms:
        grounding = 1.0
    else:
        grounding = 0.0

    # circular (a): loops
    issues.extend(_loops(steps, th))

    # circular (b): concludes what it assumed
    if has_conclusion and conclusion.texts:
        assumptions = [("the task", draft.task)]
        first_thought = next(
            (i for i, s in enumerate(steps[:end]) if s.kind == StepKind.THOUGHT), None
        )
        if first_thought is not None:
            assumptions.append((f"step {first_thought}", steps[first_thought].content))
        supported = related or (found.unknown_cites > 0 and not evidence_terms)
        if not supported:
            for label, text in assumptions:
                if any(containment(c, text) >= th.restate_containment for c in conclusion.texts):
                    issues.append(
                        QualityIssue(
                            code="circular",
                            severity=Severity.SERIOUS,
                            step=conclusion.index,
                            message=(
                                f"the conclusion restates {label} with nothing in between "
                                "supporting it"
                            ),
                        )
                    )
                    break

    # unsupported_conclusion
    if has_conclusion:
        if not found.has_observation and not found.has_cites:
            issues.append(
                QualityIssue(
                    code="unsupported_conclusion",
                    severity=Severity.SERIOUS,
                    step=conclusion.index,
                    message="the conclusion rests on no observation step and no cited evidence",
                )
            )
        elif evidence_terms and conclusion_terms and not related:
            issues.append(
                QualityIssue(
                    code="unsupported_conclusion",
                    severity=Severity.SERIOUS,
                    step=conclusion.index,
                    message=(
                        "the conclusion shares no term with the observations, actions or "
                        "cited evidence before it"
                    ),
                )
            )

    # concludes_rejected
    if conclusion.texts and rejected:

        def best(index: int) -> float:
            return max(_restate_score(steps[index].content, c) for c in conclusion.texts)

        kept = [best(i) for i in hypotheses - rejected if i != conclusion.index]
        ceiling = max(kept, default=-1.0)
        for i in sorted(rejected):
            if i == conclusion.index:
                continue
            score = best(i)
            if score >= th.restate_containment and score > ceiling:
                issues.append(
                    QualityIssue(
                        code="concludes_rejected",
                        severity=Severity.SERIOUS,
                        step=conclusion.index,
                        message=(
                            f"the conclusion restates the hypothesis of step {i}, which a step "
                            "rejected"
                        ),
                    )
                )
                break

    # repetitive
    repeated = _repeated(steps, th)
    repeated_share = len(repeated) / len(steps) if steps else 0.0
    if len(steps) >= th.min_repetition_steps and repeated_share >= th.repetition_share:
        issues.append(
            QualityIssue(
                code="repetitive",
                severity=Severity.POOR,
                step=repeated[0],
                message=(
                    f"{len(repeated)} of {len(steps)} steps repeat an earlier step "
                    f"({repeated_share:.0%})"
                ),
            )
        )

    # too_short
    if len(steps) < th.min_steps:
        issues.append(
            QualityIssue(
                code="too_short",
                severity=Severity.POOR,
                step=None,
                message=f"the trace has {len(steps)} step(s), fewer than {th.min_steps}",
            )
        )

    serious_codes = {i.code for i in issues if i.severity == Severity.SERIOUS}
    poor_codes = {i.code for i in issues if i.severity == Severity.POOR}
    score = (
        1.0
        - th.serious_penalty * len(serious_codes)
        - th.poor_penalty * len(poor_codes)
        - th.grounding_weight * (1.0 - grounding)
        - th.repetition_weight * repeated_share
    )
    score = round(min(1.0, max(0.0, score)), 4)
    if serious_codes or score < th.min_score:
        verdict = Verdict.REJECTED
    elif poor_codes:
        verdict = Verdict.POOR
    else:
        verdict = Verdict.ACCEPTED
    return Assessment(score=score, verdict=verdict, issues=tuple(issues))
