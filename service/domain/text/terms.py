"""The term engine: content terms, shingles, and the similarity/containment of two texts.

Every comparison works on *terms*: the text is folded (`fold`: NFKC, case-folded), split into
words (`words`: ``_`` and punctuation separate words, except an inner ``&`` or apostrophe),
negations (`NEGATIONS`) become the term ``not``, single characters and English `STOPWORDS` are
dropped, and each word is lightly stemmed (one suffix of ``ies -> y``, ``ing``, ``ed``, ``es``,
``s`` is removed when at least three characters remain; a lone ``s`` is kept after ``s``, ``u``
or ``i``: "pass", "status", "analysis" are no plurals, and "passes" meets "pass"; ``ed`` is kept
after ``e``: "succeed", "proceed"; then a final ``e`` goes when four characters remain:
"cache", "caching", "cached" and "caches" are one term; a consonant doubled before ``ing`` or
``ed`` is undoubled, "running" and "stopped" meeting "run" and "stop"; irregular verb forms
are read as their base first, `IRREGULAR_FORMS`: "ran" is "run"). The *shingles* of a text are its terms
plus its adjacent term pairs (bigrams).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import pairwise

from service.domain.text.lexicon import IRREGULAR_FORMS, NEGATIONS, STOPWORDS
from service.domain.text.normalise import fold_spaces, words

#: The term every negation word becomes.
NOT_TERM = "not"

_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ies", "y"),
    ("ing", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
)


#: Endings whose final ``s`` is no plural (``pass``, ``status``, ``analysis``): `_stem` keeps it.
#: (Fresh-user trial 17: "pass" became "pas", so "the build does not pass" never met "the
#: build passes", and the quality gate let that contradiction through.)
_NOT_PLURAL = ("ss", "us", "is")

#: A doubled final consonant left by "ing"/"ed" ("runn", "stopp"); l, s and z stay doubled.
_DOUBLED = re.compile(r"([b-df-hj-kmnp-rtv-y])\1$")


def _stem(word: str) -> str:
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if (suffix == "s" and word.endswith(_NOT_PLURAL)) or (
                suffix == "ed" and word.endswith("eed")
            ):
                break
            word = word[: -len(suffix)] + replacement
            if suffix in ("ing", "ed") and _DOUBLED.search(word) and len(word) >= 4:
                # "running" -> "run", "stopped" -> "stop" ("passed", "called" keep theirs).
                word = word[:-1]
            break
    # A final e goes too, so a verb or noun meets its inflections: "cache", "caching",
    # "cached" and "caches" are all "cach" (trial 18: "caching" never met "cache").
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


@lru_cache(maxsize=65536)
def _terms_cached(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for word in words(text):
        if word in NEGATIONS:
            out.append(NOT_TERM)
            continue
        if word in STOPWORDS:
            continue
        if word.endswith("'s"):
            word = word[:-2]
        word = word.replace("'", "")
        if len(word) < 2 or word in STOPWORDS:
            continue
        out.append(_stem(IRREGULAR_FORMS.get(word, word)))
    return tuple(out)


def terms(text: str) -> tuple[str, ...]:
    """Return the content terms of a text, in order.

    Args:
        text: any text.

    Returns:
        The folded, stopword-free, lightly stemmed words (length >= 2), duplicates kept;
        negations become `NOT_TERM`.
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


def similarity(a: str, b: str) -> float:
    """Return the Jaccard similarity of two texts' shingle sets.

    Args:
        a: first text.
        b: second text.

    Returns:
        A float in [0, 1]; 1.0 for identical term sets. Texts without any term are compared
        on their folded, white-space-collapsed form (`fold_spaces`: 1.0 if equal, else 0.0).
    """
    sa, sb = shingles(a), shingles(b)
    if not sa or not sb:
        return 1.0 if not sa and not sb and fold_spaces(a) == fold_spaces(b) else 0.0
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


def restate_score(part: str, whole: str) -> float:
    """Return how far `whole` restates `part`: the larger of their similarity and containment.

    Args:
        part: the text that may be restated (e.g. a hypothesis).
        whole: the text that may restate it (e.g. a conclusion).

    Returns:
        ``max(similarity(part, whole), containment(part, whole))``, in [0, 1].
    """
    return max(similarity(part, whole), containment(part, whole))


def topic_terms(texts: Iterable[str]) -> set[str]:
    """Return the terms of texts without `NOT_TERM` (a negation says nothing about the topic).

    Args:
        texts: any texts.

    Returns:
        The union of their terms, minus ``"not"``.
    """
    out: set[str] = set()
    for text in texts:
        out.update(terms(text))
    out.discard(NOT_TERM)
    return out
