"""The ``openhands`` format: an OpenHands event list becomes one unit."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from service.domain.ingestion.formats.chatter import is_chatter
from service.domain.ingestion.formats.common import (
    MAX_STEP_CHARS,
    MAX_TASK_CHARS,
    FormatError,
    as_text,
    load_json,
    obs,
    parse_time,
    source_stem,
    truncate,
)
from service.domain.ingestion.formats.openhands_v1 import classic_events, is_v1_event
from service.domain.ingestion.formats.retraction import mark_retractions
from service.domain.ingestion.formats.session import trim_observation
from service.domain.models import (
    IngestUnit,
    Kind,
    ProducedDraft,
    StepDraft,
    StepKind,
    TraceDraft,
)

#: OpenHands actions that are bookkeeping, not reasoning (skipped and listed).
OPENHANDS_SKIPPED_ACTIONS: frozenset[str] = frozenset(
    {"system", "recall", "change_agent_state", "null"}
)
#: OpenHands observations that are bookkeeping, not reasoning (skipped and listed).
#: ``think``: "Your thought has been logged."; ``finish``: V1's FinishObservation, the finish
#: message again (trial 23: stored as an observation step after the conclusion, and a memory).
OPENHANDS_SKIPPED_OBSERVATIONS: frozenset[str] = frozenset(
    {"agent_state_changed", "null", "recall", "think", "finish"}
)
#: ``finish`` ``args.task_completed`` values that say the task was not done (its text is no
#: decision, as a give-up sent as a ``message`` is none).
_NOT_COMPLETED = frozenset({"false", "no", "0"})
_OPENHANDS_DETAIL_KEYS = ("command", "code", "path", "url", "query", "content")
#: File actions: their ``command`` is the editor's sub-command (``str_replace``), so the path
#: is named too.
_FILE_ACTIONS = frozenset({"edit", "read", "write", "str_replace_editor", "file_editor"})


def events_of(data: Any) -> Any:
    """Return the event list of an OpenHands document (else `data` unchanged).

    A list is the events; ``{"trajectory": [...]}`` (a trajectory downloaded from the OpenHands
    UI), ``{"events": [...]}`` and ``{"history": [...]}`` (OpenDevin's) hold them. OpenDevin's
    ``[action, observation]`` pairs are read in order as the events they hold. V1
    conversation events (`is_v1_event`) are read as classic ones (`classic_events`).
    """
    if isinstance(data, dict):
        held = data.get("trajectory", data.get("events", data.get("history")))
        data = held if isinstance(held, list) else data
    if isinstance(data, list) and data and all(_is_pair(e) for e in data):
        data = [event for pair in data for event in pair]
    if isinstance(data, list) and any(is_v1_event(e) for e in data):
        return classic_events(data)
    return data


def _is_pair(item: Any) -> bool:
    """True for an OpenDevin history item: ``[action, observation]`` (objects), or one of them."""
    return isinstance(item, list) and 1 <= len(item) <= 2 and all(isinstance(e, dict) for e in item)


def is_event_list(data: Any) -> bool:
    """True for OpenHands events (`events_of`), classic or V1.

    Classic events carry ``action``/``observation``; under ``trajectory``/``events`` none may
    carry a ``response`` (a SWE-agent trajectory's steps do).
    """
    events = events_of(data)
    if not isinstance(events, list) or not events:
        return False
    if not all(isinstance(e, dict) for e in events):
        return False
    if not any("action" in e or "observation" in e for e in events):
        return False
    return isinstance(data, list) or not any("response" in e for e in events)


def _describe_action(action: str, args: dict[str, Any]) -> str:
    path = as_text(args.get("path")).strip()
    if action in _FILE_ACTIONS and path:
        command = as_text(args.get("command")).strip()
        return f"{action}: {command} {path}" if command else f"{action}: {path}"
    for name in _OPENHANDS_DETAIL_KEYS:
        value = args.get(name)
        if value:
            return f"{action}: {as_text(value)}"
    rest = {k: v for k, v in args.items() if k != "thought" and v not in (None, "", [], {})}
    return f"{action}: {json.dumps(rest, ensure_ascii=False, default=str)}" if rest else action


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse an OpenHands event list into one unit.

    Input: ``openhands`` (OpenHands event list JSON)

    The events are a JSON list, or the list under ``trajectory`` (a UI download), ``events``
    or ``history`` (OpenDevin's ``[action, observation]`` pairs: `events_of`); V1 conversation
    events (``kind``: ``MessageEvent``, ``ActionEvent``, ...) are read as classic ones
    (`classic_events`). One unit per file. The first user ``message`` is the task; later user
    messages are ``observation`` steps (and observations). For each agent action other than
    ``finish``: a ``thought`` step when ``args.thought`` is non-empty, then an ``action`` step
    (``message`` actions carry their text; a file action names its sub-command and path). Each
    observation event is an ``observation`` step (its message and content, once when they are the
    same) citing ``obs:<k>``; its ``cause`` is kept in ``unit.extra["observation_causes"]`` as
    ``{observation step index: action step index}``; long observations keep their head and tail
    (`trim_observation`), counted in ``extra["trimmed"]`` with actions cut to `MAX_STEP_CHARS`.
    ``finish`` is the ``conclusion`` step (its
    ``args.final_thought``, else ``args.thought``, else its ``message``); without ``finish`` the
    last agent message becomes the conclusion instead of an action. A ``think`` action is one
    ``thought`` step (its thought; none when empty), and its acknowledgement ("Your thought has
    been logged.") no observation. The trace produces the finish thought, else the last agent
    message, else the finish message: a ``decision`` (status ``active``) when the run finished
    (a ``finish`` action) and that text is not chatter (`is_chatter`), as a session's last
    answer is (trial 16: an OpenHands run's result had been an observation, no decision to
    follow an outcome or a challenge on); an ``observation`` otherwise, and when the finish says
    ``task_completed: "false"`` (or false: trial 23, "I could not complete the task... No files
    were changed." had been an active decision; ``"partial"`` still decides). The value is kept
    in ``unit.extra["task_completed"]``. Events
    `OPENHANDS_SKIPPED_ACTIONS` / `OPENHANDS_SKIPPED_OBSERVATIONS` (V1's ``finish`` echo of the
    finish message among them) are bookkeeping and are listed in ``unit.extra["skipped_events"]``. So ``len(steps) == (user messages - 1) + (agent non-finish,
    non-think actions with a thought) + (agent non-finish actions) + (observation events) + (1 if
    finish)``, counting a ``think`` action with a thought as one action and none without.

    Args:
        content: the event list's JSON text.
        source_name: its file name; the stem keys and names the unit.

    Returns:
        One unit: the session as a trace, with causes and skipped events in ``extra``.

    Raises:
        FormatError: not a non-empty JSON list of action/observation event objects.
    """
    data = events_of(load_json(content, "openhands"))
    if not isinstance(data, list):
        raise FormatError(f"openhands: expected a JSON list of events, got a {type(data).__name__}")
    if not data:
        raise FormatError("openhands: the event list is empty")
    for i, event in enumerate(data):
        if not isinstance(event, dict):
            raise FormatError(f"openhands: event {i} is not an object")
        if "action" not in event and "observation" not in event:
            raise FormatError(f"openhands: event {i} has neither 'action' nor 'observation'")

    stem = source_stem(source_name)
    task: str | None = None
    steps: list[StepDraft] = []
    observations: list[str] = []
    action_step_of_event: dict[Any, int] = {}
    causes: dict[int, int | None] = {}
    skipped: list[str] = []
    finish_text: str | None = None
    finish_thought = ""
    completed: str | None = None
    trimmed = 0
    last_agent_message: str | None = None
    last_agent_message_step: int | None = None
    started: datetime | None = None

    for i, event in enumerate(data):
        started = started or parse_time(event.get("timestamp"))
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        source = event.get("source")
        if "action" in event:
            action = str(event["action"])
            if action in OPENHANDS_SKIPPED_ACTIONS:
                skipped.append(f"event {i}: action {action}")
                continue
            text = (as_text(args.get("content")) or as_text(event.get("message"))).strip()
            if source == "user":
                if action == "message" and task is None:
                    task = truncate(text, MAX_TASK_CHARS) or f"OpenHands session {stem}"
                    continue
                note = f"User: {text}" if action == "message" else _describe_action(action, args)
                note, cut = trim_observation(note)
                trimmed += cut
                steps.append(
                    StepDraft(
                        kind=StepKind.OBSERVATION, content=note, cites=(obs(len(observations)),)
                    )
                )
                observations.append(note)
                continue
            thought = as_text(args.get("thought")).strip()
            if action == "finish":
                finish_thought = as_text(args.get("final_thought")).strip() or thought
                finish_text = finish_thought or as_text(event.get("message")).strip() or "finished"
                completed = as_text(args.get("task_completed")).strip().lower() or None
                trimmed += len(finish_text) > MAX_STEP_CHARS
                steps.append(
                    StepDraft(
                        kind=StepKind.CONCLUSION, content=truncate(finish_text, MAX_STEP_CHARS)
                    )
                )
                continue
            if action == "think":  # a thought logged as an action: one thought step
                thought = thought or text
                if thought:
                    steps.append(StepDraft(kind=StepKind.THOUGHT, content=thought))
                    action_step_of_event[event.get("id")] = len(steps) - 1
                else:
                    skipped.append(f"event {i}: action think (empty)")
                continue
            if thought:
                steps.append(StepDraft(kind=StepKind.THOUGHT, content=thought))
            if action == "message":
                description = f"message: {text}"
                last_agent_message = text
                last_agent_message_step = len(steps)
            else:
                description = _describe_action(action, args)
            trimmed += len(description) > MAX_STEP_CHARS
            steps.append(
                StepDraft(kind=StepKind.ACTION, content=truncate(description, MAX_STEP_CHARS))
            )
            action_step_of_event[event.get("id")] = len(steps) - 1
        else:
            kind = str(event["observation"])
            if kind in OPENHANDS_SKIPPED_OBSERVATIONS:
                skipped.append(f"event {i}: observation {kind}")
                continue
            parts = [as_text(event.get("message")).strip(), as_text(event.get("content")).strip()]
            parts = parts[1:] if parts[0] == parts[1] else parts
            note, cut = trim_observation("\n".join(p for p in parts if p) or f"({kind})")
            trimmed += cut
            causes[len(steps)] = action_step_of_event.get(event.get("cause"))
            steps.append(
                StepDraft(kind=StepKind.OBSERVATION, content=note, cites=(obs(len(observations)),))
            )
            observations.append(note)

    if finish_text is None and last_agent_message_step is not None:
        steps[last_agent_message_step] = StepDraft(
            kind=StepKind.CONCLUSION,
            content=truncate(last_agent_message or "", MAX_STEP_CHARS),
        )
    result = finish_thought or last_agent_message or finish_text
    produced = None
    finished = finish_text is not None and completed not in _NOT_COMPLETED
    if result and finished and not is_chatter(result):
        # The run finished and says what it did: its decision, as a session's last answer is.
        produced = ProducedDraft(
            kind=Kind.DECISION, content=truncate(result, MAX_STEP_CHARS), status="active"
        )
    elif result:
        produced = ProducedDraft(kind=Kind.OBSERVATION, content=truncate(result, MAX_STEP_CHARS))
    task = task or f"OpenHands session {stem}"
    return [
        IngestUnit(
            key=stem,
            title=f"OpenHands: {task.splitlines()[0][:100]}",
            observations=tuple(observations),
            trace=TraceDraft(task=task, steps=mark_retractions(steps), produced=produced),
            valid_from=started,
            name=stem,
            extra={
                "format": "openhands",
                "events": len(data),
                "observation_causes": causes,
                "skipped_events": skipped,
                "task_completed": completed,
                "trimmed": trimmed,
            },
        )
    ]
