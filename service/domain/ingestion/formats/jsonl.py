"""JSON Lines reading shared by the ``claude-code`` and ``codex`` formats."""

from __future__ import annotations

import json
from typing import Any

from service.domain.ingestion.formats.common import FormatError


def read_jsonl(content: str, fmt: str) -> list[dict[str, Any]]:
    """Return the JSON objects of a JSON Lines text, one per non-blank line.

    A last line that is cut off (a session still being written) is ignored; any other line
    that is not a JSON object is an error.

    Args:
        content: the material.
        fmt: the format name, for the message.

    Returns:
        The objects in line order.

    Raises:
        FormatError: a line (other than a cut-off last one) that is not a JSON object, or no
            object at all.
    """
    lines = [(n + 1, line) for n, line in enumerate(content.splitlines()) if line.strip()]
    records: list[dict[str, Any]] = []
    for pos, (number, line) in enumerate(lines):
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            if pos == len(lines) - 1 and records:
                break
            raise FormatError(f"{fmt}: line {number} is not valid JSON ({exc})") from exc
        if not isinstance(value, dict):
            raise FormatError(f"{fmt}: line {number} is not a JSON object")
        records.append(value)
    if not records:
        raise FormatError(f"{fmt}: no JSON object lines")
    return records


def try_jsonl(content: str) -> list[dict[str, Any]] | None:
    """Return the objects of `content` when it reads as JSON Lines of objects (2+ lines), else None."""
    head = content.lstrip()[:1]
    if head != "{" or content.strip().count("\n") < 1:
        return None
    try:
        return read_jsonl(content, "auto")
    except FormatError:
        return None
