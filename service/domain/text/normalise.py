"""The text normaliser: the folded form every comparison uses, and the stored match form."""

from __future__ import annotations

import hashlib
import re
import unicodedata

#: A word: letters/digits (``_`` and punctuation separate words), joined by an inner ``&`` or
#: apostrophe, so ``a&e``, ``at&t`` and ``don't`` stay one word.
_WORD = re.compile(r"[^\W_]+(?:[&'][^\W_]+)*")
_SPACE = re.compile(r"\s+")

#: Longest comparison form stored as is; Neo4j's range index refuses keys over ~8 KB.
MAX_NORM_BYTES = 4_000


def fold(text: str) -> str:
    """Return the folded form every text comparison starts from.

    Args:
        text: any text.

    Returns:
        NFKC-normalised, case-folded, with the typographic apostrophe (U+2019) written ``'``;
        white space and punctuation are kept.
    """
    return unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")


def fold_spaces(text: str) -> str:
    """Return `fold(text)` with runs of white space collapsed to one space and ends trimmed.

    Args:
        text: any text.

    Returns:
        E.g. ``"the cache, full."`` for ``"The  CACHE, full. "``.
    """
    return " ".join(fold(text).split())


def words(text: str) -> list[str]:
    """Return the words of `fold(text)`, in order.

    Args:
        text: any text.

    Returns:
        Runs of letters/digits, an inner ``&`` or ``'`` kept: ``["bob's", "ci", "job"]`` for
        ``"Bob's CI—job"``.
    """
    return _WORD.findall(fold(text))


def loose_text(text: str) -> str:
    """Return the comparison form for duplicates: folded, words only, single spaces.

    Args:
        text: any text.

    Returns:
        E.g. `"alice lives in paris"` for `"Alice lives in Paris."`.
    """
    return " ".join(words(text))


def key_part(text: str) -> str:
    """Return a key part (subject or attribute) with everything but letters and digits dropped.

    Args:
        text: a subject or attribute as stored.

    Returns:
        Folded, only letters and digits: `"homecity"` for `"Home-City"`.
    """
    return "".join(ch for ch in fold(text) if ch.isalnum())


def normalise_for_match(value: str) -> str:
    """Return the comparison form used for idempotency (stored as `content_norm`, range-indexed).

    NFC (not NFKC: the stored form must not change), format characters dropped (Unicode
    category Cf: zero-width space and joiners, soft hyphen, bidirectional marks, BOM; "Rack A"
    and "Rack\u200b A" look the same and are one memory), case-folded, white space collapsed;
    a form over `MAX_NORM_BYTES` UTF-8 bytes becomes `"sha256:<64 hex digits>"` of itself, so
    long texts still dedupe and fit the index.

    Args:
        value: the text as stored.

    Returns:
        The stored comparison form (at most `MAX_NORM_BYTES` bytes, or a 71-character hash).
    """
    visible = "".join(ch for ch in value if unicodedata.category(ch) != "Cf")
    norm = _SPACE.sub(" ", unicodedata.normalize("NFC", visible).casefold()).strip()
    raw = norm.encode("utf-8", "surrogatepass")
    if len(raw) <= MAX_NORM_BYTES:
        return norm
    return "sha256:" + hashlib.sha256(raw).hexdigest()
