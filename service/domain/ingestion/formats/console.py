"""Terminal recordings as text: asciinema casts decoded, ANSI escape sequences removed."""

from __future__ import annotations

import json
import re
from typing import Any

#: ANSI escape sequences: CSI (colours, cursor moves), OSC (window titles, links; ended by BEL
#: or ST on the same line), character-set selections and the other two-character escapes. An
#: OSC without its end loses only its introducer (trial 14: an optional end made one stray
#: `ESC ]` remove everything after it).
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)"
    r"|\x1b[()][0-9A-Za-z]"
    r"|\x1b[@-Z\\-_=>]"
)
#: Least share of a cast's event lines that must be ``[time, code, data]`` arrays.
_MIN_EVENT_SHARE = 0.9


def _cast_header(line: str) -> bool:
    """True for an asciinema header line: ``{"version": 2|3, ...}`` with the terminal's size."""
    try:
        header: Any = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return False
    return (
        isinstance(header, dict)
        and header.get("version") in (2, 3)
        and ("width" in header or "term" in header)
    )


def decode_cast(content: str) -> str | None:
    """Return the terminal output of an asciinema v2/v3 recording (``.cast``), else None.

    A cast is a JSON header line (``version`` 2 or 3 and the terminal size) then one
    ``[time, code, data]`` array per event; the output (``"o"``) events' data, joined, is the
    text the terminal showed. Input, resize and marker events are left out, as are v3
    ``#`` comment lines.

    Args:
        content: the material.

    Returns:
        The output text (escape sequences still in it), or None when it is no cast.
    """
    text = content.lstrip("\ufeff").lstrip()
    # The header first: every ingested document comes through here, most are no cast.
    if not text.startswith("{") or not _cast_header(text.split("\n", 1)[0].strip()):
        return None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return None
    output: list[str] = []
    events = 0
    body = [ln for ln in lines[1:] if not ln.lstrip().startswith("#")]
    for line in body:
        try:
            event: Any = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(event, list) and len(event) >= 3 and isinstance(event[2], str):
            events += 1
            if event[1] == "o":
                output.append(event[2])
    if not body or events < _MIN_EVENT_SHARE * len(body):
        return None
    return "".join(output)


def _erased(text: str) -> str:
    """Return `text` with each backspace applied: it erases the character before it on its line.

    One pass (a run of backspaces erases as many characters), so time stays linear however
    many there are.
    """
    if "\x08" not in text:
        return text
    shown: list[str] = []
    for ch in text:
        if ch != "\x08":
            shown.append(ch)
        elif shown and shown[-1] != "\n":
            shown.pop()
    return "".join(shown)


def _overwritten(line: str) -> str:
    """Return what a line shows after carriage returns redrew it (its last non-empty part)."""
    parts = [p for p in line.split("\r") if p.strip()]
    return parts[-1] if parts else ""


def console_text(content: str) -> str:
    """Return terminal material as the text it shows; any other content unchanged.

    An asciinema recording (`decode_cast`) becomes its output. Text holding ANSI escape
    sequences (a ``script`` typescript, a cast's output, a log with colours) loses them, and
    carriage returns are resolved: CR LF ends a line, a line redrawn after a lone CR (a
    progress bar) keeps its last state; backspaces erase the character before them. Content
    without escape sequences that is no cast (every JSON, JSON Lines and Markdown format) is
    returned as is.

    Args:
        content: the material, as text.

    Returns:
        The text to parse.
    """
    cast = decode_cast(content)
    if cast is None and "\x1b" not in content:
        return content
    text = _erased(_ANSI.sub("", cast if cast is not None else content))
    text = text.replace("\r\n", "\n")
    return "\n".join(_overwritten(line) for line in text.split("\n"))
