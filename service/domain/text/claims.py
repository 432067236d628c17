"""Statements of a text with their negation read off: sentence claims, explanations, name marks."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from service.domain.text.lexicon import (
    ANTONYMS,
    DEONTIC_MODALS,
    STATEMENT_NEGATIONS,
    STOPWORDS,
    SYNONYMS,
)
from service.domain.text.normalise import words
from service.domain.text.terms import NOT_TERM, terms

#: A sentence ends at ``.``, ``!``, ``?`` or ``;`` followed by white space, or at a line break
#: (``config.yaml`` and ``3.2`` stay whole).
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")

#: Words that make a sentence a condition or an open question rather than a claim.
CONDITIONALS: frozenset[str] = frozenset(
    {"if", "unless", "whether", "when", "whenever", "suppose", "supposing", "assuming"}
)

#: Verbs that, followed by "to", say what ought to be ("needs to be enabled", "has to go").
_OBLIGING = frozenset({"need", "needs", "have", "has"})

#: Where a sentence joins two statements, each a claim of its own (`claims`): ", and", ", but",
#: " but ", ", while", ", whereas", a colon ("Not the parser: it handles empty input"), a
#: consequence or a reason (", so", ", therefore", ", hence", ", thus", "which means", ",
#: meaning", ", because", ", since", ", as", " because " but not "because of": trial 22, "the
#: flag is enabled, so the rollout is complete" hid its first clause in a longer claim).
#: "so that" opens a purpose, which states no fact: the clause after it is left out.
_CLAUSE_BREAK = re.compile(
    r"(?i)(?P<purpose>,?\s*\bso\s+that\s+)"
    r"|,\s*(?:and|but|while|whereas|so|therefore|hence|thus|because|since|as)\s+"
    r"|,\s*meaning(?:\s+that)?\s+|,?\s+which\s+means(?:\s+that)?\s+"
    r"|\s+(?:but|because(?!\s+of\b))\s+|:\s+"
)
#: A sentence opening with its reason ("Since the flag is enabled, the rollout is complete"):
#: the reason runs to the first comma.
_LEADING_REASON = re.compile(r"(?i)^\s*(?:because|since|as)\s+([^,]+),\s*")
#: A bare "and" or "so" inside a clause: a break only between two statements (`_joined`).
_JOINER = re.compile(r"(?i)\s+(and|so)\s+")
#: Finite verbs a statement holds ("is", "are", "has", "can", ...); with the negated forms
#: ("isn't", "cannot") they tell "the flag is on and the rollout is done" (two statements) from
#: "Redis and Postgres are down" (one). A closed list: "the cache works and the queue drains"
#: stays one claim (a missed split misses a contradiction; a wrong one would invent one).
_FINITE = frozenset(
    {"am", "is", "are", "was", "were", "has", "have", "had", "do", "does", "did"}
    | {"can", "could", "will", "would", "may", "might", "it's", "there's", "that's"}
    | {w for w in STATEMENT_NEGATIONS if w.endswith(("n't", "nt")) or w == "cannot"}
)
#: Words that open a statement's subject: after a bare "so" they tell "..., so the rollout is
#: complete" (a consequence) from "is so slow" (a degree).
_SUBJECT_OPENERS = frozenset(
    {"the", "a", "an", "this", "these", "those", "it", "its", "they", "their", "we", "our"}
    | {"there", "no", "nothing", "none", "all", "every", "each", "i", "you", "he", "she"}
)
#: A reply word opening a sentence ("No, the parser handles it", "Yes: ..."): an answer to
#: the task, not a negation of what follows (trial 21).
_REPLY = re.compile(r"(?i)^\s*(?:no|nope|yes|yeah|yep)\s*[,:;.!\u2013\u2014-]+\s*")

#: Words after which a sentence gives the reason for (or the consequence of) what precedes.
EXPLAINERS: frozenset[str] = frozenset({"because", "since", "so", "therefore", "hence", "thus"})

#: A single capital letter standing alone ("service Y", "plan B"), not an initial ("U.S.").
_NAME_MARK = re.compile(r"(?<![\w'&.\-])([A-Z])(?![\w'&]|[.\-]\w)")


@dataclass(frozen=True)
class Claim:
    """One sentence read as a claim: what it says and whether it says it negatively.

    Attributes:
        negative: True when the sentence carries an odd number of negation/antonym cues.
        core: its content terms in order (`terms`), cues dropped, the negative member of an
            antonym pair mapped to its positive one ("disabled" -> the term of "enabled").
        cues: the cue words found, in order.
    """

    negative: bool
    core: tuple[str, ...]
    cues: tuple[str, ...]


def sentences(text: str) -> list[str]:
    """Return the non-empty sentences of a text, terminators kept.

    Args:
        text: any text.

    Returns:
        E.g. ``["The cache is on.", "Is it used?"]`` for ``"The cache is on. Is it used?"``.
    """
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _is_negation(word: str) -> bool:
    return word in STATEMENT_NEGATIONS or word.endswith("n't")


def _prescribes(found: list[str]) -> bool:
    """Whether a sentence's words say what ought to be ("should", "must", "needs to", ...)."""
    return any(
        w in DEONTIC_MODALS or (w in _OBLIGING and i + 1 < len(found) and found[i + 1] == "to")
        for i, w in enumerate(found)
    )


def read_claim(sentence: str) -> Claim | None:
    """Read one sentence (or clause) as a claim, its negation cues apart from what it says.

    Negation cues are the `STATEMENT_NEGATIONS` ("not", "no", "never", "cannot", "isn't", ...),
    any other word ending in "n't", and the negative member of an `ANTONYMS` pair (a word of
    `SYNONYMS` reads as the word it stands for: "succeeded" as "passed"); "no longer"
    is one cue, and "anymore" belongs to the cue before it ("not enabled anymore"). "The cache
    isn't enabled", "The cache is not enabled" and "The cache is disabled" are the negative
    claim whose core is that of "The cache is enabled". A report keeps its frame ("the ticket
    says the bug is fixed" is a claim about the ticket, which the evidence may then refute).

    Args:
        sentence: one sentence (see `sentences`) or one clause of it (see `claims`).

    Returns:
        The claim, or None for a question (ends with "?"), a condition (holds one of
        `CONDITIONALS`: "if", "whether", "unless", ...) or advice (a `DEONTIC_MODALS` word or
        "need/has/have to": "the cache should be enabled" says what ought to be, not what is).
    """
    if sentence.rstrip().endswith("?"):
        return None
    found = words(_REPLY.sub("", sentence))
    if any(w in CONDITIONALS for w in found) or _prescribes(found):
        return None
    core: list[str] = []
    cues: list[str] = []
    for i, word in enumerate(found):
        if (word == "longer" and i > 0 and found[i - 1] == "no") or (word == "anymore" and cues):
            cues[-1] = f"{cues[-1]} {word}"
        elif _is_negation(word):
            cues.append(word)
        elif word in ANTONYMS:
            cues.append(word)
            core.extend(terms(ANTONYMS[word]))
        elif word in SYNONYMS:
            core.extend(terms(SYNONYMS[word]))
        else:
            core.extend(t for t in terms(word) if t != NOT_TERM)
    return Claim(negative=len(cues) % 2 == 1, core=tuple(core), cues=tuple(cues))


def _has_verb(clause: str) -> bool:
    return any(w in _FINITE for w in words(clause))


def _joined(clause: str) -> list[str]:
    """Split a clause at a bare "and" or "so" that joins two statements.

    "and" breaks when the parts on both sides of it (up to the next "and"/"so") hold a finite
    verb (`_FINITE`): "the flag is enabled and the rollout is complete" is two claims,
    "Redis and Postgres are down" and "the cache is warm and fast" one. "so" breaks on the
    same condition when the part after it opens with a subject (`_SUBJECT_OPENERS`): "the flag
    is enabled so the rollout is complete", not "the build is so slow it is killed".
    """
    parts = _JOINER.split(clause)  # [part, joiner, part, joiner, part, ...]
    out = [parts[0]]
    for k in range(1, len(parts), 2):
        left, joiner, right = parts[k - 1], parts[k].casefold(), parts[k + 1]
        opens = words(right)[:1]
        breaks = _has_verb(left) and _has_verb(right)
        if joiner == "so":
            breaks = breaks and bool(opens) and opens[0] in _SUBJECT_OPENERS
        if breaks:
            out.append(right)
        else:
            out[-1] = f"{out[-1]} {parts[k]} {right}"
    return out


def clauses(sentence: str) -> list[str]:
    """Split a sentence into the clauses that each state something of their own.

    Breaks: `_CLAUSE_BREAK` (", and", ", but", ", so", ", therefore", "which means", ",
    because", " because ", a colon, ...), a leading reason ("Since X, Y": X and Y), and a bare
    "and"/"so" between two statements (`_joined`). A purpose ("so that X") is left out.

    Args:
        sentence: one sentence (see `sentences`).

    Returns:
        The clauses in order, e.g. ``["the flag is enabled", "the rollout is complete"]`` for
        ``"Since the flag is enabled, the rollout is complete"``.
    """
    out: list[str] = []
    start, purpose = 0, False
    leading = _LEADING_REASON.match(sentence)
    if leading is not None:
        out.extend(_joined(leading.group(1)))
        start = leading.end()
    for found in _CLAUSE_BREAK.finditer(sentence, start):
        if not purpose:
            out.extend(_joined(sentence[start : found.start()]))
        start, purpose = found.end(), found.group("purpose") is not None
    if not purpose:
        out.extend(_joined(sentence[start:]))
    return [c for c in out if c.strip()]


def claims(text: str) -> list[Claim]:
    """Return the claims of a text, clause by clause (questions and conditions left out).

    A sentence joining two statements (", and", ", but", a colon, ", so", "which means",
    "because", "since", a bare "and" between two statements: `clauses`) gives one claim per
    clause, a reply word opening it ("No, ...") left out: "The build passed, but the cache is
    disabled." claims both (trial 18: only a sentence's whole was compared), and so does "The
    flag is enabled, so the rollout is complete" (trial 22). A sentence holding a condition is
    no claim at all, whichever clause holds it.

    Args:
        text: any text.

    Returns:
        One `Claim` per clause that states something, in order.
    """
    out: list[Claim] = []
    for sentence in sentences(text):
        if any(w in CONDITIONALS for w in words(sentence)):
            continue
        for clause in clauses(sentence):  # `read_claim` drops a reply word
            claim = read_claim(clause)
            if claim is not None:
                out.append(claim)
    return out


def explanation(sentence: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Split a sentence at its first explaining word into what it claims and what it gives.

    Args:
        sentence: one sentence.

    Returns:
        The terms (`terms`, negation kept as ``not``) before and after the first word of
        `EXPLAINERS` ("because", "since", "so", "therefore", "hence", "thus"), or None when the
        sentence holds none or either side has no term.
    """
    found = words(sentence)
    at = next((i for i, w in enumerate(found) if w in EXPLAINERS), None)
    if at is None:
        return None
    claim, reason = terms(" ".join(found[:at])), terms(" ".join(found[at + 1 :]))
    return (claim, reason) if claim and reason else None


def asked_cause(text: str) -> tuple[str, ...] | None:
    """Return the terms of the cause a text asks for ("Why is the build slow?" -> build, slow).

    Args:
        text: a task or question.

    Returns:
        The terms (`terms`, negation kept) of the first sentence's part from "why" (or "how
        come", or "what" followed by "cause(s|d)") to its end; None when no sentence asks why.
    """
    for sentence in sentences(text):
        found = words(sentence)
        for i, word in enumerate(found):
            after = found[i + 1] if i + 1 < len(found) else ""
            if word == "why":
                return terms(" ".join(found[i + 1 :]))
            if (word, after) == ("how", "come") or (
                word == "what" and after in ("causes", "caused", "cause")
            ):
                return terms(" ".join(found[i + 2 :]))
    return None


def name_marks(text: str) -> set[str]:
    """Return the single capital letters a text uses as names ("service Y", "plan B").

    `terms` drops one-character words (mostly noise); a capital letter standing alone names
    a thing two texts can share. Initials ("U.S.") and the words "A" and "I" do not count.

    Args:
        text: any text.

    Returns:
        The letters, case-folded and prefixed with ``"#"`` (``{"#y"}``) so that they never equal
        a term.
    """
    found = _NAME_MARK.findall(unicodedata.normalize("NFKC", text))
    return {f"#{c.casefold()}" for c in found if c.casefold() not in STOPWORDS}
