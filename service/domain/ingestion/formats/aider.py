"""The ``aider`` format: an Aider chat history (``.aider.chat.history.md``), one unit per request."""

from __future__ import annotations

import re
from datetime import datetime

from service.domain.ingestion.formats.common import parse_time, source_stem
from service.domain.ingestion.formats.session import Session
from service.domain.models import IngestUnit

SESSION_START = re.compile(r"^# aider chat started at (.+?)\s*$")
_CONFIRM = re.compile(r"\(Y\)es/\(N\)o")
#: Aider's own console lines that say nothing about the work (banner, costs, prompts).
_NOISE = re.compile(
    r"^(?:Tokens: .*|Aider v\S+|Main model: .*|Weak model: .*|Editor model: .*|Git repo: .*|"
    r"Repo-map: .*|Using \S+ model.*|https?://aider\.chat\S*|\^C.*|You can skip this check.*|"
    r"Cost: .*|Model: .*|.*\(Y\)es/\(N\)o.*|.*\[y/n.*|Warning: .*for this model.*)$"
)
_EDIT_START = re.compile(r"^<{7} (?:SEARCH|ORIGINAL)\s*$")
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_EDIT_END = re.compile(r"^>{7} (?:REPLACE|UPDATED)\s*$")
#: Slash commands that carry a request in their argument.
_REQUEST_COMMANDS = re.compile(r"^/(?:ask|code|architect|context)\s+(.+)$", re.DOTALL)


def _reply_steps(lines: list[str]) -> list[tuple[str, str]]:
    """Split a reply into `("thought", prose)` and `("action", "edit <file>")` parts, in order.

    Each ``<<<<<<< SEARCH``/``ORIGINAL`` marker is one edit: its file is the nearest non-fence
    line above the marker (inside the fence for the old format, above it for the new one);
    everything from that line to the ``>>>>>>> REPLACE``/``UPDATED`` line and its closing
    fence is the edit's payload, never kept.
    """
    parts: list[tuple[str, str]] = []
    prose: list[str] = []
    i = 0

    def flush() -> None:
        text = "\n".join(prose).strip()
        if text:
            parts.append(("thought", text))
        prose.clear()

    while i < len(lines):
        if not _EDIT_START.match(lines[i]):
            prose.append(lines[i])
            i += 1
            continue
        k = len(prose) - 1
        while k >= 0 and (not prose[k].strip() or _FENCE.match(prose[k])):
            k -= 1
        target = prose[k].strip() if k >= 0 else ""
        del prose[max(k, 0) :]
        flush()
        parts.append(("action", f"edit {target or '(file not named)'}"))
        j = i + 1
        while j < len(lines) and not _EDIT_END.match(lines[j]):
            j += 1
        i = j + 1
        if i < len(lines) and _FENCE.match(lines[i]) and not lines[i].strip().strip("`~"):
            i += 1
    flush()
    return parts


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse an Aider chat history into one unit per user request.

    Input: ``aider`` (Aider chat history Markdown: ``#### `` user lines, ``> `` console lines)

    ``# aider chat started at <time>`` opens a session (its time is the ``valid_from`` of the
    requests in it). Consecutive ``#### `` lines are one user message (a multi-line paste);
    answers to Aider's confirmation prompts (``(Y)es/(N)o``) are not messages; ``/ask``,
    ``/code``, ``/architect`` carry a request in their argument; other slash commands
    (``/add``, ``/run``...) are observations of the current request. `Session.user` decides
    whether a message opens a request or follows up. Consecutive ``> `` lines are Aider's
    console output: one ``observation`` step (applied edits, commits, command output) once the
    banner, token costs and prompts are removed, none when nothing is left. The model's reply
    (unprefixed lines) is split at its edit blocks (SEARCH/REPLACE or ORIGINAL/UPDATED): prose
    is a ``thought`` step, each edit block an ``action`` step ``edit <file>`` (never its
    code). Text before the first message (a page's introduction, HTML wrappers) is skipped.
    So for each request: ``len(steps) == 1 + follow-ups + command observations + prose parts +
    edit blocks + non-empty console blocks`` (+1 when the conclusion must be appended).

    Args:
        content: the material, as text (already checked to be non-empty text).
        source_name: the file name the material came from; names the units.

    Returns:
        The units in source order.
    """
    session = Session()
    started: datetime | None = None
    lines = content.splitlines()
    skipped = {"console_answers": 0, "before_first_request": 0}
    i = 0
    while i < len(lines):
        line = lines[i]
        start = SESSION_START.match(line)
        if start:
            started = parse_time(start.group(1).replace(" ", "T", 1)) or started
            i += 1
            continue
        if line.startswith("####"):
            j = i
            while j < len(lines) and lines[j].startswith("####"):
                j += 1
            text = "\n".join(x[5:] if x.startswith("#### ") else "" for x in lines[i:j]).strip()
            i = j
            if _CONFIRM.search(text):
                skipped["console_answers"] += 1
                continue
            command = _REQUEST_COMMANDS.match(text)
            if command:
                session.user(command.group(1), started)
            elif text.startswith("/") and session.current is not None:
                session.current.console(f"User command: {text}")
            elif not text.startswith("/"):
                session.user(text.lstrip("> ").strip(), started)
            continue
        if line.startswith(">"):
            j = i
            while j < len(lines) and lines[j].startswith(">"):
                j += 1
            kept = [x[1:].strip() for x in lines[i:j]]
            kept = [x for x in kept if x and not _NOISE.match(x)]
            i = j
            if session.current is not None and kept:
                session.current.console("\n".join(kept))
            continue
        j = i
        while j < len(lines) and not (
            lines[j].startswith(("####", ">")) or SESSION_START.match(lines[j])
        ):
            j += 1
        block = [x for x in lines[i:j] if not re.match(r"^\s*</?div\b", x)]
        i = j
        if not "\n".join(block).strip():
            continue
        current = session.current
        if current is None:
            skipped["before_first_request"] += 1
            continue
        for kind, text in _reply_steps(block):
            if kind == "action":
                current.act(text)
            else:
                current.think(text)
    return session.units("aider", f"Aider {source_stem(source_name)}", {"skipped": skipped})
