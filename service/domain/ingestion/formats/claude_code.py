"""The ``claude-code`` format: a Claude Code session (``~/.claude/projects/*/<id>.jsonl``)."""

from __future__ import annotations

import re
from typing import Any

from service.domain.ingestion.formats.common import as_text, kind_of, parse_time, source_stem
from service.domain.ingestion.formats.jsonl import read_jsonl
from service.domain.ingestion.formats.session import Session, describe_call
from service.domain.models import IngestUnit

#: Line types that carry no conversation (listed in ``extra["skipped"]`` by count).
_BOOKKEEPING = frozenset({"summary", "system", "file-history-snapshot", "queue-operation"})
_COMMAND = re.compile(r"<command-name>\s*(/?[^<]*?)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_LOCAL_OUTPUT = re.compile(
    r"^\s*<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>"
)
_INTERRUPTED = re.compile(r"^\s*\[Request interrupted")
#: A shell command the user ran from the prompt (``!cmd``), and its output.
_BASH_INPUT = re.compile(r"^\s*<bash-input>(.*?)</bash-input>", re.DOTALL)
_BASH_OUTPUT = re.compile(r"<bash-(?:stdout|stderr)>(.*?)</bash-(?:stdout|stderr)>", re.DOTALL)
#: The request of a trace whose log starts with the agent's work (``claude -p`` stream-json
#: output does not repeat the prompt).
UNRECORDED_REQUEST = "(request not recorded: the log starts with the agent's work)"
#: Tool results that say the user refused the call, or never permitted it (a session run
#: without the permission: "Claude requested permissions to write to ..., but you haven't
#: granted it yet."; trial 19).
_REFUSED = (
    "The user doesn't want to proceed with this tool use",
    "tool use was rejected",
    "but you haven't granted it yet",
)
_SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
#: Tools that change nothing: after a refused call, their results do not make the agent's
#: claim of the refused work true (trial 20: a refused Edit, then a Read, then "I've set
#: RETRIES = 5" became a decision).
_READ_ONLY_TOOLS = frozenset(
    {
        "Read",
        "Glob",
        "Grep",
        "LS",
        "NotebookRead",
        "WebFetch",
        "WebSearch",
        "TodoRead",
        "TodoWrite",
        "BashOutput",
    }
)


#: Shell commands that only read (their first word; `git` with a reading subcommand).
_READING_COMMANDS = frozenset(
    {"cat", "ls", "head", "tail", "less", "more", "grep", "rg", "find", "wc", "pwd", "stat", "tree"}
)
_READING_GIT = frozenset({"status", "log", "diff", "show", "branch", "blame"})


def _reads_only(name: str, args: Any) -> bool:
    """Whether a tool call changes nothing: a reading tool, or a shell command that only reads.

    Trial 21: a refused Edit, then `cat config.py`, then "I've set RETRIES = 5" was a decision.
    A command with a pipe, redirection, chain or substitution may write: it counts as work.
    """
    if name in _READ_ONLY_TOOLS:
        return True
    command = args.get("command") if name == "Bash" and isinstance(args, dict) else None
    if not isinstance(command, str) or any(c in command for c in ";&|>`$("):
        return False
    words = command.split()
    if not words:
        return False
    if words[0] == "git":
        return len(words) > 1 and words[1] in _READING_GIT
    return words[0] in _READING_COMMANDS


def _user_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _request(text: str) -> str | None:
    """Return the request a user line makes, or None for console echo and interruptions."""
    if _LOCAL_OUTPUT.match(text) or _INTERRUPTED.match(text) or text.startswith("Caveat:"):
        return None
    command = _COMMAND.search(text)
    if command:
        args = _COMMAND_ARGS.search(text)
        request = f"{command.group(1)} {args.group(1).strip() if args else ''}".strip()
        return request
    return text


def _describe_tool(name: str, args: Any) -> str:
    if name in _SUBAGENT_TOOLS and isinstance(args, dict):
        kind = args.get("subagent_type") or "sub-agent"
        return f"sub-agent {name}({kind}): {as_text(args.get('description')).strip()}"
    if name == "TodoWrite" and isinstance(args, dict) and isinstance(args.get("todos"), list):
        return f"TodoWrite: {len(args['todos'])} items"
    return describe_call(name, args)


def parse_records(records: list[dict[str, Any]], source_name: str) -> list[IngestUnit]:
    """Parse a Claude Code session into one unit per user request.

    Input: ``claude-code`` (Claude Code session JSON Lines: ``type`` user/assistant/summary/...)

    Lines with ``isSidechain`` (a sub-agent's own conversation), ``isMeta`` (expanded
    slash-command prompts, caveats) and ``isCompactSummary`` (the summary a compacted
    conversation continues from) are skipped and counted (``meta`` for the last two) -- a
    compact summary at the start of the log, before any request, is the request (it states
    the task the session continues). A sub-agent call is the parent's
    ``Task`` action step, its report the observation after it. Bookkeeping lines (summary,
    system, file-history-snapshot, queue-operation) are counted too; a ``summary`` names the
    session. A user line with text (not a tool result, not console echo such as
    ``<local-command-stdout>`` or ``[Request interrupted``) is a user message; a slash command
    is its name and arguments; `Session.user` decides whether it opens a request or follows up.
    A shell command the user ran (``<bash-input>``) and its ``<bash-stdout>``/``<bash-stderr>``
    are ``observation`` steps of the current request (``User shell: <command>``, the output),
    counted as console when no request is open. Agent work before any request (``claude -p``
    stream-json output, which does not repeat the prompt) opens a request `UNRECORDED_REQUEST`.
    Assistant blocks, in order: ``thinking`` and ``text`` are ``thought`` steps, ``tool_use``
    an ``action`` step (`describe_call`: the command, file or pattern); a ``tool_result`` is an
    ``observation`` step (trimmed, `trim_observation`); a result saying the user refused the
    call (or never permitted it, `_REFUSED`) `REJECTS` the call, and a request whose last
    working call was refused produces no decision (`SessionTrace.finish`; `_READ_ONLY_TOOLS` do
    no work). So for each request: ``len(steps) == 1 (the request) +
    follow-ups + user shell commands and outputs + thinking/text blocks + tool_use blocks +
    tool_result blocks`` (+1 when the
    conclusion must be appended, see `SessionTrace.finish`).

    Args:
        records: the session's JSON Lines objects, in order (`read_jsonl`).
        source_name: the file name the material came from; names the units.

    Returns:
        The units in source order.
    """
    session = Session()
    skipped = {"sidechain": 0, "meta": 0, "bookkeeping": 0, "console": 0}
    title = ""
    for record in records:
        kind = kind_of(record)
        if kind in _BOOKKEEPING or kind not in ("user", "assistant"):
            skipped["bookkeeping"] += 1
            if kind == "summary" and not title:
                title = as_text(record.get("summary")).strip()
            continue
        if record.get("isSidechain"):
            skipped["sidechain"] += 1
            continue
        # A compacted conversation's summary continues the current request; it only states
        # the task when the log starts with it (a session continued from another).
        if record.get("isMeta") or (record.get("isCompactSummary") and session.current):
            skipped["meta"] += 1
            continue
        message = record.get("message")
        blocks = message.get("content") if isinstance(message, dict) else None
        when = parse_time(record.get("timestamp"))
        if kind == "user":
            results = (
                [b for b in blocks or [] if isinstance(b, dict) and b.get("type") == "tool_result"]
                if isinstance(blocks, list)
                else []
            )
            current = session.current
            for block in results:
                if current is None:
                    break
                text = as_text(block.get("content"))
                refused = any(marker in text for marker in _REFUSED)
                if block.get("is_error") and not refused:
                    text = f"error: {text}"
                current.result(
                    text,
                    block.get("tool_use_id"),
                    refused=refused,
                    failed=bool(block.get("is_error")),
                )
            if results:
                continue
            text = _user_text(blocks)
            if _BASH_INPUT.match(text) or _BASH_OUTPUT.match(text.strip()):
                if current is not None:
                    shell = _BASH_INPUT.match(text)
                    output = "\n".join(m.strip() for m in _BASH_OUTPUT.findall(text))
                    current.console(f"User shell: {shell.group(1).strip()}" if shell else output)
                skipped["console"] += current is None
                continue
            request = _request(text)
            if request is None:
                skipped["console"] += 1
                continue
            session.user(request, when)
            continue
        if session.current is None and blocks:
            session.user(UNRECORDED_REQUEST, when)
        current = session.current
        if current is None or not isinstance(blocks, list):
            if current is not None and isinstance(blocks, str):
                current.think(blocks)
            continue
        for block in blocks:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "thinking":
                current.think(as_text(block.get("thinking")))
            elif btype == "text":
                current.think(as_text(block.get("text")))
            elif btype == "tool_use":
                name = str(block.get("name") or "tool")
                current.act(
                    _describe_tool(name, block.get("input")),
                    block.get("id"),
                    subagent=name in _SUBAGENT_TOOLS,
                    read_only=_reads_only(name, block.get("input")),
                )
    label = f"Claude Code {title or source_stem(source_name)}"
    return session.units("claude-code", label, {"skipped_lines": skipped})


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse a Claude Code session given as text (`parse_records` of `read_jsonl`).

    Raises:
        FormatError: too many lines that are not JSON objects, or none that is.
    """
    return parse_records(read_jsonl(content, "claude-code").records, source_name)
