"""The ``codex`` format: an OpenAI Codex CLI rollout (``~/.codex/sessions/**/rollout-*.jsonl``)."""

from __future__ import annotations

import json
import re
from typing import Any

from service.domain.ingestion.formats.common import as_text, kind_of, parse_time, source_stem
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
_PATCH_BEGIN = "*** Begin Patch"
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
#: User-role messages the CLI injects (environment, AGENTS.md, instructions), not requests.
_INJECTED = re.compile(r"^\s*(?:<[a-z_ -]+>|# AGENTS\.md|<INSTRUCTIONS>)", re.IGNORECASE)


def rollout_items(data: Any) -> list[dict[str, Any]] | None:
    """Return the records of a JSON rollout of the TypeScript Codex CLI, or None for other JSON.

    That CLI (2025, before the Rust one) wrote ``rollout-*.json``: one object ``{"session":
    {timestamp, id, instructions}, "items": [...]}`` whose items are the bare items of older
    JSON Lines rollouts.

    Args:
        data: decoded JSON.

    Returns:
        The session object (its ``timestamp`` dates the items) and then the item objects, or
        None when `data` is not such a rollout.
    """
    if not isinstance(data, dict) or not isinstance(data.get("session"), dict):
        return None
    items = data.get("items")
    if not isinstance(items, list) or not any(kind_of(i) in ITEM_TYPES for i in items):
        return None
    return [data["session"], *(i for i in items if isinstance(i, dict))]


def _items(records: list[dict[str, Any]]) -> tuple[list[tuple[str, dict[str, Any], Any]], int]:
    """Return `(line type, payload, timestamp)` per line and how many lines carried no payload.

    Items without a timestamp (older rollouts) take the last one seen (the session's).
    """
    out: list[tuple[str, dict[str, Any], Any]] = []
    bare = 0
    stamp: Any = None
    for r in records:
        stamp = r.get("timestamp") or stamp
        payload = r.get("payload")
        if isinstance(payload, dict):
            out.append((str(r.get("type")), payload, stamp))
        elif kind_of(r) in ITEM_TYPES:
            out.append(("response_item", r, stamp))
        else:
            bare += 1
    return out, bare


def _patch_text(value: Any) -> str | None:
    """Return the apply_patch text among a call's arguments (also in a command list), or None."""
    if isinstance(value, str):
        return value if _PATCH_BEGIN in value else None
    values = list(value.values()) if isinstance(value, dict) else value
    if isinstance(values, list):
        return next((p for p in map(_patch_text, values) if p is not None), None)
    return None


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
    patch = _patch_text(args)
    if patch is not None:  # apply_patch, as its own tool or a shell command: the files only
        files = _PATCH_FILE.findall(patch)
        return f"apply_patch: {', '.join(files)}" if files else "apply_patch"
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
    the patch -- so too a ``function_call`` whose arguments hold a patch, as ``apply_patch``
    or a ``shell`` command), ``local_shell_call`` and ``web_search_call`` are ``action`` steps;
    ``function_call_output`` / ``custom_tool_call_output`` are ``observation`` steps
    (trimmed). Encrypted reasoning, ``token_count``, ``turn_context``, ``session_meta`` and
    the ``event_msg`` mirrors of items are not steps. So for each request: ``len(steps) == 1
    + assistant messages + readable reasoning summaries + calls + call outputs`` (+1 when the
    conclusion must be appended, see `SessionTrace.finish`).

    Args:
        records: the session's JSON Lines objects, in order (`read_jsonl`).
        source_name: the file name the material came from; names the units.

    Items without a timestamp (older rollouts) are dated by the session line before them.

    Returns:
        The units in source order.
    """
    items, bare = _items(records)
    events = any(t == "event_msg" and p.get("type") == "user_message" for t, p, _ in items)
    session = Session()
    skipped = {"meta": bare, "encrypted_reasoning": 0, "injected_user_messages": 0}
    for line_type, payload, stamp in items:
        ptype = kind_of(payload)
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


def json_records(content: str) -> list[dict[str, Any]] | None:
    """Return the records of a TypeScript Codex CLI JSON rollout (`rollout_items`), else None."""
    if not content.lstrip().startswith("{"):
        return None
    try:
        return rollout_items(json.loads(content))
    except (json.JSONDecodeError, RecursionError):
        return None


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse a Codex CLI rollout given as text (`parse_records` of its records).

    The records are the lines (`read_jsonl`), or the items of a TypeScript CLI JSON rollout
    (`json_records`).

    Raises:
        FormatError: too many lines that are not JSON objects, or none that is.
    """
    records = json_records(content)
    if records is None:
        records = read_jsonl(content, "codex").records
    return parse_records(records, source_name)
