"""An agent taking back its own earlier guess: which earlier thought a later thought retracts."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from service.domain.models import StepDraft, StepKind, StepStatus
from service.domain.text import NOT_TERM, terms, topic_terms

#: Words that voice a guess or a plan not yet checked ("I suspect", "**Suspecting float
#: arithmetic**", "maybe", "it's possible", "I think we should"): only a sentence holding one
#: can be retracted (an observed fact or a plain statement is never turned into a hypothesis).
SUSPICION = re.compile(
    r"(?i)\b(?:suspect(?:s|ed|ing)?|maybe|perhaps|possibl[ey]|probably|likely|might|may be"
    r"|could be|i think|i guess|my guess|hypothes[ie]s|seems? (?:like|to be))\b"
)

#: "I was wrong about X", "I was mistaken about X": X follows.
_WRONG_ABOUT = re.compile(r"(?i)\bI(?: was| am|'m) (?:wrong|mistaken) about (?P<subject>.+)$")
#: "I was wrong", "that's not it", "scratch that", "that hypothesis is wrong": no subject; the
#: thought just before is meant.
_BARE = re.compile(
    r"(?i)(?:\bI was (?:wrong|mistaken)\b|\bthat(?:'s| is| was|'s just) not it\b"
    r"|\bthat wasn't it\b|\bscratch that\b"
    r"|\b(?:that|this|the|my) (?:first |second |third |)(?:hypothesis|theory|guess|idea) (?:is|was)"
    r" (?:wrong|rejected|incorrect|disproved|refuted|ruled out)\b)"
)
#: "X is not the cause", "X isn't the culprit", "X was not the bottleneck": X comes before.
_NOT_THE_CAUSE = re.compile(
    r"(?i)\b(?:is|are|was|were)(?: not|n't)(?: actually| really| clearly)? (?:the|a) "
    r"(?:cause|culprit|problem|issue|bottleneck|reason|root cause)\b"
)
#: "ruled out X", "this rules out X", "X is ruled out" (never "let me rule out X": a plan).
_RULED_OUT = re.compile(r"(?i)\b(?:ruled|rules) out\b")
#: "Actually, X isn't ...", "Wait, actually X does not ...": "actually" opening the sentence,
#: X (one clause) between it and a negated verb.
_ACTUALLY = re.compile(
    r"(?i)^(?:\W*(?:wait|hmm+|oh|no|ok(?:ay)?|but)\b\W*)*actually,? (?P<subject>[^,;.!?]{1,80}?) "
    r"(?:is not|isn't|are not|aren't|was not|wasn't|were not|weren't|does not|doesn't|do not"
    r"|don't|did not|didn't|won't|will not)\b"
)
#: Words after "ruled out" that name nothing ("that is ruled out as well"): the subject is
#: then before it, or the thought before (trial 23).
_FILLER = re.compile(r"(?i)^\s*(?:as well|too|also|either|now|entirely|completely|for good)\b")
#: A clause in which a retraction is only supposed ("if floats are not the cause", "whether
#: ..., "unless ...").
_CONDITIONAL = re.compile(r"(?i)\b(?:if|whether|unless|in case|suppose)\b")
#: Doubt right before "ruled out": "not ruled out", "hasn't been ruled out", "can't be ...".
_DOUBTED = re.compile(r"(?i)(?:\bnot|n't|\bnever|\byet)(?: been| be| yet)?\s*$")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE_END = re.compile(r"(?i)[.,;:!?()\u2014]|\s(?:so|and|but|because|since|then|thus|while)\s")

#: Where a sentence's clauses part for reading a guess: a semicolon, ", which", ", so", ",
#: because", ", but" (not a colon: "Second hypothesis: X" voices X).
_GUESS_PARTS = re.compile(r"(?i);\s|,\s*(?:which|so|because|but)\s")
#: Most words of a sentence that is only a bare retraction ("That is ruled out as well."): it
#: needs no shared terms with the guess right before it (trial 25: in ReAct an action and an
#: observation always stand between, and the retraction names nothing).
MAX_BARE_WORDS = 8
#: Fewest topic terms a bare retraction ("that's not it") shares with the thought before it.
MIN_BARE_SHARED_TERMS = 2


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s.strip()]


def _clause_after(text: str) -> str:
    end = _CLAUSE_END.search(text)
    return text[: end.start()] if end else text


def _clause_before(text: str) -> str:
    ends = list(_CLAUSE_END.finditer(text))
    return text[ends[-1].end() :] if ends else text


def retracted_subjects(text: str) -> list[str | None]:
    """Return what a thought says the agent was wrong about, one entry per retraction.

    A sentence that is a question, or whose retraction stands in a condition ("if X is not
    the cause"), retracts nothing.

    Args:
        text: the agent's thought.

    Returns:
        The retracted subjects in order: the words naming it ("the renderer" of "I was wrong
        about the renderer", "floats" of "so floats are not the cause", what follows "ruled
        out" or precedes "is ruled out", what lies between "actually" and a negated verb), or
        None for a retraction without subject ("I was wrong", "that's not it").
    """
    found: list[str | None] = []
    for sentence in _sentences(text):
        if sentence.endswith("?"):
            continue
        subject: str | None
        if m := _WRONG_ABOUT.search(sentence):
            subject = _clause_after(m.group("subject"))
        elif m := _NOT_THE_CAUSE.search(sentence):
            subject = _clause_before(sentence[: m.start()])
        elif m := _RULED_OUT.search(sentence):
            if _DOUBTED.search(sentence[: m.start()]):
                continue
            after = _FILLER.sub("", _clause_after(sentence[m.end() :]))
            subject = after if topic_terms([after]) else _clause_before(sentence[: m.start()])
        elif m := _ACTUALLY.search(sentence):
            subject = m.group("subject")
        elif m := _BARE.search(sentence):
            subject = None
        else:
            continue
        if subject is not None and not topic_terms([subject]):
            subject = None  # "that is ruled out as well": the thought before is meant
        if not _CONDITIONAL.search(_clause_before(sentence[: m.start()])):
            found.append(subject)
    return found


def _hedged_sentences(text: str) -> list[str]:
    # A negated guess ("maybe floats are not the cause") is left out: a later "floats are not
    # the cause" confirms it. A sentence is read clause by clause (`_GUESS_PARTS`): "My first
    # hypothesis is clock skew: ... which freezegun does not patch" voices the guess in its
    # first part, and the negation of a later clause is not the guess's (trial 23).
    return [
        part
        for s in _sentences(text)
        for part in _GUESS_PARTS.split(s)
        if SUSPICION.search(part) and NOT_TERM not in terms(part) and not retracted_subjects(part)
    ]


def retracted_step(
    steps: Sequence[StepDraft], text: str, rejected: Collection[int] = ()
) -> int | None:
    """Return the index of the earlier thought a new thought retracts, or None.

    Only a ``thought`` step counts (never the request, a user message, an action or a tool
    output), and only one no step rejected yet, with a sentence voicing a guess or a plan
    (`SUSPICION`) that is neither negated nor a retraction itself. For a retraction with a subject
    (`retracted_subjects`), that sentence must hold at least half of the subject's topic terms
    (at least one); the thought holding the most wins, the latest on a tie. A retraction
    without subject ("that's not it") takes the thought right before it (no thought in
    between), when a hedged sentence of it shares `MIN_BARE_SHARED_TERMS` topic terms with
    the retracting text, or when the retraction is a short sentence of its own (at most
    `MAX_BARE_WORDS` words: "That is ruled out as well."). When nothing matches, nothing is retracted: a wrong link is worse
    than a missed one.

    Args:
        steps: the trace's steps so far (the new thought not among them).
        text: the new thought.
        rejected: indexes of steps some step already rejects.

    Returns:
        The retracted step's index, or None.
    """
    subjects = retracted_subjects(text)
    if not subjects:
        return None
    thoughts = [i for i, s in enumerate(steps) if s.kind == StepKind.THOUGHT and i not in rejected]
    for subject in subjects:
        if subject is None:
            last = next(
                (i for i in range(len(steps) - 1, -1, -1) if steps[i].kind == StepKind.THOUGHT),
                None,
            )
            if last is None or last not in thoughts:
                continue
            own = topic_terms([text])
            short = any(  # "That is ruled out as well." alone in its sentence
                len(x.split()) <= MAX_BARE_WORDS and retracted_subjects(x) == [None]
                for x in _sentences(text)
            )
            if any(
                short or len(topic_terms([s]) & own) >= MIN_BARE_SHARED_TERMS
                for s in _hedged_sentences(steps[last].content)
            ):
                return last
            continue
        wanted = topic_terms([subject])
        if not wanted:
            continue
        least = max(1, (len(wanted) + 1) // 2)
        best: tuple[int, int] | None = None
        for i in thoughts:
            score = max(
                (len(topic_terms([s]) & wanted) for s in _hedged_sentences(steps[i].content)),
                default=0,
            )
            if score >= least and (best is None or score >= best[0]):
                best = (score, i)
        if best is not None:
            return best[1]
    return None


def mark_retractions(steps: Sequence[StepDraft]) -> tuple[StepDraft, ...]:
    """Return the steps with each thought that takes back an earlier guess rejecting it.

    The same rule as a session's (`retracted_step`, applied as each thought arrives), for a
    trajectory whose steps are read whole (SWE-agent, mini-swe-agent, OpenHands, ReAct; trial
    23: "My first hypothesis is clock skew" ... "so clock skew is not the cause" left both
    `asserted`): the retracted thought becomes a ``hypothesis`` and the retracting thought
    `rejects` it, besides what it rejected already.

    Args:
        steps: a trace's steps in order.

    Returns:
        The steps, changed where a retraction was found (the same tuple's contents otherwise).
    """
    out = list(steps)
    for i, step in enumerate(out):
        if step.kind != StepKind.THOUGHT:
            continue
        rejected = {r for s in out[:i] for r in s.rejects}
        retracted = retracted_step(out[:i], step.content, rejected)
        if retracted is None:
            continue
        out[retracted] = replace(out[retracted], status=StepStatus.HYPOTHESIS)
        out[i] = replace(step, rejects=(*step.rejects, retracted))
    return tuple(out)
