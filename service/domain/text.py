"""Text rules shared by every door: NFC, valid Unicode, size limits, normalised comparison form."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from service.errors import InvalidInputError, TooLargeError

_SPACE = re.compile(r"\s+")


def clean_text(value: str, *, field: str, max_chars: int) -> str:
    """Return `value` NFC-normalised, after checking it is valid Unicode and small enough.

    Args:
        value: the text as received.
        field: the field's name, for the error message.
        max_chars: the documented limit in characters.

    Returns:
        The NFC form, otherwise unchanged (no trimming).

    Raises:
        InvalidInputError: lone surrogates, NUL characters, or only white space.
        TooLargeError: more than `max_chars` characters.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{field}: invalid Unicode at position {exc.start} (a lone surrogate?)"
        ) from exc
    if "\x00" in value:
        raise InvalidInputError(f"{field}: NUL characters are not allowed")
    if not value.strip():
        raise InvalidInputError(f"{field}: must not be empty or only white space")
    if len(value) > max_chars:
        raise TooLargeError(f"{field}: {len(value)} characters, the limit is {max_chars}")
    return unicodedata.normalize("NFC", value)


#: Longest comparison form stored as is; Neo4j's range index refuses keys over ~8 KB.
MAX_NORM_BYTES = 4_000


def normalise_for_match(value: str) -> str:
    """Return the comparison form used for idempotency (stored as `content_norm`, range-indexed).

    NFC, case-folded, white space collapsed; a form over `MAX_NORM_BYTES` UTF-8 bytes becomes
    `"sha256:<64 hex digits>"` of itself, so long texts still dedupe and fit the index.
    """
    norm = _SPACE.sub(" ", unicodedata.normalize("NFC", value).casefold()).strip()
    raw = norm.encode("utf-8", "surrogatepass")
    if len(raw) <= MAX_NORM_BYTES:
        return norm
    return "sha256:" + hashlib.sha256(raw).hexdigest()
