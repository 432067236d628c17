"""Detection of a document's format from its structure (`parse` with ``auto``), with the signals seen."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from service.domain.ingestion.formats.adr import adr_signals
from service.domain.ingestion.formats.aider import SESSION_START
from service.domain.ingestion.formats.codex import ITEM_TYPES, rollout_items
from service.domain.ingestion.formats.common import FormatError, check_text, kind_of
from service.domain.ingestion.formats.console import console_text
from service.domain.ingestion.formats.jsonl import try_jsonl
from service.domain.ingestion.formats.mini_swe_agent import is_mini_trajectory
from service.domain.ingestion.formats.openhands import is_event_list
from service.domain.ingestion.formats.react import REACT_ANY_TAG, looks_like_react

_NOT_JSON = object()
#: Keys that tie a Claude Code line to its session: the session log's, and ``session_id`` of
#: ``claude -p --output-format stream-json`` output.
_CLAUDE_IDS = ("sessionId", "parentUuid", "uuid", "session_id")
_CODEX_LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
_AIDER_MARKS = (
    (re.compile(r"^<{7} (?:SEARCH|ORIGINAL)\s*$", re.MULTILINE), "edit blocks"),
    (re.compile(r"^> Applied edit to ", re.MULTILINE), "'> Applied edit to' lines"),
    (re.compile(r"^> Tokens: .* sent", re.MULTILINE), "'> Tokens: … sent' lines"),
    (re.compile(r"^> (?:Aider v|Main model: )", re.MULTILINE), "aider banner"),
    (re.compile(r"^> Commit [0-9a-f]{7,} ", re.MULTILINE), "'> Commit <sha>' lines"),
)
#: Aider's session header on any line (`aider.SESSION_START` matches one line).
_AIDER_HEADER = re.compile(SESSION_START.pattern, re.MULTILINE)
_TERMINAL_AGENT = re.compile(r"^(?:⏺|✦) ", re.MULTILINE)
_TERMINAL_USER = re.compile(r"^> \S", re.MULTILINE)
_TERMINAL_TOOL = re.compile(r"^(?:⏺ [A-Z]\w*\(|\s+⎿ |\s*│ [✔✗-] +[A-Z]\w*)", re.MULTILINE)


@dataclass(frozen=True)
class Detection:
    """What `detect` concluded: the format and the structural signals that decided it."""

    format: str
    signals: tuple[str, ...]


def _json_format(data: Any) -> Detection | None:
    """Return the JSON format `data` matches, or None."""
    if rollout_items(data) is not None:
        return Detection("codex", ("JSON object with 'session' and rollout 'items'",))
    if is_event_list(data):
        what = "JSON list" if isinstance(data, list) else "JSON object with a list"
        return Detection("openhands", (f"{what} of events with 'action'/'observation'",))
    if isinstance(data, dict) and "trajectory" in data:
        return Detection("swe-agent", ("JSON object with 'trajectory'",))
    if is_mini_trajectory(data):
        if isinstance(data, list):
            what = "JSON list of messages (```bash, <returncode>)"
        else:
            version = data.get("trajectory_format") or "info.exit_status/submission"
            what = f"JSON object with 'messages' ({version})"
        return Detection("swe-agent", (f"mini-swe-agent {what}",))
    if isinstance(data, dict) and any(
        isinstance(v, str) and looks_like_react(v) for v in data.values()
    ):
        return Detection("react", ("JSON object of prompt strings with 'Thought n:' lines",))
    return None


def _jsonl_format(records: list[dict[str, Any]], *, strict: bool = False) -> Detection | None:
    """Return the session format of JSON Lines records, or None.

    `strict` (some lines could not be read) asks for Claude Code turns on half of all lines,
    not only of the user/assistant ones.
    """
    n = len(records)
    codex = sum(
        1
        for r in records
        if (isinstance(r.get("payload"), dict) and kind_of(r) in _CODEX_LINE_TYPES)
        or (kind_of(r) in ITEM_TYPES and ("call_id" in r or "role" in r))
    )
    if codex * 2 >= n:
        return Detection(
            "codex",
            (
                f"JSON Lines, {codex}/{n} lines are rollout items ({{type, payload}}: "
                "session_meta/response_item/event_msg)",
            ),
        )
    claude = sum(
        1
        for r in records
        if kind_of(r) in ("user", "assistant")
        and isinstance(r.get("message"), dict)
        and any(key in r for key in _CLAUDE_IDS)
    )
    turns = n if strict else sum(1 for r in records if kind_of(r) in ("user", "assistant"))
    if claude and claude * 2 >= turns:
        return Detection(
            "claude-code",
            (
                f"JSON Lines, {claude}/{n} lines are user/assistant turns with 'message' and "
                "uuid/parentUuid/sessionId",
            ),
        )
    return None


def _text_session(content: str) -> Detection | None:
    """Return ``aider`` or ``terminal`` when the text reads as such a session, or None."""
    user_lines = len(re.findall(r"^#### ", content, re.MULTILINE))
    marks = [label for pattern, label in _AIDER_MARKS if pattern.search(content)]
    header = bool(user_lines and _AIDER_HEADER.search(content))
    if header:
        marks.insert(0, "'# aider chat started at' header")
    # Aider's own header line suffices: a short history (whole-file edits, no console lines)
    # has no other mark (a verification trial: read as text).
    if user_lines and (header or len(marks) >= 2):
        return Detection("aider", (f"{user_lines} '#### ' user lines", *marks))
    agent = len(_TERMINAL_AGENT.findall(content))
    users = len(_TERMINAL_USER.findall(content))
    tools = len(_TERMINAL_TOOL.findall(content))
    if agent >= 2 and users >= 1 and tools >= 1:
        return Detection(
            "terminal",
            (
                f"{users} '> ' prompts",
                f"{agent} '⏺'/'✦' agent lines",
                f"{tools} tool call/result lines",
            ),
        )
    return None


def detect(content: str, source_name: str) -> Detection:
    """Recognise the format of handed-in material by its structure, and say why.

    Rules, in order: JSON (a ``.json``/``.traj`` name, or content starting with ``{``/``[`` that
    parses whole) is ``codex`` for a TypeScript Codex CLI rollout (``{session, items}``),
    ``openhands`` for a list of event objects with ``action``/``observation`` keys (also under
    ``trajectory``/``events``/``history``, in OpenDevin's pairs, or V1 ``kind: ...Event``
    events: `is_event_list`), ``swe-agent`` for
    another object with ``trajectory`` or a mini-SWE-agent object of ``messages``
    (`is_mini_trajectory`: ``trajectory_format: mini-swe-agent-1``...), ``react`` for an object
    of strings holding ``Thought 1:``/``Action 1:`` lines, and an error otherwise; JSON Lines of
    objects are ``codex`` when at least half the lines are rollout items (``{type, payload}`` with
    ``session_meta``/``response_item``/``event_msg``/``turn_context``, or bare items of older
    rollouts) and ``claude-code`` when most user/assistant lines carry ``message`` and
    ``uuid``/``parentUuid``/``sessionId`` (``session_id`` in stream-json output); text with
    ``#### `` user lines and two Aider marks (chat-started header, edit blocks, ``> Applied edit``,
    ``> Tokens:``, banner, ``> Commit``) is ``aider``; text with two ``⏺``/``✦`` agent lines, a
    ``> `` prompt and a tool line (``⏺ Name(``, ``⎿``, a ``│ ✔  Tool`` box) is ``terminal``;
    ``Thought 1:``/``Action 1:`` lines are ``react``; Markdown or AsciiDoc that states a
    decision (`adr_signals`) is ``adr``; unnumbered ``Thought:``, ``Action:``/``Final Answer:``
    and ``Observation:``/``Action Input:`` lines (any case, bold allowed: `looks_like_react`)
    are ``react``; anything else is ``text`` (the signal says no
    structure was recognised). Terminal recordings are judged by the text they show
    (`console_text`: an asciinema cast's output, no ANSI escapes). JSON Lines with a few corrupt
    lines (`read_jsonl`: at most `MAX_SKIPPED_SHARE`) are still a session when the format's lines
    are half of the lines read; a cut-off last line is not counted. Both are named in the signals.

    Args:
        content: the material, as text.
        source_name: its file name (only the extension is used).

    Returns:
        The format (one of `service.domain.ingestion.formats.FORMATS`) and the signals.

    Raises:
        FormatError: empty or binary content, a ``.json``/``.traj`` name with invalid JSON,
            or JSON matching no known format.
    """
    content = check_text(console_text(content), "auto")
    suffix = PurePosixPath(source_name.replace("\\", "/")).suffix.lower()
    declared_json = suffix in (".json", ".traj")
    data: Any = _NOT_JSON
    if declared_json or content.lstrip()[:1] in ("{", "["):
        try:
            data = json.loads(content)
        except RecursionError as exc:
            raise FormatError(f"auto: the JSON of {source_name} is nested too deeply") from exc
        except json.JSONDecodeError as exc:
            if declared_json:
                raise FormatError(
                    f"auto: {source_name} is not valid JSON ({exc.msg}: line {exc.lineno})"
                ) from exc
    if data is not _NOT_JSON:
        found = _json_format(data)
        if found is None and isinstance(data, dict):
            found = _jsonl_format([data])
        if found is None:
            raise FormatError(
                f"auto: the JSON of {source_name} matches no known format (expected a SWE-agent "
                "object with 'trajectory', a mini-SWE-agent object with 'messages', an "
                "OpenHands event list or ReAct prompt strings)"
            )
        return found
    lines = try_jsonl(content)
    if lines is not None:
        found = _jsonl_format(lines.records, strict=bool(lines.skipped))
        if found is not None:
            unread = [
                *([f"corrupt lines skipped: {len(lines.skipped)}"] if lines.skipped else []),
                *([f"line {lines.truncated} cut off"] if lines.truncated is not None else []),
            ]
            return Detection(found.format, (*found.signals, *unread))
        if not lines.skipped:
            raise FormatError(
                f"auto: the JSON Lines of {source_name} match no known session format "
                "(expected Claude Code turns or Codex rollout items)"
            )
        # Corrupt lines and no session format: not clearly JSON Lines; read it as text.
    session = _text_session(content)
    if session is not None:
        return session
    if REACT_ANY_TAG.search(content):
        return Detection("react", ("'Thought n:'/'Action n:' lines",))
    # A record that states a decision is an ADR even when its text has "Action:" lines;
    # unnumbered ReAct tags are looser, so they come after it (trial 14).
    signals = adr_signals(content)
    if signals:
        return Detection("adr", tuple(signals))
    if looks_like_react(content):
        return Detection("react", ("'Thought:', 'Action:' and 'Observation:'-like lines",))
    return Detection("text", ("no known structure: plain text or Markdown chunks",))


def detect_format(content: str, source_name: str) -> str:
    """Return only the format `detect` recognises (same rules, same errors)."""
    return detect(content, source_name).format
