"""Input checks shared by every door: valid Unicode, no NUL, size limits, NFC, bounded JSON."""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from service.errors import InvalidInputError, TooLargeError
from service.json_types import INT64_MAX, INT64_MIN

#: Unicode general categories that show nothing: format and control characters.
_INVISIBLE = frozenset({"Cf", "Cc"})


def has_visible_text(value: str) -> bool:
    """Return whether `value` holds a character neither white space nor invisible.

    Invisible = Unicode categories Cf (zero-width space U+200B, joiners, byte-order mark U+FEFF)
    and Cc (control characters such as U+0001 or DEL, which print nothing).
    """
    return any(not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE for ch in value)


def strip_leading_invisible(value: str) -> str:
    """Return `value` without the invisible characters it starts with (white space is kept).

    Invisible as in `has_visible_text`: categories Cf (byte-order mark U+FEFF, zero-width
    space U+200B, direction marks) and Cc other than white space. A text starting with a
    byte-order mark (as editors on Windows save UTF-8) then reads like the same text without one.
    """
    start = 0
    while (
        start < len(value)
        and not value[start].isspace()
        and unicodedata.category(value[start]) in _INVISIBLE
    ):
        start += 1
    return value[start:]


def clean_text(value: str, *, field: str, max_chars: int) -> str:
    """Return `value` NFC-normalised, after checking it is valid Unicode and small enough.

    Args:
        value: the text as received.
        field: the field's name, for the error message.
        max_chars: the documented limit in characters.

    Returns:
        The NFC form, otherwise unchanged (no trimming).

    Raises:
        InvalidInputError: lone surrogates, NUL characters, or only white space and
            invisible format or control characters (e.g. U+200B zero-width space, U+0001).
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
    if not has_visible_text(value):
        raise InvalidInputError(
            f"{field}: must not be empty or only white space, invisible format or control "
            "characters"
        )
    value = unicodedata.normalize("NFC", value)
    if len(value) > max_chars:
        raise TooLargeError(f"{field}: {len(value)} characters, the limit is {max_chars}")
    return value


#: Deepest nesting accepted in free JSON (metadata, self-assessment).
MAX_JSON_DEPTH = 32


def check_json(value: Any, *, field: str, depth: int = 0) -> None:
    """Check free-form JSON before it is stored: valid Unicode, finite numbers, bounded depth.

    Args:
        value: parsed JSON (dicts, lists, strings, numbers, booleans, None).
        field: the field's name, for the error message.
        depth: current nesting (callers pass nothing).

    Raises:
        InvalidInputError: lone surrogates or NUL in a key or string, NaN or infinity, an
            integer outside [`INT64_MIN`, `INT64_MAX`], or nesting deeper than `MAX_JSON_DEPTH`.
    """
    if depth > MAX_JSON_DEPTH:
        raise InvalidInputError(f"{field}: nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInputError(f"{field}: invalid Unicode (a lone surrogate?)") from exc
        if "\x00" in value:
            raise InvalidInputError(f"{field}: NUL characters are not allowed")
    elif isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            raise InvalidInputError(
                f"{field}: an integer is outside the 64-bit range [{INT64_MIN}, {INT64_MAX}]"
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(f"{field}: NaN and infinity are not JSON numbers")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_json(key, field=field, depth=depth + 1)
            check_json(item, field=field, depth=depth + 1)
    elif isinstance(value, list):
        for item in value:
            check_json(item, field=field, depth=depth + 1)
