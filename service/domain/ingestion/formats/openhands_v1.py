"""OpenHands V1 (software-agent-sdk) conversation events, read as the classic event list."""

from __future__ import annotations

from typing import Any

from service.domain.ingestion.formats.common import as_text

#: Fields of a V1 action that say what it targets (kept as the classic event's ``args``).
_TARGET_FIELDS = ("command", "code", "path", "url", "query", "message", "thought")


def is_v1_event(event: Any) -> bool:
    """True for a V1 conversation event: an object whose ``kind`` names an ``...Event``."""
    return isinstance(event, dict) and str(event.get("kind", "")).endswith("Event")


def _object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    """Text of a V1 content value: a string, a ``{type: text, text}`` part or a list of them."""
    if isinstance(value, dict):
        value = [value]
    return as_text(value).strip()


def _observation_text(observation: dict[str, Any]) -> str:
    for key in ("content", "output", "text", "error", "message"):
        text = _text(observation.get(key))
        if text:
            return text
    return ""


def _action(event: dict[str, Any]) -> dict[str, Any]:
    action = _object(event.get("action"))
    kind = str(action.get("kind") or "")
    thought = _text(event.get("thought")) or _text(event.get("reasoning_content"))
    base = {"id": event.get("id"), "timestamp": event.get("timestamp"), "source": "agent"}
    if kind == "FinishAction":
        final = _text(action.get("message"))
        args = {"final_thought": final, "thought": thought}
        if "task_completed" in action:  # as the classic finish has it, when a V1 one does
            args["task_completed"] = action["task_completed"]
        return {**base, "action": "finish", "args": args}
    if kind == "ThinkAction":
        return {**base, "action": "think", "args": {"thought": _text(action.get("thought"))}}
    name = str(event.get("tool_name") or kind.removesuffix("Action") or "tool")
    args = {k: action[k] for k in _TARGET_FIELDS if k != "thought" and action.get(k)}
    return {**base, "action": name, "args": {**args, "thought": thought}}


def classic_events(events: list[Any]) -> list[dict[str, Any]]:
    """Return V1 conversation events as classic OpenHands events (`openhands.parse` reads them).

    ``MessageEvent`` becomes a ``message`` action of its source (the text of ``llm_message``);
    ``ActionEvent`` an action named by its tool, its ``thought`` as ``args.thought`` and its
    command/path/code/... as ``args`` (``FinishAction`` the ``finish`` action, its message the
    final thought, its ``task_completed`` kept when it has one; ``ThinkAction`` a ``think``
    action); ``ObservationEvent`` an observation of its tool whose ``cause`` is its
    ``action_id`` (a ``FinishObservation``, the finish message echoed, a ``finish`` one, which
    `openhands.parse` skips); ``AgentErrorEvent`` an ``error``
    observation; ``UserRejectObservation`` a ``user_rejected`` observation. System prompts,
    state updates, pauses and condensations become skipped bookkeeping (``system``).

    Args:
        events: the decoded V1 events, in order.

    Returns:
        One classic event per V1 event, in order (ids kept, so causes still resolve).
    """
    out: list[dict[str, Any]] = []
    for event in events:
        if not isinstance(event, dict):
            out.append({"action": "system"})
            continue
        kind = str(event.get("kind", ""))
        base = {"id": event.get("id"), "timestamp": event.get("timestamp")}
        if kind == "MessageEvent":
            message = _object(event.get("llm_message"))
            text = _text(message.get("content"))
            source = event.get("source") or message.get("role")
            out.append({**base, "source": source, "action": "message", "args": {"content": text}})
        elif kind == "ActionEvent":
            out.append(_action(event))
        elif kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
            observation = event.get("observation")
            text = _observation_text(observation) if isinstance(observation, dict) else ""
            text = text or _text(event.get("error")) or _text(event.get("rejection_reason"))
            name = {"AgentErrorEvent": "error", "UserRejectObservation": "user_rejected"}.get(
                kind, str(event.get("tool_name") or "observation")
            )
            if isinstance(observation, dict) and observation.get("kind") == "FinishObservation":
                name = "finish"  # the finish message echoed: skipped bookkeeping
            out.append(
                {
                    **base,
                    "source": "environment",
                    "observation": name,
                    "content": text,
                    "cause": event.get("action_id"),
                }
            )
        else:
            out.append({**base, "action": "system", "kind": kind})
    return out
