"""The ``aider`` format: an Aider chat history (``.aider.chat.history.md``), one unit per request."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

from service.domain.ingestion.formats.aider_undo import Commits, undo_follows
from service.domain.ingestion.formats.common import parse_time, source_stem
from service.domain.ingestion.formats.session import Session, SessionTrace
from service.domain.models import IngestUnit, StepKind

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
#: A fence that opens a code block, with its language or none (```python, ~~~).
_OPEN_FENCE = re.compile(r"^(?:`{3,}|~{3,})[\w+#.-]*\s*$")
#: A fence alone: what closes a code block.
_BARE_FENCE = re.compile(r"^(?:`{3,}|~{3,})\s*$")
#: A line that is only a file's path (the whole-file edit format names the file above its
#: block): one token with a directory or an extension, optionally in backticks or bold.
_PATH_LINE = re.compile(
    r"^\s*[`*]*(?P<path>(?![\w+.-]*://)[\w.~-]*(?:[/\\][\w.~-]+)+|[\w~-][\w.~-]*\.[A-Za-z0-9]{1,10})"
    r"[`*]*:?\s*$"
)
#: The file line of a unified diff (the udiff edit format): ``+++ b/src/a.py``.
_DIFF_TARGET = re.compile(r"^\+\+\+ (?:b/)?(?P<path>\S+)")
#: Slash commands that carry a request in their argument.
_REQUEST_COMMANDS = re.compile(r"^/(?:ask|code|architect|context)\s+(.+)$", re.DOTALL)
#: Characters of a message compared with the architect's last reply (`_is_echo`).
_ECHO_CHARS = 200


def _same_text(a: str, b: str) -> bool:
    """True when two messages are the same text, white space aside (first `_ECHO_CHARS`)."""
    return " ".join(a.split())[:_ECHO_CHARS] == " ".join(b.split())[:_ECHO_CHARS]


def _handed_on(trace: SessionTrace, text: str) -> bool:
    """True when a message repeats the agent's last reply (architect mode's editor hand-off)."""
    last = trace.last_prose
    return last is not None and _same_text(text, trace.steps[last].content)


def _next_matching(lines: list[str], *patterns: re.Pattern[str]) -> list[int]:
    """Return, per line index, the first index at or after it whose line matches a pattern.

    ``len(lines)`` when none follows. One pass from the end, so finding where replies and
    blocks end stays linear however many blocks are left open.
    """
    found = [len(lines)] * (len(lines) + 1)
    for k in range(len(lines) - 1, -1, -1):
        found[k] = k if any(p.match(lines[k]) for p in patterns) else found[k + 1]
    return found


def _fenced_edit(
    lines: list[str], i: int, fences: list[int], edits: list[int]
) -> tuple[str, int] | None:
    """Return `(file, index after the block)` when a fenced edit of a whole file or a diff starts at `i`.

    Aider's ``whole`` format names the file on a line of its own above a code block holding
    the file's new contents; its ``udiff`` format writes a unified diff in a ``diff`` block
    (``--- a/x``, ``+++ b/x``). A block holding a SEARCH/REPLACE edit is no such edit.
    `fences` and `edits` are `_Marks.fences` and `_Marks.starts` of `lines`.
    """
    if i + 1 >= len(lines):
        return None
    path = _PATH_LINE.match(lines[i])
    opens = i + 1 if path else i
    if not _OPEN_FENCE.match(lines[opens]) or (_BARE_FENCE.match(lines[opens]) and not path):
        return None
    end = fences[opens + 1]
    if end >= len(lines) or not _BARE_FENCE.match(lines[end]) or edits[opens + 1] < end:
        return None
    if path:
        return path.group("path"), end + 1
    body = lines[opens + 1 : min(opens + 3, end)]
    if len(body) == 2 and body[0].startswith("--- ") and (target := _DIFF_TARGET.match(body[1])):
        return target.group("path"), end + 1
    return None


@dataclass(frozen=True)
class _Marks:
    """Per line, where the next edit close, fence alone and edit marker are (`_next_matching`).

    An edit block and a fenced block never span sessions: a session header closes both.
    """

    closes: list[int]
    fences: list[int]
    starts: list[int]

    @classmethod
    def of(cls, lines: list[str]) -> _Marks:
        return cls(
            _next_matching(lines, _EDIT_END, SESSION_START),
            _next_matching(lines, _BARE_FENCE, SESSION_START),
            _next_matching(lines, _EDIT_START),
        )


def _reply_end(lines: list[str], i: int, marks: _Marks) -> int:
    """Return the index after the model's reply that starts at `i`.

    The reply runs to the next ``#### `` or ``> `` line or session header; inside a
    SEARCH/REPLACE block (closed before the next session header) or a fenced whole-file or
    diff edit (`_fenced_edit`) those prefixes are code -- the ``>>>>>>> REPLACE`` line itself,
    a Markdown ``#### `` heading, a ``> `` quote.
    """
    closes = marks.closes
    j = i
    while j < len(lines):
        fenced = _fenced_edit(lines, j, marks.fences, marks.starts)
        if fenced is not None:
            j = fenced[1]
            continue
        line = lines[j]
        if _EDIT_START.match(line):
            end = closes[j + 1]
            if end < len(lines) and _EDIT_END.match(lines[end]):
                j = end + 1
                continue
        if line.startswith(("####", ">")) or SESSION_START.match(line):
            break
        j += 1
    return j


def _reply_steps(lines: list[str]) -> list[tuple[str, str]]:
    """Split a reply into `("thought", prose)` and `("action", "edit <file>")` parts, in order.

    Each ``<<<<<<< SEARCH``/``ORIGINAL`` marker is one edit: its file is the nearest non-fence
    line above the marker (inside the fence for the old format, above it for the new one);
    everything from that line to the ``>>>>>>> REPLACE``/``UPDATED`` line and its closing
    fence is the edit's payload, never kept, nor is a fence opened just above the file name.
    A whole-file or diff block (`_fenced_edit`) is one edit too, its contents never kept.
    """
    parts: list[tuple[str, str]] = []
    prose: list[str] = []
    marks = _Marks.of(lines)
    i = 0

    def flush() -> None:
        text = "\n".join(prose).strip()
        if text:
            parts.append(("thought", text))
        prose.clear()

    while i < len(lines):
        fenced = _fenced_edit(lines, i, marks.fences, marks.starts)
        if fenced is not None:
            flush()
            parts.append(("action", f"edit {fenced[0]}"))
            i = fenced[1]
            continue
        if not _EDIT_START.match(lines[i]):
            prose.append(lines[i])
            i += 1
            continue
        k = len(prose) - 1
        while k >= 0 and (not prose[k].strip() or _FENCE.match(prose[k])):
            k -= 1
        target = prose[k].strip() if k >= 0 else ""
        del prose[max(k, 0) :]
        while prose and (not prose[-1].strip() or _FENCE.match(prose[-1])):
            prose.pop()  # the fence the old format opens above the file name
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


def _concluded_after_its_work(unit: IngestUnit) -> IngestUnit:
    """Return the unit with its conclusion moved after the edits and output that follow it.

    Aider prints what a reply did -- edits applied, the commit, ``/run`` output -- after the
    whole reply, and a reply's prose comes before its edit blocks: concluded in place (as
    `SessionTrace.finish` does, right for agents that sum up after their tool results), every
    Aider trace concluded before the steps its conclusion rests on, and the gate reads only
    the evidence before a conclusion. The conclusion moves past the action and observation
    steps right after it, up to the next user message, agent prose or undo (the ``/undo``
    command, a step that rejects others): no work it rests on. `rejects` indexes follow.
    """
    trace = unit.trace
    steps = list(trace.steps) if trace is not None else []
    at = next((i for i, s in enumerate(steps) if s.kind == StepKind.CONCLUSION), None)
    if trace is None or at is None:
        return unit
    end = at + 1
    while (
        end < len(steps)
        and steps[end].kind in (StepKind.ACTION, StepKind.OBSERVATION)
        and not steps[end].rejects
        and not steps[end].content.startswith(("User: ", "User command: /undo"))
    ):
        end += 1
    if end == at + 1:
        return unit

    def moved(index: int) -> int:
        return end - 1 if index == at else index - 1 if at < index < end else index

    order = [*range(at), *range(at + 1, end), at, *range(end, len(steps))]
    placed = tuple(
        replace(steps[k], rejects=tuple(moved(r) for r in steps[k].rejects)) for k in order
    )
    return replace(unit, trace=replace(trace, steps=placed))


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse an Aider chat history into one unit per user request.

    Input: ``aider`` (Aider chat history Markdown: ``#### `` user lines, ``> `` console lines)

    ``# aider chat started at <time>`` opens a session (its time is the ``valid_from`` of the
    requests in it). Consecutive ``#### `` lines are one user message (a multi-line paste);
    answers to Aider's confirmation prompts (``(Y)es/(N)o``) are not messages; ``/ask``,
    ``/code``, ``/architect`` carry a request in their argument; other slash commands
    (``/add``, ``/run``...) are observations of the current request. `Session.user` decides
    whether a message opens a request or follows up. A message that repeats the argument of
    the ``/ask``/``/code``/``/architect`` just before it, or the agent's last reply (architect
    mode hands it to the editor), is Aider logging it again: skipped and counted
    (``repeated_messages``). Consecutive ``> `` lines are Aider's console output: one
    ``observation`` step (applied edits, commits, command output) once the banner, token
    costs and prompts are removed, none when nothing is left; between a session header and
    its first message they are the new session's banner (``banner_lines``, never a step of the
    session before). The model's reply (unprefixed lines, up to the next ``#### ``/``> `` line
    outside an edit block) is split at its edit blocks (SEARCH/REPLACE or ORIGINAL/UPDATED; a
    whole file's new contents in a code block under its name; a unified diff):
    prose is a ``thought`` step, each edit block an ``action`` step ``edit <file>`` (never its
    code, not even its ``>>>>>>> REPLACE`` line). Text before the first message (a page's
    introduction, HTML wrappers) is skipped. The conclusion (`SessionTrace.finish`) is placed
    after the edits and console output that follow it (`_concluded_after_its_work`). An
    ``/undo`` that removed a commit (``Removed: <hash>``) undoes the request whose edits the
    commit holds (`Commits.console`): its output `REJECTS` those edits and that request produces
    no decision (``session.undone``); a message right before such an ``/undo`` asks for it and
    joins the request it undoes, so the message after starts a new request.
    So for each request: ``len(steps) == 1 + follow-ups + command observations + prose parts +
    edit blocks + non-empty console blocks + undos of its commits made later`` (+1 when the
    conclusion must be appended).

    Args:
        content: the material, as text (already checked to be non-empty text).
        source_name: the file name the material came from; names the units.

    Returns:
        The units in source order.
    """
    session = Session()
    started: datetime | None = None
    lines = content.splitlines()
    marks = _Marks.of(lines)
    skipped = {
        "console_answers": 0,
        "before_first_request": 0,
        "banner_lines": 0,
        "repeated_messages": 0,
    }
    banner = False  # between a session header and its first message
    echo: str | None = None  # the argument of the last /ask, /code, /architect
    commits = Commits()
    i = 0
    while i < len(lines):
        line = lines[i]
        start = SESSION_START.match(line)
        if start:
            started = parse_time(start.group(1).replace(" ", "T", 1)) or started
            banner = True
            i += 1
            continue
        if line.startswith("####"):
            j = i
            while j < len(lines) and lines[j].startswith("####"):
                j += 1
            text = "\n".join(x[5:] if x.startswith("#### ") else "" for x in lines[i:j]).strip()
            i = j
            banner = False
            if _CONFIRM.search(text):
                skipped["console_answers"] += 1
                continue
            command = _REQUEST_COMMANDS.match(text)
            current = session.current
            if command:
                echo = command.group(1)
                session.user(command.group(1), started)
            elif text.startswith("/") and current is not None:
                current.console(f"User command: {text}")
            elif echo is not None and _same_text(text, echo):
                skipped["repeated_messages"] += 1  # the command's message, logged again
            elif current is not None and _handed_on(current, text):
                skipped["repeated_messages"] += 1  # the architect's reply, given to the editor
            elif not text.startswith("/"):
                said = text.lstrip("> ").strip()
                if (
                    said
                    and current is not None
                    and current.has_agent_work
                    and undo_follows(lines, i)
                ):
                    current.follow_up(said, "amends")  # asks for the /undo below: not a new task
                else:
                    session.user(said, started)
            if not command:
                echo = None
            continue
        if line.startswith(">"):
            j = i
            while j < len(lines) and lines[j].startswith(">"):
                j += 1
            kept = [x[1:].strip() for x in lines[i:j]]
            kept = [x for x in kept if x and not _NOISE.match(x)]
            i = j
            if banner:
                skipped["banner_lines"] += len(kept)
            elif session.current is not None and kept:
                commits.console(session.current, "\n".join(kept))
            continue
        j = _reply_end(lines, i, marks)
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
    units = session.units("aider", f"Aider {source_stem(source_name)}", {"skipped": skipped})
    return [_concluded_after_its_work(u) for u in units]
