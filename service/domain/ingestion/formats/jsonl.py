"""JSON Lines reading shared by the ``claude-code`` and ``codex`` formats."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from service.domain.ingestion.formats.common import FormatError

#: Most lines (of the non-blank ones, a cut-off last line aside) that may be skipped because
#: they are not JSON objects: past this share the material is not read as JSON Lines at all.
MAX_SKIPPED_SHARE = 0.1
#: Line numbers a warning lists before it says how many more there are.
MAX_LISTED_LINES = 20


@dataclass(frozen=True)
class JsonLines:
    """The JSON objects of a JSON Lines text and the lines that could not be read.

    Attributes:
        records: the objects, in line order.
        lines: the non-blank lines of the text.
        skipped: 1-based numbers of the lines skipped (not JSON, or JSON but not an object).
        truncated: the 1-based number of the last line when it is cut off (the file ends
            mid-object: a session still being written, or a copy cut short), else None.
    """

    records: list[dict[str, Any]]
    lines: int
    skipped: tuple[int, ...] = ()
    truncated: int | None = None

    @property
    def warnings(self) -> tuple[str, ...]:
        """Document-level warnings, ``"<code>: <what happened>"``.

        ``jsonl.lines_skipped`` lists the skipped lines; ``jsonl.truncated_last_line`` names
        the cut-off last line, whose record is lost.
        """
        out: list[str] = []
        if self.skipped:
            listed = ", ".join(str(n) for n in self.skipped[:MAX_LISTED_LINES])
            more = len(self.skipped) - MAX_LISTED_LINES
            listed += f" and {more} more" if more > 0 else ""
            what = (
                "are not valid JSON objects and were"
                if len(self.skipped) > 1
                else "is not a valid JSON object and was"
            )
            out.append(
                f"jsonl.lines_skipped: line{'s' if len(self.skipped) > 1 else ''} {listed} "
                f"{what} skipped ({len(self.skipped)} of {self.lines} lines)"
            )
        if self.truncated is not None:
            out.append(
                f"jsonl.truncated_last_line: line {self.truncated} is cut off (truncated "
                "mid-object); what it held is lost"
            )
        return tuple(out)


def read_jsonl(content: str, fmt: str) -> JsonLines:
    """Return the JSON objects of a JSON Lines text, one per non-blank line, and what was skipped.

    A last line that is not valid JSON is taken as cut off (`JsonLines.truncated`). Other lines
    that are not JSON objects (a corrupt line in a session log) are skipped
    (`JsonLines.skipped`) while they are at most `MAX_SKIPPED_SHARE` of the other lines; past
    that the text is not JSON Lines.

    Args:
        content: the material.
        fmt: the format name, for the message.

    Returns:
        The objects in line order, with the skipped and cut-off lines.

    Raises:
        FormatError: more lines that are not JSON objects than `MAX_SKIPPED_SHARE` allows
            (the message names the first one), or no object at all.
    """
    lines = [(n + 1, line) for n, line in enumerate(content.splitlines()) if line.strip()]
    records: list[dict[str, Any]] = []
    bad: list[tuple[int, str]] = []
    truncated: int | None = None
    for pos, (number, line) in enumerate(lines):
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            if pos == len(lines) - 1 and pos > 0:
                truncated = number
            else:
                bad.append((number, f"line {number} is not valid JSON ({exc})"))
            continue
        if not isinstance(value, dict):
            bad.append((number, f"line {number} is not a JSON object"))
            continue
        records.append(value)
    counted = len(lines) - (truncated is not None)
    if bad and len(bad) > MAX_SKIPPED_SHARE * counted:
        raise FormatError(
            f"{fmt}: {bad[0][1]}"
            + (f" ({len(bad)} of {counted} lines are not JSON objects)" if len(bad) > 1 else "")
        )
    if not records:
        raise FormatError(f"{fmt}: no JSON object lines")
    return JsonLines(records, len(lines), tuple(n for n, _ in bad), truncated)


def try_jsonl(content: str) -> JsonLines | None:
    """Return the lines of `content` when it reads as JSON Lines of objects (2+ lines), else None."""
    head = content.lstrip()[:1]
    if head != "{" or content.strip().count("\n") < 1:
        return None
    try:
        return read_jsonl(content, "auto")
    except FormatError:
        return None
