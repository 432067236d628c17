"""What every format parser shares: `FormatError`, the size limits and small text helpers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import PurePosixPath
from typing import Any

from service.domain.text import has_visible_text, strip_leading_invisible

#: Longest observation text of a document (an ADR section) kept, in characters; longer ones
#: are cut and marked. Tool output in agent runs is trimmed to its head and tail instead
#: (`session.trim_observation`).
MAX_OBSERVATION_CHARS = 4000
#: Longest task text kept, in characters.
MAX_TASK_CHARS = 2000
#: Longest action or conclusion text kept, in characters.
MAX_STEP_CHARS = 4000
#: Largest chunk of the ``text`` format, in characters.
MAX_TEXT_CHUNK_CHARS = 2000


class FormatError(ValueError):
    """Handed-in material is not valid for its (declared or detected) format.

    Attributes:
        code: stable error code ``"input.invalid_format"`` (HTTP 422).
        message: what is wrong, starting with the format name.
    """

    code = "input.invalid_format"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def truncate(text: str, limit: int) -> str:
    """Return `text` cut to `limit` characters, with a marker saying how much was cut.

    Args:
        text: any text.
        limit: characters kept.

    Returns:
        The text unchanged when it fits, else its first `limit` characters and a marker line.
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… [truncated: {len(text) - limit} of {len(text)} characters cut]"


def source_stem(source_name: str) -> str:
    """Return the file stem of a source name (``"source"`` when it has none).

    Args:
        source_name: a file name, path or URL (backslashes accepted as separators).

    Returns:
        The last path part without its last suffix.
    """
    name = PurePosixPath(source_name.replace("\\", "/")).name
    return name.rsplit(".", 1)[0] if "." in name else (name or "source")


def check_text(content: str, fmt: str) -> str:
    """Refuse empty or binary-looking content; return it as the parsers read it.

    Every document enters parsing here (`parse_document`, `detect`): the invisible characters
    it starts with (`strip_leading_invisible`: a UTF-8 byte-order mark, zero-width spaces) are
    dropped, so that they change no format's parsing -- an ADR keeps its ``# ADR n`` title, a
    JSON or JSON Lines document its first line. The document's identity (the source's sha256)
    stays that of the bytes handed in; the caller computes it before.

    Content is empty when it shows nothing: only white space and invisible characters (Unicode
    format characters, category Cf, such as U+200B zero-width space or U+FEFF byte-order mark;
    control characters, Cc), the same rule as every other text field (`clean_text`).

    Args:
        content: the material.
        fmt: the format name, for the message.

    Returns:
        The content without its leading invisible characters (otherwise unchanged).

    Raises:
        FormatError: empty content, a NUL byte, or over 5% control characters in the first 64 KiB.
    """
    if not content.strip():
        raise FormatError(f"{fmt}: content is empty")
    sample = content[:65536]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    if "\x00" in sample or controls / len(sample) > 0.05:
        raise FormatError(
            f"{fmt}: content looks binary ({controls} control "
            f"character{'' if controls == 1 else 's'} in the first {len(sample)})"
        )
    if not has_visible_text(content):
        raise FormatError(f"{fmt}: content is empty (only white space and invisible characters)")
    return strip_leading_invisible(content)


def load_json(content: str, fmt: str) -> Any:
    """Parse JSON content.

    Args:
        content: the material.
        fmt: the format name, for the message.

    Returns:
        The decoded JSON value.

    Raises:
        FormatError: invalid JSON (with line and column) or JSON nested too deeply.
    """
    try:
        return json.loads(content)
    except json.JSONDecodeError as exc:
        raise FormatError(
            f"{fmt}: not valid JSON ({exc.msg}: line {exc.lineno} column {exc.colno})"
        ) from exc
    except RecursionError as exc:
        raise FormatError(f"{fmt}: JSON is nested too deeply") from exc


def kind_of(record: Any, key: str = "type") -> str | None:
    """Return a JSON record's `type` (or `key`) when it is text, else None.

    A mangled line can carry any JSON there (`"type": {}`), and `{} in frozenset(...)` raises
    TypeError: a fuzzed session log was a 500 instead of being read around the line.
    """
    value = record.get(key) if isinstance(record, dict) else None
    return value if isinstance(value, str) else None


def obs(index: int) -> str:
    """Return the cite of the unit's `index`-th observation (``"obs:<index>"``)."""
    return f"obs:{index}"


def as_text(value: Any) -> str:
    """Return a JSON value as text: strings as is, lists of parts joined, others as JSON.

    Args:
        value: None, a string, a list (of strings or ``{"text": ...}`` parts, each read the same
            way) or any JSON value.

    Returns:
        The text (empty for None).
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [
            as_text(item.get("text")) if isinstance(item, dict) else as_text(item) for item in value
        ]
        return "\n".join(p for p in parts if p)
    return json.dumps(value, ensure_ascii=False, default=str)


def tagged(text: str, tags: Sequence[str]) -> str | None:
    """Return the stripped text inside the first of `tags` that `text` holds whole, or None.

    ``<pr_description> ... </pr_description>``: tags are tried in the order given, each by two
    string searches (a pattern spanning to a closing tag rescanned to the end of the text at
    every unclosed opener: 100,000 ``<issue>`` took minutes). An empty inside counts as none.
    """
    for tag in tags:
        start = text.find(f"<{tag}>")
        end = text.find(f"</{tag}>", start) if start >= 0 else -1
        inner = text[start + len(tag) + 2 : end].strip() if end >= 0 else ""
        if inner:
            return inner
    return None


def parse_time(value: Any) -> datetime | None:
    """Return a timestamp as a timezone-aware UTC datetime, or None when it is not one.

    A time with another offset is converted to UTC; one that then falls outside the times a
    `datetime` can hold (``9999-12-31T23:59:59-05:00`` is in year 10000 in UTC) is None too,
    like any time that cannot be read.

    Args:
        value: a datetime (naive = UTC), a date (UTC midnight) or an ISO 8601 string.

    Returns:
        The time in UTC, or None for anything else (including unparsable strings).
    """
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    elif not isinstance(value, str) or not value.strip():
        return None
    else:
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    if not parsed.tzinfo:
        return parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        return None
