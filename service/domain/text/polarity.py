"""Polarity of a text (negation and antonym cues) and whether two texts say opposite things."""

from __future__ import annotations

from dataclasses import dataclass

from service.domain.text.lexicon import ANTONYMS, STATEMENT_NEGATIONS, SYNONYMS
from service.domain.text.normalise import words

#: Jaccard overlap of canonical terms from which two texts speak of the same thing.
OPPOSITION_OVERLAP = 0.6


@dataclass(frozen=True)
class Polarity:
    """What `analyse_polarity` found in a text.

    Attributes:
        negative: True when the text carries an odd number of negation/antonym cues.
        terms: the canonical terms (cues dropped, antonyms mapped to one member).
        cues: the cue words found, in order.
    """

    negative: bool
    terms: frozenset[str]
    cues: tuple[str, ...]


def analyse_polarity(text: str) -> Polarity:
    """Find the negation and antonym cues of a text and its canonical terms.

    Args:
        text: any text.

    Returns:
        The polarity: "The flag is not enabled" and "The flag is disabled" are negative, with
        the terms of "the flag is enabled".
    """
    found = words(text)
    terms: set[str] = set()
    cues: list[str] = []
    skip_next = False
    for i, word in enumerate(found):
        if skip_next:
            skip_next = False
            continue
        if word in STATEMENT_NEGATIONS:
            if word == "no" and i + 1 < len(found) and found[i + 1] == "longer":
                cues.append("no longer")
                skip_next = True
            else:
                cues.append(word)
            continue
        if word in ANTONYMS:
            cues.append(word)
            terms.add(ANTONYMS[word])
            continue
        terms.add(SYNONYMS.get(word, word))
    return Polarity(negative=len(cues) % 2 == 1, terms=frozenset(terms), cues=tuple(cues))


def opposed(a: str, b: str) -> tuple[bool, tuple[str, ...]]:
    """Return whether two texts say opposite things about the same thing, and the cues.

    Args:
        a: first text.
        b: second text.

    Returns:
        `(True, cues)` when exactly one is negative and their canonical terms overlap by
        Jaccard >= `OPPOSITION_OVERLAP`; `cues` are the cue words of both texts.
    """
    pa, pb = analyse_polarity(a), analyse_polarity(b)
    if pa.negative == pb.negative or not (pa.terms or pb.terms):
        return False, ()
    overlap = len(pa.terms & pb.terms) / len(pa.terms | pb.terms)
    return overlap >= OPPOSITION_OVERLAP, pa.cues + pb.cues
