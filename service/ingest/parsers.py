"""Parsers that turn handed-in material into `IngestUnit`s (DESIGN §6, `POST /v1/ingest`).

Formats and their mapping (steps are `StepDraft`s; ``obs:<i>`` cites the i-th observation of
the same unit; every count below is exact, tests check it against the source):

``swe-agent`` (SWE-agent ``.traj`` JSON: ``{trajectory[], history[], info{exit_status,
submission}}``)
    One unit per file. Each ``trajectory[i]`` gives three steps: a ``thought`` step (its
    ``thought``), an ``action`` step (its ``action``) and an ``observation`` step citing
    ``obs:<i>`` (its ``observation``); then one ``conclusion`` step. So
    ``len(steps) == 3 * len(trajectory) + 1`` and ``len(observations) == len(trajectory)``.
    Observations are cut to `MAX_OBSERVATION_CHARS` (a marker says how much was cut); an
    empty one becomes ``"(no output)"``. When ``info.submission`` is non-empty the conclusion
    and the produced ``decision`` read ``"Submitted patch: <diff>"`` (``"Submitted: <text>"``
    when it is not a diff), the diff cut to `MAX_PATCH_CHARS`; otherwise both report the exit
    status and the last thought (produced kind ``observation``). The task is the issue text of
    the first non-demonstration user message of ``history`` (between ``ISSUE:`` and
    ``INSTRUCTIONS:``), cut to `MAX_TASK_CHARS`.

``react`` (ReAct transcripts: plain text such as the FEVER notebook output, or a JSON object
of prompt strings such as ``prompts_naive.json``)
    An episode starts at a ``Question:`` or ``Claim:`` line (optionally preceded by a number);
    one unit per episode. Every ``Thought n:``, ``Action n:`` and ``Observation n:`` line is
    one step (``thought``, ``action``, ``observation`` citing ``obs:<k>``), untagged lines
    continue the previous step, so ``len(steps)`` equals the number of tagged lines. An
    ``Action n: Finish[x]`` whose next observation is not ``Invalid action...`` is the
    ``conclusion`` step and makes the produced ``decision`` (two lines: ``"<Claim|Question>:
    <task>"`` and ``"Answer: x"``); an episode without one produces an ``observation`` saying
    so (no conclusion step). Notebook noise is skipped: a line starting with ``ohh...`` opens a
    debug block (the notebook's retry print) that runs to the next ``Thought n:`` line; a
    ``{'steps': ...}`` result line is parsed into ``unit.extra`` and ends the episode's steps;
    lines of dashes are separators. In JSON input, keys are read in order and each episode is
    keyed ``<key>-<n>``; a key whose prompt has no numbered step (e.g. ``cotqa_*``) becomes
    ``text`` units keyed ``<key>-text-<i>``. Text input keys episodes ``episode-<n>``
    (1-based).

``openhands`` (OpenHands event list JSON)
    One unit per file. The first user ``message`` is the task; later user messages are
    ``observation`` steps (and observations). For each agent action other than ``finish``: a
    ``thought`` step when ``args.thought`` is non-empty, then an ``action`` step (``message``
    actions carry their text). Each observation event is an ``observation`` step citing
    ``obs:<k>``; its ``cause`` is kept in ``unit.extra["observation_causes"]`` as
    ``{observation step index: action step index}``. ``finish`` is the ``conclusion`` step
    (its ``args.thought``, else its ``message``); without ``finish`` the last agent message
    becomes the conclusion instead of an action. The produced ``observation`` is the finish
    thought, else the last agent message, else the finish message. Events
    `OPENHANDS_SKIPPED_ACTIONS` / `OPENHANDS_SKIPPED_OBSERVATIONS` are bookkeeping and are
    listed in ``unit.extra["skipped_events"]``. So ``len(steps) == (user messages - 1) +
    (agent non-finish actions with a thought) + (agent non-finish actions) + (observation
    events) + (1 if finish)``.

``adr`` (Markdown architecture decision records: MADR, Nygard, log4brains)
    One unit per file, ``name`` = file stem, ``title`` = the first ``#`` heading. Steps in
    order: one ``observation`` step per block (paragraph, list, code, quote, table) of the
    context section (``Context and Problem Statement`` / ``Context``), one ``observation``
    step for the ``Decision Drivers`` (if any), one ``thought`` step with status
    ``hypothesis`` per considered option (its text), then -- when the outcome names a chosen
    option -- the evaluations, in option order: a ``thought`` confirming each chosen option
    that has ``Good, because`` arguments (they are its content), a ``thought`` rejecting each
    other option that has ``Bad, because`` arguments (``rejects=(option step,)``, the cons
    are the reason), and one last ``thought`` rejecting together the other options without
    cons (``rejects`` lists them all; the reason is the outcome's ``because`` clause); last,
    one ``conclusion`` step with the outcome text (``Decision Outcome`` / ``Decision``,
    subsections excluded), which also confirms the chosen options. So ``len(steps) ==
    context blocks + (1 if drivers) + options + (chosen options with pros + other options
    with cons + (1 if some other option has no cons), when a choice was identified) + 1``.
    The produced ``decision`` is ``"<title>: <outcome>"`` with status ``active``. The chosen options are the quoted names of the outcome's first
    paragraph matched to the considered options. Status comes from YAML front matter
    ``status``, a ``Status:`` line before the first ``##`` section, or a ``Status`` section;
    ``superseded by X`` / ``supersedes X`` clauses there and ``Supersedes X`` /
    ``Superseded by X`` items of a ``Links`` section fill ``superseded_by`` / ``supersedes``
    with `adr_key` values. ``Date`` (front matter or status line) sets ``valid_from`` (UTC
    midnight). Other sections (consequences, more information, ...) are listed in
    ``unit.extra["ignored_sections"]``.

``text`` (plain text or Markdown)
    No trace. Top-level blocks (Markdown-it block boundaries, i.e. paragraphs for plain text)
    are packed, in order, into chunks of at most `MAX_TEXT_CHUNK_CHARS` characters; a longer
    block is split on line boundaries, and a longer line hard-split. One unit per chunk, keyed
    ``chunk-<i>`` (0-based), with the chunk as its single observation.

Errors: every problem with the input raises `FormatError` (``code = "input.invalid_format"``)
whose message names the format and the problem.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import PurePosixPath
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from service.domain.models import (
    IngestUnit,
    Kind,
    ProducedDraft,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
)
from service.domain.quality import containment, similarity

#: Formats `parse` accepts besides ``auto``.
FORMATS: tuple[str, ...] = ("swe-agent", "react", "openhands", "adr", "text")
#: Longest observation text kept, in characters; longer ones are cut and marked.
MAX_OBSERVATION_CHARS = 4000
#: Longest submitted patch kept in a SWE-agent conclusion, in characters.
MAX_PATCH_CHARS = 2000
#: Longest task text kept, in characters.
MAX_TASK_CHARS = 2000
#: Longest action or conclusion text kept, in characters.
MAX_STEP_CHARS = 4000
#: Largest chunk of the ``text`` format, in characters.
MAX_TEXT_CHUNK_CHARS = 2000
#: OpenHands actions that are bookkeeping, not reasoning (skipped and listed).
OPENHANDS_SKIPPED_ACTIONS: frozenset[str] = frozenset(
    {"system", "recall", "change_agent_state", "null"}
)
#: OpenHands observations that are bookkeeping, not reasoning (skipped and listed).
OPENHANDS_SKIPPED_OBSERVATIONS: frozenset[str] = frozenset(
    {"agent_state_changed", "null", "recall"}
)


class FormatError(ValueError):
    """Handed-in material is not valid for its (declared or detected) format.

    Attributes:
        code: stable error code ``"input.invalid_format"`` (HTTP 422).
        message: what is wrong, starting with the format name.
    """

    code = "input.invalid_format"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# ---------------------------------------------------------------------------------------------
# shared helpers


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… [truncated: {len(text) - limit} of {len(text)} characters cut]"


def _stem(source_name: str) -> str:
    name = PurePosixPath(source_name.replace("\\", "/")).name
    return name.rsplit(".", 1)[0] if "." in name else (name or "source")


def _check_text(content: str, fmt: str) -> None:
    if not content.strip():
        raise FormatError(f"{fmt}: content is empty")
    sample = content[:65536]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    if "\x00" in sample or controls / len(sample) > 0.05:
        raise FormatError(
            f"{fmt}: content looks binary ({controls} control characters in the first "
            f"{len(sample)})"
        )


def _load_json(content: str, fmt: str) -> Any:
    try:
        return json.loads(content)
    except json.JSONDecodeError as exc:
        raise FormatError(
            f"{fmt}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from exc
    except RecursionError as exc:
        raise FormatError(f"{fmt}: JSON is nested too deeply") from exc


def _obs(index: int) -> str:
    return f"obs:{index}"


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [item.get("text", "") if isinstance(item, dict) else str(item) for item in value]
        return "\n".join(p for p in parts if p)
    return json.dumps(value, ensure_ascii=False, default=str)


def _parse_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


# ---------------------------------------------------------------------------------------------
# SWE-agent


def _swe_task(data: dict[str, Any], stem: str) -> str:
    history = data.get("history")
    if isinstance(history, list):
        for message in history:
            if not isinstance(message, dict) or message.get("role") != "user":
                continue
            if message.get("is_demo"):
                continue
            text = _text(message.get("content"))
            if "ISSUE:" in text:
                text = text.split("ISSUE:", 1)[1]
            text = text.split("INSTRUCTIONS:", 1)[0].strip()
            if text:
                return _truncate(text, MAX_TASK_CHARS)
    return f"SWE-agent run {stem}"


def _parse_swe_agent(content: str, source_name: str) -> list[IngestUnit]:
    data = _load_json(content, "swe-agent")
    if not isinstance(data, dict):
        raise FormatError(f"swe-agent: expected a JSON object, got a {type(data).__name__}")
    trajectory = data.get("trajectory")
    if trajectory is None:
        raise FormatError("swe-agent: 'trajectory' is missing")
    if not isinstance(trajectory, list):
        raise FormatError("swe-agent: 'trajectory' must be a list")
    if not trajectory:
        raise FormatError("swe-agent: 'trajectory' is empty")
    info = data.get("info") or {}
    if not isinstance(info, dict):
        raise FormatError("swe-agent: 'info' must be an object")

    stem = _stem(source_name)
    steps: list[StepDraft] = []
    observations: list[str] = []
    last_thought = ""
    for i, entry in enumerate(trajectory):
        if not isinstance(entry, dict):
            raise FormatError(f"swe-agent: trajectory[{i}] is not an object")
        if "action" not in entry:
            raise FormatError(f"swe-agent: trajectory[{i}] has no 'action'")
        thought = _text(entry.get("thought")).strip() or "(no thought recorded)"
        action = _text(entry.get("action")).strip() or "(empty action)"
        observation = _text(entry.get("observation")).strip() or "(no output)"
        observation = _truncate(observation, MAX_OBSERVATION_CHARS)
        observations.append(observation)
        steps.append(StepDraft(kind=StepKind.THOUGHT, content=thought))
        steps.append(StepDraft(kind=StepKind.ACTION, content=_truncate(action, MAX_STEP_CHARS)))
        steps.append(StepDraft(kind=StepKind.OBSERVATION, content=observation, cites=(_obs(i),)))
        last_thought = thought

    exit_status = _text(info.get("exit_status")).strip() or "unknown"
    submission = _text(info.get("submission")).strip()
    if submission:
        label = "Submitted patch" if submission.startswith("diff") else "Submitted"
        conclusion = f"{label}: {_truncate(submission, MAX_PATCH_CHARS)}"
        produced = ProducedDraft(kind=Kind.DECISION, content=conclusion, status="active")
    else:
        conclusion = (
            f"Run ended without a submission (exit status: {exit_status}). "
            f"Last thought: {last_thought}"
        )
        produced = ProducedDraft(kind=Kind.OBSERVATION, content=conclusion)
    steps.append(StepDraft(kind=StepKind.CONCLUSION, content=_truncate(conclusion, MAX_STEP_CHARS)))
    task = _swe_task(data, stem)
    return [
        IngestUnit(
            key=stem,
            title=f"SWE-agent: {task.splitlines()[0][:100]}",
            observations=tuple(observations),
            trace=TraceDraft(task=task, steps=tuple(steps), produced=produced),
            name=stem,
            extra={
                "format": "swe-agent",
                "exit_status": exit_status,
                "trajectory_entries": len(trajectory),
            },
        )
    ]


# ---------------------------------------------------------------------------------------------
# ReAct

_REACT_TAG = re.compile(r"^(Thought|Action|Observation) (\d+):[ \t]?(.*)$")
_REACT_ANY_TAG = re.compile(r"^(?:Thought|Action) \d+:", re.MULTILINE)
_REACT_START = re.compile(r"^\s*(?:(\d+)\s+)?(Question|Claim):\s*(.*)$")
_REACT_FINISH = re.compile(r"^Finish\[(.*)\]$", re.DOTALL)
_REACT_SEPARATOR = re.compile(r"^-{3,}\s*$")
_REACT_DEBUG = "ohh..."


@dataclass
class _Record:
    tag: str
    number: int
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()


@dataclass
class _Episode:
    label: str
    task: str
    number: str | None
    lines: list[str] = field(default_factory=list)


def _react_episodes(text: str) -> list[_Episode]:
    episodes: list[_Episode] = []
    for line in text.splitlines():
        start = _REACT_START.match(line)
        if start:
            episodes.append(_Episode(start.group(2), start.group(3).strip(), start.group(1)))
        elif episodes:
            episodes[-1].lines.append(line)
    if not episodes and _REACT_ANY_TAG.search(text):
        episodes.append(_Episode("Question", "", None, text.splitlines()))
    return episodes


def _react_records(lines: Sequence[str]) -> tuple[list[_Record], dict[str, Any], int]:
    records: list[_Record] = []
    result: dict[str, Any] = {}
    skipped = 0
    in_debug = False
    done = False
    for line in lines:
        if done:
            continue
        if line.startswith("{") and "'steps'" in line:
            try:
                parsed = ast.literal_eval(line.strip())
            except (ValueError, SyntaxError):
                parsed = None
            if isinstance(parsed, dict):
                result = {str(k): v for k, v in parsed.items()}
                done = True
                continue
        tag = _REACT_TAG.match(line)
        if in_debug:
            if tag and tag.group(1) == "Thought":
                in_debug = False
            else:
                skipped += 1
                continue
        if tag:
            records.append(_Record(tag.group(1), int(tag.group(2)), [tag.group(3)]))
        elif line.startswith(_REACT_DEBUG):
            in_debug = True
            skipped += 1
        elif _REACT_SEPARATOR.match(line):
            continue
        elif records:
            records[-1].lines.append(line)
    return records, result, skipped


def _react_unit(episode: _Episode, key: str, source: str) -> IngestUnit:
    records, result, skipped = _react_records(episode.lines)
    task = episode.task or f"ReAct episode {key}"
    if not records:
        body = "\n".join([f"{episode.label}: {episode.task}", *episode.lines]).strip()
        return IngestUnit(
            key=key,
            title=f"{source} {key} (no steps)",
            observations=tuple(_chunks(body)),
            extra={"format": "react", "note": "episode without numbered steps", **result},
        )
    steps: list[StepDraft] = []
    observations: list[str] = []
    answer: str | None = None
    for pos, record in enumerate(records):
        text = record.text
        if record.tag == "Thought":
            steps.append(StepDraft(kind=StepKind.THOUGHT, content=text or "(empty thought)"))
        elif record.tag == "Action":
            finish = _REACT_FINISH.match(text)
            following = records[pos + 1] if pos + 1 < len(records) else None
            refused = (
                following is not None
                and following.tag == "Observation"
                and following.text.startswith("Invalid action")
            )
            if finish and not refused:
                answer = finish.group(1).strip()
                steps.append(StepDraft(kind=StepKind.CONCLUSION, content=text))
            else:
                steps.append(
                    StepDraft(
                        kind=StepKind.ACTION,
                        content=_truncate(text, MAX_STEP_CHARS) or "(empty action)",
                    )
                )
        else:
            observation = _truncate(text, MAX_OBSERVATION_CHARS) or "(empty observation)"
            steps.append(
                StepDraft(
                    kind=StepKind.OBSERVATION,
                    content=observation,
                    cites=(_obs(len(observations)),),
                )
            )
            observations.append(observation)
    if answer is not None:
        produced = ProducedDraft(
            kind=Kind.DECISION,
            content=f"{episode.label}: {task}\nAnswer: {answer}",
            status="active",
        )
    else:
        rounds = len({r.number for r in records})
        produced = ProducedDraft(
            kind=Kind.OBSERVATION,
            content=(
                f"{episode.label}: {task}\nNo answer: the episode ended without Finish "
                f"after {rounds} numbered rounds."
            ),
        )
    extra: dict[str, Any] = {"format": "react", "answer": answer, **result}
    if episode.number is not None:
        extra["question_idx_line"] = episode.number
    if skipped:
        extra["skipped_debug_lines"] = skipped
    return IngestUnit(
        key=key,
        title=f"{episode.label}: {task[:100]}",
        observations=tuple(observations),
        trace=TraceDraft(task=task, steps=tuple(steps), produced=produced),
        extra=extra,
    )


def _parse_react(content: str, source_name: str) -> list[IngestUnit]:
    stripped = content.lstrip()
    source = _stem(source_name)
    if stripped.startswith(("{", "[")):
        data = _load_json(content, "react")
        if not isinstance(data, dict):
            raise FormatError("react: JSON input must be an object of prompt strings")
        units: list[IngestUnit] = []
        for name, value in data.items():
            if not isinstance(value, str):
                raise FormatError(f"react: value of {name!r} is not a string")
            if _REACT_ANY_TAG.search(value):
                episodes = _react_episodes(value)
                units.extend(
                    _react_unit(ep, f"{name}-{n}", source) for n, ep in enumerate(episodes, 1)
                )
            elif value.strip():
                units.extend(
                    IngestUnit(
                        key=f"{name}-text-{i}",
                        title=f"{source} {name} [{i + 1}] (prompt without ReAct steps)",
                        observations=(chunk,),
                        extra={"format": "react", "note": "prompt without numbered steps"},
                    )
                    for i, chunk in enumerate(_chunks(value))
                )
        if not any(u.trace for u in units):
            raise FormatError("react: no value holds 'Thought 1:'/'Action 1:' steps")
        return units
    episodes = _react_episodes(content)
    if not episodes:
        raise FormatError(
            "react: no episode found (expected 'Question:' or 'Claim:' lines followed by "
            "'Thought 1:'/'Action 1:' lines)"
        )
    units = [_react_unit(ep, f"episode-{n}", source) for n, ep in enumerate(episodes, 1)]
    if not any(u.trace for u in units):
        raise FormatError("react: no episode has 'Thought n:'/'Action n:' steps")
    return units


# ---------------------------------------------------------------------------------------------
# OpenHands

_OPENHANDS_DETAIL_KEYS = ("command", "code", "path", "url", "query", "content")


def _describe_action(action: str, args: dict[str, Any]) -> str:
    for name in _OPENHANDS_DETAIL_KEYS:
        value = args.get(name)
        if value:
            return f"{action}: {_text(value)}"
    rest = {k: v for k, v in args.items() if k != "thought" and v not in (None, "", [], {})}
    return f"{action}: {json.dumps(rest, ensure_ascii=False, default=str)}" if rest else action


def _parse_openhands(content: str, source_name: str) -> list[IngestUnit]:
    data = _load_json(content, "openhands")
    if not isinstance(data, list):
        raise FormatError(f"openhands: expected a JSON list of events, got a {type(data).__name__}")
    if not data:
        raise FormatError("openhands: the event list is empty")
    for i, event in enumerate(data):
        if not isinstance(event, dict):
            raise FormatError(f"openhands: event {i} is not an object")
        if "action" not in event and "observation" not in event:
            raise FormatError(f"openhands: event {i} has neither 'action' nor 'observation'")

    stem = _stem(source_name)
    task: str | None = None
    steps: list[StepDraft] = []
    observations: list[str] = []
    action_step_of_event: dict[Any, int] = {}
    causes: dict[int, int | None] = {}
    skipped: list[str] = []
    finish_text: str | None = None
    finish_thought = ""
    last_agent_message: str | None = None
    last_agent_message_step: int | None = None
    started: datetime | None = None

    for i, event in enumerate(data):
        started = started or _parse_time(event.get("timestamp"))
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        source = event.get("source")
        if "action" in event:
            action = str(event["action"])
            if action in OPENHANDS_SKIPPED_ACTIONS:
                skipped.append(f"event {i}: action {action}")
                continue
            text = (_text(args.get("content")) or _text(event.get("message"))).strip()
            if source == "user":
                if action == "message" and task is None:
                    task = _truncate(text, MAX_TASK_CHARS) or f"OpenHands session {stem}"
                    continue
                note = f"User: {text}" if action == "message" else _describe_action(action, args)
                note = _truncate(note, MAX_OBSERVATION_CHARS)
                steps.append(
                    StepDraft(
                        kind=StepKind.OBSERVATION, content=note, cites=(_obs(len(observations)),)
                    )
                )
                observations.append(note)
                continue
            thought = _text(args.get("thought")).strip()
            if action == "finish":
                finish_thought = thought
                finish_text = thought or _text(event.get("message")).strip() or "finished"
                steps.append(
                    StepDraft(
                        kind=StepKind.CONCLUSION, content=_truncate(finish_text, MAX_STEP_CHARS)
                    )
                )
                continue
            if thought:
                steps.append(StepDraft(kind=StepKind.THOUGHT, content=thought))
            if action == "message":
                description = f"message: {text}"
                last_agent_message = text
                last_agent_message_step = len(steps)
            else:
                description = _describe_action(action, args)
            steps.append(
                StepDraft(kind=StepKind.ACTION, content=_truncate(description, MAX_STEP_CHARS))
            )
            action_step_of_event[event.get("id")] = len(steps) - 1
        else:
            kind = str(event["observation"])
            if kind in OPENHANDS_SKIPPED_OBSERVATIONS:
                skipped.append(f"event {i}: observation {kind}")
                continue
            parts = [_text(event.get("message")).strip(), _text(event.get("content")).strip()]
            note = _truncate("\n".join(p for p in parts if p) or f"({kind})", MAX_OBSERVATION_CHARS)
            causes[len(steps)] = action_step_of_event.get(event.get("cause"))
            steps.append(
                StepDraft(kind=StepKind.OBSERVATION, content=note, cites=(_obs(len(observations)),))
            )
            observations.append(note)

    if finish_text is None and last_agent_message_step is not None:
        steps[last_agent_message_step] = StepDraft(
            kind=StepKind.CONCLUSION,
            content=_truncate(last_agent_message or "", MAX_STEP_CHARS),
        )
    result = finish_thought or last_agent_message or finish_text
    produced = (
        ProducedDraft(kind=Kind.OBSERVATION, content=_truncate(result, MAX_STEP_CHARS))
        if result
        else None
    )
    task = task or f"OpenHands session {stem}"
    return [
        IngestUnit(
            key=stem,
            title=f"OpenHands: {task.splitlines()[0][:100]}",
            observations=tuple(observations),
            trace=TraceDraft(task=task, steps=tuple(steps), produced=produced),
            valid_from=started,
            name=stem,
            extra={
                "format": "openhands",
                "events": len(data),
                "observation_causes": causes,
                "skipped_events": skipped,
            },
        )
    ]


# ---------------------------------------------------------------------------------------------
# Markdown helpers (ADR and text)

_MD = MarkdownIt("commonmark").enable("table")


@dataclass
class _Block:
    kind: str
    text: str
    items: tuple[str, ...] = ()
    level: int = 0


def _inline_text(token: Token) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type == "text":
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(f"`{child.content}`")
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts).strip()


def _inner_text(tokens: Sequence[Token]) -> str:
    parts = [_inline_text(t) for t in tokens if t.type == "inline"]
    parts += [t.content.strip() for t in tokens if t.type in ("fence", "code_block")]
    return "\n".join(p for p in parts if p)


def _list_items(tokens: Sequence[Token], level: int) -> tuple[str, ...]:
    items: list[str] = []
    start = None
    for i, token in enumerate(tokens):
        if token.type == "list_item_open" and token.level == level:
            start = i
        elif token.type == "list_item_close" and token.level == level and start is not None:
            items.append(" ".join(_inner_text(tokens[start + 1 : i]).split("\n")))
            start = None
    return tuple(item for item in items if item)


def _blocks(markdown: str) -> list[_Block]:
    tokens = _MD.parse(markdown)
    blocks: list[_Block] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type.endswith("_open"):
            close = token.type[: -len("_open")] + "_close"
            j = i + 1
            while j < len(tokens) and not (
                tokens[j].type == close and tokens[j].level == token.level
            ):
                j += 1
            inner = tokens[i + 1 : j]
            if token.type == "heading_open":
                blocks.append(_Block("heading", _inner_text(inner), level=int(token.tag[1:])))
            elif token.type in ("bullet_list_open", "ordered_list_open"):
                items = _list_items(inner, token.level + 1)
                blocks.append(_Block("list", "\n".join(f"- {x}" for x in items), items))
            elif token.type == "table_open":
                rows: list[str] = []
                cells: list[str] = []
                for t in inner:
                    if t.type == "inline":
                        cells.append(_inline_text(t))
                    elif t.type == "tr_close":
                        rows.append(" | ".join(cells))
                        cells = []
                blocks.append(_Block("table", "\n".join(rows)))
            else:
                kind = token.type[: -len("_open")]
                blocks.append(_Block(kind, _inner_text(inner)))
            i = j + 1
            continue
        if token.type in ("fence", "code_block"):
            blocks.append(_Block("code", token.content.strip()))
        elif token.type == "html_block":
            blocks.append(_Block("html", token.content.strip()))
        i += 1
    return blocks


def _block_ranges(markdown: str) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for token in _MD.parse(markdown):
        if token.level == 0 and token.map is not None and not token.type.endswith("_close"):
            start, end = token.map
            if not ranges or start >= ranges[-1][1]:
                ranges.append((start, end))
    return ranges


def _split_long(text: str, limit: int) -> list[str]:
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            current = line
        else:
            current = candidate
    if current.strip():
        pieces.append(current)
    return [p for p in pieces if p.strip()]


def _chunks(text: str, limit: int = MAX_TEXT_CHUNK_CHARS) -> list[str]:
    lines = text.splitlines()
    blocks = ["\n".join(lines[a:b]).strip() for a, b in _block_ranges(text)]
    blocks = [b for b in blocks if b]
    if not blocks and text.strip():
        blocks = [text.strip()]
    chunks: list[str] = []
    current = ""
    for block in blocks:
        parts = _split_long(block, limit) if len(block) > limit else [block]
        for part in parts:
            candidate = f"{current}\n\n{part}" if current else part
            if len(candidate) > limit:
                chunks.append(current)
                current = part
            else:
                current = candidate
    if current:
        chunks.append(current)
    return chunks


# ---------------------------------------------------------------------------------------------
# ADR

_CONTEXT = {"context and problem statement", "context", "problem statement", "context and problem"}
_DRIVERS = {"decision drivers"}
_OPTIONS = {"considered options", "options"}
_OUTCOME = {"decision outcome", "decision"}
_PROS_CONS = {"pros and cons of the options", "pros and cons"}
_STATUS = {"status"}
_LINKS = {"links"}
_ADR_HEADINGS = _CONTEXT | _DRIVERS | _OPTIONS | _OUTCOME | _PROS_CONS | _STATUS | {"consequences"}
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")
_REF_TOKEN = re.compile(r"[A-Za-z0-9][\w.\-]*")
_ADR_NUMBER = re.compile(r"(?:adr[-_ ]?)?0*(\d+)")


def adr_key(reference: str) -> str:
    """Return the normalised key of an ADR reference, for supersession matching.

    ``"ADR-0057"``, ``"0057"``, ``"0057-allow-positional-input-file-argument"`` and
    ``"docs/decisions/0057-allow-positional-input-file-argument.md"`` all give ``"57"``;
    ``"20201016-use-the-adr-slug-as-its-unique-id"`` gives ``"20201016"``. A reference without
    a leading number gives its lower-cased file stem (slug).

    Args:
        reference: an ADR number, name, file stem or path, as written in a record.

    Returns:
        The leading number without leading zeros, or the lower-cased slug.
    """
    name = PurePosixPath(reference.strip().replace("\\", "/")).name.lower()
    if name.endswith(".md"):
        name = name[:-3]
    match = _ADR_NUMBER.match(name)
    return match.group(1) if match else name


def _heading_name(text: str) -> str:
    return " ".join(text.lower().strip().rstrip(":").split())


@dataclass
class _Section:
    name: str
    title: str
    blocks: list[_Block] = field(default_factory=list)
    subsections: list[tuple[str, list[_Block]]] = field(default_factory=list)


@dataclass
class _Adr:
    title: str
    preamble: list[_Block]
    sections: list[_Section]

    def section(self, names: set[str]) -> _Section | None:
        return next((s for s in self.sections if s.name in names), None)


def _split_front_matter(content: str) -> tuple[dict[str, Any], str]:
    lines = content.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, content
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            try:
                meta = yaml.safe_load("".join(lines[1:i]))
            except yaml.YAMLError as exc:
                raise FormatError(f"adr: front matter is not valid YAML ({exc})") from exc
            return (meta if isinstance(meta, dict) else {}), "".join(lines[i + 1 :])
    return {}, content


def _read_adr(body: str) -> _Adr:
    title = ""
    preamble: list[_Block] = []
    sections: list[_Section] = []
    for block in _blocks(body):
        if block.kind == "heading" and block.level == 1 and not title:
            title = block.text
        elif block.kind == "heading" and block.level == 2:
            sections.append(_Section(_heading_name(block.text), block.text))
        elif block.kind == "heading" and block.level == 3 and sections:
            sections[-1].subsections.append((block.text, []))
        elif sections and sections[-1].subsections:
            sections[-1].subsections[-1][1].append(block)
        elif sections:
            sections[-1].blocks.append(block)
        else:
            preamble.append(block)
    return _Adr(title, preamble, sections)


def _key_values(blocks: Iterable[_Block]) -> dict[str, str]:
    found: dict[str, str] = {}
    for block in blocks:
        lines = block.items if block.kind == "list" else tuple(block.text.splitlines())
        for line in lines:
            key, sep, value = line.partition(":")
            if sep and key.strip().lower() in ("status", "date") and value.strip():
                found.setdefault(key.strip().lower(), value.strip())
    return found


def _refs(text: str) -> list[str]:
    tokens = [t.strip(".-") for t in _REF_TOKEN.findall(text)]
    tokens = [t for t in tokens if t and t.lower() not in ("adr", "by", "the", "and", "see")]
    numbered = [t for t in tokens if any(ch.isdigit() for ch in t)]
    chosen = numbered or tokens[:1]
    return [adr_key(t) for t in chosen]


def _supersession(clauses: Iterable[str]) -> tuple[list[str], list[str]]:
    supersedes: list[str] = []
    superseded_by: list[str] = []
    for clause in clauses:
        lower = clause.lower()
        if "superseded by" in lower:
            superseded_by += _refs(clause[lower.index("superseded by") + len("superseded by") :])
        elif "supersedes" in lower:
            supersedes += _refs(clause[lower.index("supersedes") + len("supersedes") :])
    return list(dict.fromkeys(supersedes)), list(dict.fromkeys(superseded_by))


def _match_score(a: str, b: str) -> float:
    return max(similarity(a, b), containment(a, b), containment(b, a))


def _chosen_options(options: Sequence[str], outcome_first: str) -> list[int]:
    chosen: list[int] = []
    quoted = [a or b for a, b in _QUOTED.findall(outcome_first)]
    for name in quoted:
        scores = [
            (containment(name, opt), similarity(name, opt), -i) for i, opt in enumerate(options)
        ]
        best = max(scores, default=None)
        if best is not None and best[0] >= 0.5:
            index = -best[2]
            if index not in chosen:
                chosen.append(index)
    if not chosen:
        lower = " ".join(outcome_first.lower().split())
        chosen = [i for i, opt in enumerate(options) if " ".join(opt.lower().split()) in lower]
    return sorted(chosen)


def _assign_pros_cons(
    options: Sequence[str], subsections: Sequence[tuple[str, list[_Block]]]
) -> dict[int, list[_Block]]:
    pairs = sorted(
        (
            (_match_score(opt, title), -oi, -si)
            for oi, opt in enumerate(options)
            for si, (title, _) in enumerate(subsections)
        ),
        reverse=True,
    )
    assigned: dict[int, list[_Block]] = {}
    used: set[int] = set()
    for score, neg_oi, neg_si in pairs:
        oi, si = -neg_oi, -neg_si
        if score < 0.5 or oi in assigned or si in used:
            continue
        assigned[oi] = subsections[si][1]
        used.add(si)
    return assigned


def _arguments(blocks: Iterable[_Block], prefix: str) -> list[str]:
    out: list[str] = []
    for block in blocks:
        for item in block.items:
            if item.lower().startswith(prefix):
                out.append(item)
    return out


def _because(text: str) -> str:
    lower = text.lower()
    if "because" not in lower:
        return ""
    return text[lower.index("because") + len("because") :].strip(" ,:\n")


def _parse_adr(content: str, source_name: str) -> list[IngestUnit]:
    meta, body = _split_front_matter(content)
    adr = _read_adr(body)
    stem = _stem(source_name)
    title = adr.title or _text(meta.get("title")).strip() or stem
    outcome = adr.section(_OUTCOME)
    if outcome is None:
        raise FormatError(f"adr: {source_name}: no 'Decision Outcome' or 'Decision' section")
    outcome_blocks = [b for b in outcome.blocks if b.kind not in ("html", "hr", "heading")]
    outcome_text = "\n".join(b.text for b in outcome_blocks if b.text).strip()
    if not outcome_text:
        raise FormatError(f"adr: {source_name}: the decision section is empty")

    # status, date and supersession
    key_values = _key_values(adr.preamble)
    status_section = adr.section(_STATUS)
    status = (
        _text(meta.get("status")).strip()
        or key_values.get("status", "")
        or ("\n".join(b.text for b in status_section.blocks).strip() if status_section else "")
    )
    clauses = re.split(r"[;,\n]", status)
    links = adr.section(_LINKS)
    if links is not None:
        clauses += [item for b in links.blocks for item in b.items]
    supersedes, superseded_by = _supersession(clauses)
    valid_from = _parse_time(meta.get("date")) or _parse_time(key_values.get("date"))

    # steps
    steps: list[StepDraft] = []
    observations: list[str] = []

    def observe(text: str) -> None:
        steps.append(
            StepDraft(kind=StepKind.OBSERVATION, content=text, cites=(_obs(len(observations)),))
        )
        observations.append(text)

    context = adr.section(_CONTEXT)
    if context is not None:
        blocks = list(context.blocks) + [b for _, bs in context.subsections for b in bs]
        for block in blocks:
            if block.kind not in ("html", "hr", "heading") and block.text:
                observe(_truncate(block.text, MAX_OBSERVATION_CHARS))
    drivers = adr.section(_DRIVERS)
    if drivers is not None:
        items = [item for b in drivers.blocks for item in (b.items or (b.text,)) if item]
        if items:
            observe(_truncate("Decision drivers: " + "; ".join(items), MAX_OBSERVATION_CHARS))

    options_section = adr.section(_OPTIONS)
    options = [item for b in options_section.blocks for item in b.items] if options_section else []
    first_paragraph = outcome_blocks[0].text if outcome_blocks else ""
    chosen = _chosen_options(options, first_paragraph)
    pros_cons_section = adr.section(_PROS_CONS)
    pros_cons = _assign_pros_cons(
        options, pros_cons_section.subsections if pros_cons_section else []
    )
    option_steps: list[int] = []
    for option in options:
        option_steps.append(len(steps))
        steps.append(StepDraft(kind=StepKind.THOUGHT, content=option, status=StepStatus.HYPOTHESIS))
    if chosen:
        chosen_names = " and ".join(f"'{options[i]}'" for i in chosen)
        unexplained: list[int] = []
        for oi, option in enumerate(options):
            blocks = pros_cons.get(oi, [])
            if oi in chosen:
                pros = _arguments(blocks, "good")
                if pros:
                    content = f"Chosen option '{option}': {'; '.join(pros)}"
                    steps.append(
                        StepDraft(kind=StepKind.THOUGHT, content=_truncate(content, MAX_STEP_CHARS))
                    )
                continue
            cons = _arguments(blocks, "bad")
            if not cons:
                unexplained.append(oi)
                continue
            steps.append(
                StepDraft(
                    kind=StepKind.THOUGHT,
                    content=_truncate(
                        f"Rejected option '{option}': {'; '.join(cons)}", MAX_STEP_CHARS
                    ),
                    rejects=(option_steps[oi],),
                )
            )
        if unexplained:
            names = ", ".join(f"'{options[i]}'" for i in unexplained)
            justification = _because(outcome_text) or outcome_text
            content = f"Rejected {names}: the outcome chose {chosen_names} because {justification}"
            steps.append(
                StepDraft(
                    kind=StepKind.THOUGHT,
                    content=_truncate(content, MAX_STEP_CHARS),
                    rejects=tuple(option_steps[i] for i in unexplained),
                )
            )
    steps.append(
        StepDraft(kind=StepKind.CONCLUSION, content=_truncate(outcome_text, MAX_STEP_CHARS))
    )
    produced = ProducedDraft(
        kind=Kind.DECISION,
        content=_truncate(f"{title}: {outcome_text}", MAX_STEP_CHARS),
        status="active",
    )
    known = _CONTEXT | _DRIVERS | _OPTIONS | _OUTCOME | _PROS_CONS | _STATUS | _LINKS
    ignored = [s.title for s in adr.sections if s.name not in known]
    ignored += [f"{outcome.title} / {t}" for t, _ in outcome.subsections]
    return [
        IngestUnit(
            key=stem,
            title=title,
            observations=tuple(observations),
            trace=TraceDraft(task=title, steps=tuple(steps), produced=produced),
            valid_from=valid_from,
            supersedes=tuple(supersedes),
            superseded_by=tuple(superseded_by),
            name=stem,
            extra={
                "format": "adr",
                "adr_key": adr_key(stem),
                "status": status,
                "options": options,
                "chosen": [options[i] for i in chosen],
                "ignored_sections": ignored,
            },
        )
    ]


def _looks_like_adr(content: str) -> bool:
    meta, body = _split_front_matter(content)
    names = {_heading_name(b.text) for b in _blocks(body) if b.kind == "heading"}
    has_decision = bool(names & _OUTCOME)
    return has_decision and (len(names & _ADR_HEADINGS) >= 2 or "status" in meta)


# ---------------------------------------------------------------------------------------------
# text


def _parse_text(content: str, source_name: str) -> list[IngestUnit]:
    chunks = _chunks(content)
    stem = _stem(source_name)
    return [
        IngestUnit(
            key=f"chunk-{i}",
            title=f"{stem} [{i + 1}/{len(chunks)}]",
            observations=(chunk,),
            extra={"format": "text"},
        )
        for i, chunk in enumerate(chunks)
    ]


# ---------------------------------------------------------------------------------------------
# entry points

_PARSERS: dict[str, Callable[[str, str], list[IngestUnit]]] = {
    "swe-agent": _parse_swe_agent,
    "react": _parse_react,
    "openhands": _parse_openhands,
    "adr": _parse_adr,
    "text": _parse_text,
}
_NOT_JSON = object()


def _json_format(data: Any) -> str | None:
    if isinstance(data, dict) and "trajectory" in data:
        return "swe-agent"
    if (
        isinstance(data, list)
        and data
        and all(isinstance(e, dict) for e in data)
        and any("action" in e or "observation" in e for e in data)
    ):
        return "openhands"
    if isinstance(data, dict) and any(
        isinstance(v, str) and _REACT_ANY_TAG.search(v) for v in data.values()
    ):
        return "react"
    return None


def detect_format(content: str, source_name: str) -> str:
    """Guess the format of handed-in material from its name and content.

    Rules, in order: JSON (a ``.json``/``.traj`` name, or content starting with ``{``/``[``)
    is ``swe-agent`` for an object with ``trajectory``, ``openhands`` for a list of event
    objects with ``action``/``observation`` keys, ``react`` for an object of strings holding
    ``Thought 1:``/``Action 1:`` lines, and an error otherwise; text with ``Thought 1:`` or
    ``Action 1:`` lines is ``react``; Markdown with a ``Decision``/``Decision Outcome``
    heading and another ADR heading (or front matter ``status``) is ``adr``; anything else is
    ``text``.

    Args:
        content: the material, as text.
        source_name: its file name (only the extension is used).

    Returns:
        One of `FORMATS`.

    Raises:
        FormatError: empty or binary content, a ``.json``/``.traj`` name with invalid JSON,
            or JSON matching no known format.
    """
    _check_text(content, "auto")
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
                    f"auto: {source_name} is not valid JSON ({exc.msg} at line {exc.lineno})"
                ) from exc
    if data is not _NOT_JSON:
        fmt = _json_format(data)
        if fmt is None:
            raise FormatError(
                f"auto: the JSON of {source_name} matches no known format (expected a SWE-agent "
                "object with 'trajectory', an OpenHands event list or ReAct prompt strings)"
            )
        return fmt
    if _REACT_ANY_TAG.search(content):
        return "react"
    if _looks_like_adr(content):
        return "adr"
    return "text"


def parse(content: str, fmt: str, source_name: str) -> list[IngestUnit]:
    """Parse handed-in material into ingest units.

    Args:
        content: the material, as text (decoded by the caller).
        fmt: ``auto`` or one of `FORMATS`.
        source_name: the file name the material came from; names units and ADRs.

    Returns:
        The units in source order: one per file for ``swe-agent``, ``openhands`` and ``adr``,
        one per episode for ``react``, one per chunk for ``text``.

    Raises:
        FormatError: unknown format, empty or binary content, or content that is malformed
            for its format (the message names the format and the problem).
    """
    if fmt == "auto":
        fmt = detect_format(content, source_name)
    parser = _PARSERS.get(fmt)
    if parser is None:
        raise FormatError(f"unknown format {fmt!r}; expected auto or one of {', '.join(FORMATS)}")
    _check_text(content, fmt)
    return parser(content, source_name)
