"""The ``codex`` format: an OpenAI Codex CLI rollout (``~/.codex/sessions/**/rollout-*.jsonl``)."""

from __future__ import annotations

import json
import re
from typing import Any

from service.domain.ingestion.formats.common import as_text, parse_time, source_stem
from service.domain.ingestion.formats.jsonl import read_jsonl
from service.domain.ingestion.formats.session import Session, describe_call
from service.domain.models import IngestUnit

#: Item types of a rollout's conversation (``response_item`` payloads, or bare lines in older
#: rollouts without ``payload``).
ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
    }
)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
#: User-role messages the CLI injects (environment, AGENTS.md, instructions), not requests.
_INJECTED = re.compile(r"^\s*(?:<[a-z_ -]+>|# AGENTS\.md|<INSTRUCTIONS>)", re.IGNORECASE)


def _items(records: list[dict[str, Any]]) -> tuple[list[tuple[str, dict[str, Any], Any]], int]:
    """Return `(line type, payload, timestamp)` per line and how many lines carried no payload."""
    out: list[tuple[str, dict[str, Any], Any]] = []
    bare = 0
    for r in records:
        payload = r.get("payload")
        if isinstance(payload, dict):
            out.append((str(r.get("type")), payload, r.get("timestamp")))
        elif r.get("type") in ITEM_TYPES:
            out.append(("response_item", r, r.get("timestamp")))
        else:
            bare += 1
    return out, bare


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _describe(payload: dict[str, Any]) -> str:
    ptype = payload.get("type")
    if ptype == "custom_tool_call":
        name = str(payload.get("name") or "tool")
        text = as_text(payload.get("input"))
        files = _PATCH_FILE.findall(text)
        return f"{name}: {', '.join(files)}" if files else describe_call(name, text)
    if ptype == "local_shell_call":
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        return describe_call("shell", action)
    if ptype == "web_search_call":
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        return describe_call("web_search", action) if action else "web_search"
    args = _arguments(payload.get("arguments"))
    name = str(payload.get("name") or "tool")
    if name == "write_stdin" and isinstance(args, dict):
        chars = args.get("chars") or ""
        return f"write_stdin: session {args.get('session_id')} {'(poll output)' if not chars else repr(chars)}"
    if name == "update_plan" and isinstance(args, dict) and isinstance(args.get("plan"), list):
        return f"update_plan: {len(args['plan'])} steps"
    return describe_call(name, args)


def _output(payload: dict[str, Any]) -> str:
    raw = payload.get("output")
    if isinstance(raw, dict):
        return as_text(raw.get("content") or raw.get("output") or raw)
    text = as_text(raw)
    decoded = _arguments(text)
    if isinstance(decoded, dict) and "output" in decoded:
        return as_text(decoded.get("output"))
    return text


def parse_records(records: list[dict[str, Any]], source_name: str) -> list[IngestUnit]:
    """Parse a Codex CLI rollout into one unit per user request.

    Input: ``codex`` (Codex CLI rollout JSON Lines: ``{timestamp, type, payload}``)

    The requests are the ``event_msg`` ``user_message`` lines (user-role ``message`` items
    that the CLI injects -- environment context, AGENTS.md -- are not); rollouts without
    those events use the user ``message`` items that are not injected. Then, in order, of the
    ``response_item`` payloads (or bare item lines of older rollouts): an assistant
    ``message`` (``commentary`` or ``final_answer``) and a non-empty ``reasoning`` summary are
    ``thought`` steps; ``function_call``, ``custom_tool_call`` (apply_patch: the files, not
    the patch), ``local_shell_call`` and ``web_search_call`` are ``action`` steps;
    ``function_call_output`` / ``custom_tool_call_output`` are ``observation`` steps
    (trimmed). Encrypted reasoning, ``token_count``, ``turn_context``, ``session_meta`` and
    the ``event_msg`` mirrors of items are not steps. So for each request: ``len(steps) == 1
    + assistant messages + readable reasoning summaries + calls + call outputs`` (+1 when the
    conclusion must be appended, see `SessionTrace.finish`).

    Args:
        records: the session's JSON Lines objects, in order (`read_jsonl`).
        source_name: the file name the material came from; names the units.

    Returns:
        The units in source order.
    """
    items, bare = _items(records)
    events = any(t == "event_msg" and p.get("type") == "user_message" for t, p, _ in items)
    session = Session()
    skipped = {"meta": bare, "encrypted_reasoning": 0, "injected_user_messages": 0}
    for line_type, payload, stamp in items:
        ptype = payload.get("type")
        if line_type == "event_msg":
            if ptype == "user_message":
                session.user(as_text(payload.get("message")), parse_time(stamp))
            continue
        if line_type != "response_item":
            continue
        if ptype == "message":
            role = payload.get("role")
            text = as_text(payload.get("content"))
            if role == "user" and not events:
                if _INJECTED.match(text):
                    skipped["injected_user_messages"] += 1
                else:
                    session.user(text, parse_time(stamp))
            elif role == "assistant" and session.current is not None:
                session.current.think(text)
            continue
        current = session.current
        if current is None:
            continue
        if ptype == "reasoning":
            summary = as_text(payload.get("summary"))
            if summary.strip():
                current.think(summary)
            else:
                skipped["encrypted_reasoning"] += 1
        elif ptype in ("function_call_output", "custom_tool_call_output"):
            current.result(_output(payload), payload.get("call_id"))
        elif ptype in ITEM_TYPES:
            current.act(_describe(payload), payload.get("call_id") or payload.get("id"))
    return session.units("codex", f"Codex {source_stem(source_name)}", {"skipped_lines": skipped})


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse a Codex CLI rollout given as text (`parse_records` of `read_jsonl`).

    Raises:
        FormatError: too many lines that are not JSON objects, or none that is.
    """
    return parse_records(read_jsonl(content, "codex").records, source_name)
