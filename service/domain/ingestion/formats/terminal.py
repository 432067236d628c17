"""The ``terminal`` format: a Claude Code or Gemini CLI console copied as text, one unit per request."""

from __future__ import annotations

import re

from service.domain.ingestion.formats.common import source_stem
from service.domain.ingestion.formats.session import Session, SessionTrace
from service.domain.models import IngestUnit

USER = re.compile(r"^> ?(.*)$")
AGENT = re.compile(r"^(?:⏺|✦) ?(.*)$")
CLAUDE_TOOL = re.compile(r"^⏺ ([A-Z][\w.:-]*(?: [A-Z][\w.:-]*)?)\((.*?)\)?…?$")
RESULT = re.compile(r"^\s+⎿ ?(.*)$")
THINKING = re.compile(r"^✻ Thinking")
BOX_TOP = re.compile(r"^\s*╭")
BOX_LINE = re.compile(r"^\s*│ ?(.*?)\s*│?\s*$")
BOX_BOTTOM = re.compile(r"^\s*╰")
GEMINI_TOOL = re.compile(r"^([✔✓✗✘x⊘⊷○?-])\s+([A-Z]\w*)\s*(.*)$")
#: Markers of a tool call the user refused or cancelled.
_REFUSED = ("No (tell Claude what to do differently)", "Request cancelled")
_REFUSED_MARKERS = frozenset({"-", "✗", "x", "⊘"})
#: A console status line (the footer under the prompt), never content, indented or not: Gemini
#: CLI's context summary (``Using: 1 GEMINI.md file | 2 MCP servers``, ``Using 1 open file``),
#: its footer (``~/repo (main*)  no sandbox (see /docs)  gemini-2.5-pro (97% context left)``),
#: an edit-mode indicator (``accepting edits (shift + tab to toggle)``, ``YOLO mode (ctrl + y
#: to toggle)``, Claude Code's ``⏵⏵ auto-accept edits on (shift+tab to cycle)``). Each
#: alternative needs the status line's own wording: prose that mentions a sandbox or a context
#: window mid-sentence, or a sentence opening "Using 2 GEMINI.md files would ...", is no status
#: line (trial 22: a newer footer, indented by one space, continued the agent's last text and
#: became part of its decision).
STATUS = re.compile(
    r"^\s*(?:Using:? \d+ (?:open files?|[\w.-]+\.md files?|MCP servers?)(?:\s*[|(].*|\s{2,}.*)?"
    r"|.*\(\d{1,3}% context left\)\s*"
    r"|.*\((?:shift|ctrl) ?\+ ?\w+ to (?:toggle|cycle)\)\s*"
    r"|.*\bno sandbox \(see /docs\).*)$"
)


def _element_lines(lines: list[str], i: int) -> tuple[list[str], int]:
    """Return the indented (or blank) continuation lines from `i`, and the index after them.

    A status line (`STATUS`) ends them: the console's footer, not the element's text.
    """
    out: list[str] = []
    while i < len(lines):
        line = lines[i]
        if line.strip() and (not line.startswith((" ", "\t")) or STATUS.match(line)):
            break
        if RESULT.match(line) or BOX_TOP.match(line) or line.lstrip().startswith("│"):
            break
        out.append(line.strip())
        i += 1
    return out, i


def _box(lines: list[str], i: int, trace: SessionTrace | None) -> int:
    """Read a Gemini CLI tool box from its top line; return the index after it."""
    i += 1
    inner: list[str] = []
    while i < len(lines) and not BOX_BOTTOM.match(lines[i]):
        match = BOX_LINE.match(lines[i])
        inner.append(match.group(1) if match else lines[i].strip())
        i += 1
    i += 1
    inner = [x for x in inner if x.strip()]
    if trace is None or not inner:
        return i
    tool = GEMINI_TOOL.match(inner[0].strip())
    if tool is None:
        trace.console("\n".join(inner))
        return i
    marker, name, args = tool.groups()
    trace.act(f"{name}: {args.strip()}" if args.strip() else name)
    if marker in _REFUSED_MARKERS:
        trace.result("(refused or cancelled by the user)", refused=True)
    elif len(inner) > 1:
        trace.result("\n".join(inner[1:]))
    return i


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse a Claude Code or Gemini CLI console transcript into one unit per user request.

    Input: ``terminal`` (text copied from a Claude Code or Gemini CLI console)

    ``> `` at the start of a line is a user message (indented lines continue it);
    `Session.user` decides whether it opens a request or follows up. ``⏺``/``✦`` is the
    agent: ``⏺ Name(args)`` a tool call (``action`` step), other text a ``thought`` step
    (indented lines continue it); ``✻ Thinking…`` and its indented text is a ``thought``;
    ``  ⎿`` and its indented lines a tool result (``observation`` step, trimmed; ``No (tell
    Claude what to do differently)`` `REJECTS` the call). A Gemini CLI box (``╭ … ╰``) whose
    first line is ``<mark>  ToolName args`` is an ``action`` step, its other lines the result
    (an ``observation`` step); mark ``-`` (cancelled) is a refusal that `REJECTS` the call.
    Welcome banners, tips and status lines are skipped. So for each request: ``len(steps) ==
    1 + follow-ups + agent texts + thinking blocks + tool calls + results`` (+1 when the
    conclusion must be appended).

    Args:
        content: the material, as text (already checked to be non-empty text).
        source_name: the file name the material came from; names the units.

    Returns:
        The units in source order.
    """
    lines = content.splitlines()
    session = Session()
    gemini = any(line.startswith("✦") for line in lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        user = USER.match(line)
        if user:
            more, i = _element_lines(lines, i + 1)
            session.user("\n".join([user.group(1), *more]).strip())
            continue
        current = session.current
        if BOX_TOP.match(line):
            i = _box(lines, i, current)
            continue
        if THINKING.match(line):
            more, i = _element_lines(lines, i + 1)
            if current is not None:
                current.think("\n".join(more))
            continue
        result = RESULT.match(line)
        if result:
            more, i = _element_lines(lines, i + 1)
            text = "\n".join([result.group(1), *more]).strip()
            if current is not None:
                refused = any(marker in text for marker in _REFUSED)
                current.result(text, refused=refused)
            continue
        agent = AGENT.match(line)
        if agent:
            more, i = _element_lines(lines, i + 1)
            tool = CLAUDE_TOOL.match(line)
            if current is None:
                continue
            if tool:
                args = " ".join([tool.group(2).strip(), *(m for m in more if m)]).rstrip("…) ")
                current.act(f"{tool.group(1)}: {args}".rstrip(": "))
            else:
                current.think("\n".join([agent.group(1), *more]))
            continue
        i += 1
    label = "Gemini CLI" if gemini else "Claude Code console"
    return session.units("terminal", f"{label} {source_stem(source_name)}", {"console": label})
