"""Gate rules on what a conclusion says: against the evidence, itself and the task's question."""

from __future__ import annotations

import re

from service.domain.models import QualityIssue, Severity, StepKind
from service.domain.quality.facts import TraceFacts
from service.domain.quality.thresholds import QualityThresholds
from service.domain.text import (
    Claim,
    analyse_polarity,
    asked_cause,
    claims,
    containment,
    explanation,
    sentences,
    similarity,
    terms,
)

#: Fewest core terms (count) for a claim to be compared with another: "not enabled" alone
#: says too little about what is not enabled.
MIN_CLAIM_TERMS = 2

_EVIDENCE_KINDS = frozenset({StepKind.OBSERVATION, StepKind.ACTION})
#: Longer unit terms after a number (stemmed); a unit of up to 4 letters (ms, s, kb, rps, %)
#: is read as one by its length.
_UNITS = frozenset({"second", "minut", "hour", "day", "week", "percent", "request", "byte"})


def measured(core: tuple[str, ...]) -> tuple[tuple[str, ...], frozenset[str]]:
    """Split a claim's core into its words and its measurements (a number and its unit).

    "search p95 latency is 340 ms, above the 200 ms target" is the claim "search p95 latency
    ... target" with the measurements 340 ms and 200 ms: an observation that measures more
    than a conclusion states still says the same thing of it (trial 22's notes: "is 340 ms,
    above the 200 ms target" -> "is below the 200 ms target" was not compared).

    Args:
        core: a claim's core terms (`Claim.core`).

    Returns:
        The core without its measurements, and the measurements ("340 ms", "200 ms").
    """
    bare: list[str] = []
    found: set[str] = set()
    i = 0
    while i < len(core):
        term = core[i]
        if term.replace(".", "", 1).isdigit():
            unit = core[i + 1] if i + 1 < len(core) else ""
            if unit.isalpha() and (len(unit) <= 4 or unit in _UNITS):
                found.add(f"{term} {unit}")
                i += 2
                continue
            found.add(term)
        else:
            bare.append(term)
        i += 1
    return tuple(bare), frozenset(found)


def _quote(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


#: Words saying a state ended, which a qualifier may add ("disabled until yesterday" does not
#: contradict "is enabled"): such evidence is compared whole only.
_ENDED = re.compile(
    r"(?i)\b(?:until|till|before|ago|formerly|previously|earlier|prior to|used to|no longer"
    r"|any ?more|then)\b"
)
#: Fewest core terms of a conclusion's claim compared with evidence that qualifies it.
MIN_QUALIFIED_TERMS = 3


def _qualified(
    core: tuple[str, ...], cores: set[tuple[str, ...]], sentence: str
) -> list[tuple[str, ...]]:
    """Return the conclusion cores that an evidence claim states whole and then qualifies.

    Trial 25: "the flag is disabled in production since 2026-11-02" (or "for 3 days", "on 2
    hosts", "(checked 10:30)") against "the flag is enabled in production" was accepted: the
    qualifier made the cores differ. A conclusion core of at least `MIN_QUALIFIED_TERMS` terms
    that the evidence core starts with counts, unless the evidence sentence says the state
    ended (`_ENDED`).

    Args:
        core: an evidence claim's core terms.
        cores: the conclusion claims' cores.
        sentence: the evidence sentence the claim was read from.

    Returns:
        The conclusion cores `core` qualifies (none when the sentence says the state ended).
    """
    found = [c for c in cores if MIN_QUALIFIED_TERMS <= len(c) < len(core) and core[: len(c)] == c]
    return found if found and not _ENDED.search(sentence) else []


def contradicts_evidence(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag a conclusion that says the opposite of what the trace observed (serious).

    Rule (step = the conclusion step, None if only produced): a sentence of the conclusion
    step's content or of the produced content, read as a claim (`read_claim`: questions and
    conditions are no claims), has the same core terms in the same order (at least
    `MIN_CLAIM_TERMS`) as a claim of the evidence (`TraceFacts.sources`: observations and
    known cited texts) and the opposite polarity ("the cache is enabled" against "the cache
    is not enabled", "isn't", "is disabled", "is no longer enabled"). Only the last evidence
    claim with that core counts (a later observation may correct an earlier one), and none
    after which an action step came (the action may have changed what was observed). When
    other evidence came after that claim (worded otherwise: it may be what refutes it), the
    issue is ``poor``, not serious. Sharing words is not enough: the statements must be the
    same but for the negation -- or for measurements the evidence adds (`measured`: "is 340
    ms, above the 200 ms target" against "is below the 200 ms target"; every measurement the
    conclusion states must be the evidence's, so "5% at 10 rps" never meets "at 1000 rps"), or
    for a qualifier the evidence adds after the whole statement (`_qualified`: "is disabled in
    production since 2026-11-02", "for 3 days", "on 2 hosts"), unless it says the state ended
    ("until yesterday", "before the rollout").

    Args:
        trace: the trace's facts.
        th: the gate's numbers (unused by this rule).

    Returns:
        One ``contradicts_evidence`` issue (serious, or poor with later evidence), or none.
    """
    said = [c for text in trace.conclusion_texts for c in claims(text)]
    said = [c for c in said if len(c.core) >= MIN_CLAIM_TERMS]
    if not said:
        return []
    cores = {c.core for c in said}
    bares = {measured(c.core)[0] for c in said}
    last: dict[tuple[str, ...], tuple[int, Claim, str]] = {}
    last_bare: dict[tuple[str, ...], tuple[int, Claim, str]] = {}
    for index, text in trace.sources:
        for sentence in sentences(text):
            for found in claims(sentence):
                if found.core in cores:
                    last[found.core] = (index, found, sentence)
                for core in _qualified(found.core, cores, sentence):
                    last[core] = (index, found, sentence)
                bare = measured(found.core)[0]
                if bare in bares:
                    last_bare[bare] = (index, found, sentence)
    for claim in said:
        match = last.get(claim.core)
        if match is None:
            bare, measures = measured(claim.core)
            match = last_bare.get(bare) if len(bare) >= MIN_CLAIM_TERMS else None
            if match is None or not measures <= measured(match[1].core)[1]:
                continue
        index, observed, sentence = match
        if observed.negative == claim.negative or any(a > index for a in trace.actions):
            continue
        # Evidence after it may be what refutes it ("the ticket says the bug is fixed", then
        # "the repro still crashes" -> "the bug is not fixed"; trial 20): poor, not refused.
        later = any(i > index for i, _ in trace.sources)
        return [
            QualityIssue(
                code="contradicts_evidence",
                severity=Severity.POOR if later else Severity.SERIOUS,
                step=trace.conclusion_index,
                message=(
                    f"the conclusion says the opposite of step {index} "
                    f'("{_quote(sentence)}"): only the negation differs'
                    + ("; later evidence may explain it" if later else "")
                ),
            )
        ]
    return []


def _explains_itself(text: str) -> bool:
    for sentence in sentences(text):
        parts = explanation(sentence)
        if parts is None:
            continue
        claim, reason = set(parts[0]), set(parts[1])
        if reason <= claim and len(claim - reason) <= 1:
            return True
    return False


def _copies_evidence(trace: TraceFacts, th: QualityThresholds, text: str) -> bool:
    before = trace.steps[: trace.end]
    if not before or any(s.kind not in _EVIDENCE_KINDS for s in before):
        return False
    found = trace.evidence
    if found.unknown_cites or len(set(found.texts)) != 1:
        return False
    # "p95 is above the SLO" -> "p95 is below the SLO" shares every term but says the opposite
    # (a contradiction, not a copy; trial 20).
    opposite = analyse_polarity(found.texts[0]).negative != analyse_polarity(text).negative
    return not opposite and similarity(found.texts[0], text) >= th.same_thought_similarity


def _names_a_cause(text: str) -> bool:
    """Whether a sentence of `text` gives a reason ("A because B", B with terms of its own)."""
    return any(explanation(sentence) is not None for sentence in sentences(text))


def _restates_question(trace: TraceFacts, th: QualityThresholds, text: str) -> bool:
    if _names_a_cause(text):
        # "Why did X fail after Y?" -> "X failed because of Y" answers the question: it
        # asserts the cause the task only placed beside it ("after"), even in the task's words.
        return False
    asked = asked_cause(trace.draft.task)
    said = set(terms(text))
    if not asked or not said or not said <= set(asked):
        return False
    return containment(" ".join(asked), text) >= th.restate_containment


def circular_conclusion(trace: TraceFacts, th: QualityThresholds) -> list[QualityIssue]:
    """Flag a conclusion that gives back what it started from (``circular``, serious).

    Rule (step = the conclusion step, None if only produced), on the conclusion step's content
    or the produced content:

    - it explains itself: a sentence "A because B" (or "since", "so", "therefore", "hence",
      "thus") whose B has no term that A lacks and lacks at most one of A's (the subject a
      pronoun stands for): "the build is slow because it is slow";
    - it copies its one piece of evidence: every step before the conclusion is an observation
      or action, their texts and the known cited texts are one text, and the conclusion is the
      same thought (``similarity >= same_thought_similarity``) — no reasoning happened;
    - it restates the question: the task asks why (`asked_cause`: "why", "how come", "what
      causes"), the conclusion has no term the question lacks, and holds the question
      (``containment >= restate_containment``): "Why is the build slow?" -> "The build is
      slow" names no cause. A yes/no task ("Is the cache enabled?") answered by its statement
      is an answer, not flagged; nor is a conclusion that gives a reason ("... because of Y"),
      even in the task's words ("Why did X fail after Y?" -> "X failed because of Y").

    Args:
        trace: the trace's facts.
        th: the gate's numbers.

    Returns:
        One ``circular`` issue, or none.
    """
    for text in trace.conclusion_texts:
        if _explains_itself(text):
            why = "explains itself by itself"
        elif _copies_evidence(trace, th, text):
            why = "only copies the one observation before it"
        elif _restates_question(trace, th, text):
            why = "restates the task's question instead of answering it"
        else:
            continue
        return [
            QualityIssue(
                code="circular",
                severity=Severity.SERIOUS,
                step=trace.conclusion_index,
                message=f'the conclusion {why} ("{_quote(text)}")',
            )
        ]
    return []
