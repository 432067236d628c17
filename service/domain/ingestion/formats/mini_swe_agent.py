"""mini-SWE-agent trajectories (``*.traj.json``), read as the ``swe-agent`` format."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from service.domain.ingestion.formats.common import (
    MAX_STEP_CHARS,
    MAX_TASK_CHARS,
    FormatError,
    as_text,
    obs,
    source_stem,
    tagged,
    truncate,
)
from service.domain.ingestion.formats.retraction import mark_retractions
from service.domain.ingestion.formats.session import trim_observation
from service.domain.ingestion.formats.submission import patch_observation, submission_conclusion
from service.domain.models import IngestUnit, StepDraft, StepKind, TraceDraft

#: What a mini-SWE-agent trajectory's ``trajectory_format`` starts with (``mini-swe-agent-1``,
#: ``mini-swe-agent-1.1`` of v2).
TRAJECTORY_FORMAT = "mini-swe-agent"
#: Opening fence of an action block: ``bash`` (v1) or ``mswea_bash_command`` (v2 text models).
_ACTION_FENCE = re.compile(r"```(?:bash|mswea_bash_command)[ \t]*\r?\n")
#: Tags of the instance templates that hold the task (``<pr_description>`` of the SWE-bench one).
_TASK_TAGS = ("pr_description", "issue_description", "issue", "problem_statement", "task")
#: Where the default templates' instructions begin after the task.
_INSTRUCTIONS = ("\n\nYou can execute bash commands", "<instructions>")
#: An observation's wrapper: ``<exception>...</exception>`` (v2), then ``<returncode>n``.
_RETURNCODE = re.compile(
    r"(?:<exception>([^<]*)</exception>\s*)?<returncode>(-?\d+)</returncode>\s*"
)


@dataclass
class _Round:
    """One model response: its thought, its action and the outputs that answered it."""

    thought: str
    action: str
    outputs: list[str] = field(default_factory=list)
    cut: bool = False  # the action was cut to `MAX_STEP_CHARS`


def is_mini_trajectory(data: Any) -> bool:
    """True for a mini-SWE-agent trajectory: an object with ``messages`` and no ``trajectory``.

    ``trajectory_format`` must start with ``mini-swe-agent``; files saved before it was
    written (mini-SWE-agent 0.x) are known by ``info.exit_status`` and ``info.submission`` and
    messages that all have a ``role``. Messages bearing a run's marks (`is_bare_messages`)
    are one too, alone as a JSON list or as the ``messages`` of an object without ``info``.
    """
    if is_bare_messages(data):
        return True
    if not isinstance(data, dict) or "trajectory" in data:
        return False
    messages = data.get("messages")
    if not isinstance(messages, list):
        return False
    fmt = data.get("trajectory_format")
    if isinstance(fmt, str):
        return fmt.startswith(TRAJECTORY_FORMAT)
    info = data.get("info")
    return (
        isinstance(info, dict)
        and "exit_status" in info
        and "submission" in info
        and bool(messages)
        and all(isinstance(m, dict) and "role" in m for m in messages)
    ) or ("info" not in data and is_bare_messages(messages))


def is_bare_messages(data: Any) -> bool:
    """True for a mini-SWE-agent run's messages saved alone: a JSON list of ``role`` objects.

    Chat messages are common JSON, so the run's own marks decide: an ``assistant`` message
    with an action block (```` ```bash ````, ```` ```mswea_bash_command ````) and a ``user``
    or ``tool`` message with a ``<returncode>`` (the observation's wrapper).
    """
    if not isinstance(data, list) or not data:
        return False
    if not all(isinstance(m, dict) and "role" in m for m in data):
        return False
    texts = [(m["role"], _text(m.get("content"))) for m in data]
    return any(r == "assistant" and _ACTION_FENCE.search(t) for r, t in texts) and any(
        r in ("user", "tool") and "<returncode>" in t for r, t in texts
    )


#: What a mini-SWE-agent response echoes to submit: the output after it is the submission.
_SUBMIT_MARKS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")


def _bare_info(messages: list[Any]) -> dict[str, str]:
    """Return the ``info`` a run's messages alone imply: submitted, and what, or nothing known.

    The last response echoing a submit mark submitted the output that answered it.
    """
    if not all(isinstance(m, dict) for m in messages):
        return {}
    responses = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if not responses or not any(
        k in _text(messages[responses[-1]].get("content")) for k in _SUBMIT_MARKS
    ):
        return {}
    answer = messages[responses[-1] + 1 : responses[-1] + 2]
    output = _observation_text(_text(answer[0].get("content"))) if answer else ""
    lines = output.splitlines()
    while lines and lines[0].strip() in _SUBMIT_MARKS:  # the mark the response echoed
        lines.pop(0)
    return {"exit_status": "Submitted", "submission": "\n".join(lines).strip()}


def _text(value: Any) -> str:
    """Text of a message content: a string, a ``{type: text, text}`` part or a list of them."""
    return as_text([value] if isinstance(value, dict) else value).strip()


def _blocks(text: str) -> tuple[list[str], str]:
    """Return the action blocks of a response and its text around them (the thought).

    Each fence is closed by the next line that starts with three backticks; an unclosed fence
    is no block (and nothing after it is searched again), so the scan is linear.
    """
    commands: list[str] = []
    rest: list[str] = []
    pos = 0
    for opening in _ACTION_FENCE.finditer(text):
        if opening.start() < pos:
            continue
        close = text.find("\n```", opening.end() - 1)
        if close < 0:
            break
        rest.append(text[pos : opening.start()])
        commands.append(text[opening.end() : close].strip())
        pos = close + 4
    rest.append(text[pos:])
    return commands, "\n".join(p.strip() for p in rest if p.strip())


def _tool_commands(message: dict[str, Any]) -> list[str]:
    """The commands of a response: ``extra.actions`` (v2), else its ``tool_calls`` arguments."""
    extra = message.get("extra")
    actions = extra.get("actions") if isinstance(extra, dict) else None
    if isinstance(actions, list) and actions:
        return [_text(a.get("command")) if isinstance(a, dict) else _text(a) for a in actions]
    commands: list[str] = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        try:
            args = json.loads(arguments) if isinstance(arguments, str) else arguments
        except (json.JSONDecodeError, RecursionError):
            args = arguments
        command = args.get("command") if isinstance(args, dict) else args
        commands.append(_text(command))
    return commands


def _round(message: dict[str, Any], text: str) -> _Round:
    """Read one model response: ``THOUGHT`` text and its one action."""
    blocks, thought = _blocks(text)
    thought = thought.removeprefix("THOUGHT:").strip()
    thought = thought or _text(message.get("reasoning_content")) or "(no thought recorded)"
    commands = [c for c in _tool_commands(message) if c]
    if commands or len(blocks) == 1:
        action = "\n".join(commands or blocks).strip() or "(empty action)"
    elif blocks:
        action = f"(no action run: {len(blocks)} bash blocks, expected one)"
    else:
        action = "(no action run: no bash block)"
    return _Round(thought, truncate(action, MAX_STEP_CHARS), cut=len(action) > MAX_STEP_CHARS)


def _observation_text(text: str) -> str:
    """An observation without its ``<returncode>``/``<output>`` wrapper.

    A non-zero return code is kept as a first line ``(exit code n)``, an exception as
    ``(exception: ...)``; other wrappers (the long output's ``<warning>``, ``<output_head>``...)
    are kept as they are.
    """
    wrapper = _RETURNCODE.match(text)
    if wrapper is None:
        return text
    body = text[wrapper.end() :].rstrip()
    if body.startswith("<output>") and body.endswith("</output>"):
        body = body[len("<output>") : -len("</output>")].strip("\n")
    notes = [f"(exception: {wrapper.group(1).strip()})"] if wrapper.group(1) else []
    notes += [f"(exit code {wrapper.group(2)})"] if wrapper.group(2) != "0" else []
    return "\n".join([*notes, body]).strip()


def _task(text: str, stem: str) -> str:
    """The task of the first user message: inside a `_TASK_TAGS` tag, else before instructions."""
    inner = tagged(text, _TASK_TAGS)
    inner = (inner or "").removeprefix("Consider the following PR description:").strip()
    if inner:
        return truncate(inner, MAX_TASK_CHARS)
    for marker in _INSTRUCTIONS:
        text = text.split(marker, 1)[0]
    text = text.strip().removeprefix("Please solve this issue:").strip()
    return truncate(text, MAX_TASK_CHARS) if text else f"mini-SWE-agent run {stem}"


@dataclass
class _Run:
    """A trajectory's messages read: the task, the rounds, how the run ended."""

    task: str = ""
    rounds: list[_Round] = field(default_factory=list)
    exit_extra: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)  # what the harness said when it stopped


def _rounds(messages: list[Any]) -> _Run:
    """Read the messages: task, rounds, the last exit message's ``extra`` and its notices.

    An ``exit`` message answering a round nothing else answered is that round's output (the
    submission, or the error); otherwise it, and a ``user`` message carrying
    ``extra.exit_status`` (v2: "Limits exceeded: step limit of 6 reached."), is a notice of
    its own, no tool's output.
    """
    run = _Run()
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise FormatError(f"swe-agent: mini-swe-agent messages[{i}] is not an object")
        role = message.get("role")
        extra = message.get("extra")
        extra = extra if isinstance(extra, dict) else {}
        text = _text(message.get("content"))
        rejected = extra.get("model_response") if role == "user" else None
        if role == "assistant":
            run.rounds.append(_round(message, text))
        elif isinstance(rejected, str):  # v2: a format error keeps the response it rejected
            run.rounds.append(_round({}, rejected))
            run.rounds[-1].outputs.append(text)
        elif role == "exit" or (role == "user" and "exit_status" in extra and run.rounds):
            run.exit_extra = extra
            if role == "exit" and run.rounds and not run.rounds[-1].outputs and text:
                run.rounds[-1].outputs.append(text)  # the submission, or the error
            elif text:
                run.notices.append(text)
        elif role in ("user", "tool") and run.rounds:
            run.rounds[-1].outputs.append(_observation_text(text))
        elif role == "user" and not run.task:
            run.task = text
    return run


def parse_data(data: dict[str, Any] | list[Any], source_name: str) -> list[IngestUnit]:
    """Parse a decoded mini-SWE-agent trajectory (`is_mini_trajectory`) into one unit.

    Input: ``{info{exit_status, submission, model_stats}, messages[], trajectory_format}``, or
    the ``messages`` list alone (no ``info``: a last response echoing the submit mark
    submitted the output that answered it, `_bare_info`); a
    message's ``content`` is a string or a list of ``{type: text, text}`` parts.

    The shape is `swe_agent.parse`'s. The first ``user`` message before any response is the task
    (inside ``<pr_description>``/``<issue_description>``/``<issue>``/``<problem_statement>``/
    ``<task>``, else after ``Please solve this issue:`` and before the instructions), cut to
    `MAX_TASK_CHARS`; ``system`` messages are skipped. Each ``assistant`` message is a round of
    three steps: a ``thought`` (its text outside the action block, ``THOUGHT:`` dropped), an
    ``action`` (its ```` ```bash ```` or ```` ```mswea_bash_command ```` block, or the commands of
    ``extra.actions``/``tool_calls``; a response with no single block says so) and an
    ``observation`` citing ``obs:<i>``: the ``user``/``tool`` messages up to the next response,
    without their ``<returncode>``/``<output>`` wrapper (a non-zero code kept as ``(exit code
    n)``), or the run's ``exit`` message (its submission or error) when nothing else answered;
    long output keeps its head and tail (`trim_observation`), counted in ``extra["trimmed"]``.
    A v2 format-error message (``extra.model_response``) is a round of the rejected response,
    observed by the error. What the harness said when it stopped the run (an ``exit`` message
    after the round's output, a ``user`` message with ``extra.exit_status`` such as "Limits
    exceeded: step limit of 6 reached.") is an ``observation`` step of its own after the rounds
    (not when it only repeats the exit status or the submission), and a submitted patch no
    observation shows one more (`patch_observation`). So ``len(steps) == 3 * rounds + 1 +
    notices (+ 1)`` and ``len(observations) == rounds + notices (+ 1)``. The conclusion and
    produced memory are `submission_conclusion`'s, from ``info.submission`` and
    ``info.exit_status`` (else the ``exit`` message's ``extra``) and the rounds' thoughts.

    Args:
        data: the decoded ``.traj.json`` object.
        source_name: its file name; the stem (without ``.traj``) keys and names the unit.

    Returns:
        One unit; ``extra`` holds ``format`` (``swe-agent``), ``agent`` (``mini-swe-agent``),
        ``trajectory_format``, ``exit_status``, ``rounds`` and ``trimmed``.

    Raises:
        FormatError: ``messages`` not a list, a message not an object, ``info`` not an object,
            or no assistant message.
    """
    if isinstance(data, list):  # the messages alone (`is_bare_messages`)
        data = {"messages": data}
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise FormatError("swe-agent: mini-swe-agent 'messages' must be a list")
    info = data["info"] if "info" in data else _bare_info(messages)
    info = info or {}
    if not isinstance(info, dict):
        raise FormatError("swe-agent: 'info' must be an object")
    run = _rounds(messages)
    rounds, exit_extra = run.rounds, run.exit_extra
    if not rounds:
        raise FormatError("swe-agent: mini-swe-agent trajectory has no assistant message")
    stem = source_stem(source_name).removesuffix(".traj") or "source"
    exit_status = (
        as_text(info.get("exit_status")).strip()
        or as_text(exit_extra.get("exit_status")).strip()
        or "unknown"
    )
    submission = (
        as_text(info.get("submission")).strip() or as_text(exit_extra.get("submission")).strip()
    )
    steps: list[StepDraft] = []
    observations: list[str] = []
    trimmed = 0

    def observe(text: str) -> None:
        nonlocal trimmed
        kept, cut = trim_observation(text)
        kept, trimmed = kept or "(no output)", trimmed + cut
        steps.append(
            StepDraft(kind=StepKind.OBSERVATION, content=kept, cites=(obs(len(observations)),))
        )
        observations.append(kept)

    for turn in rounds:
        steps.append(StepDraft(kind=StepKind.THOUGHT, content=turn.thought))
        steps.append(StepDraft(kind=StepKind.ACTION, content=turn.action))
        trimmed += turn.cut
        observe("\n\n".join(o for o in turn.outputs if o) or "(no output)")
    for notice in run.notices:
        if notice not in (submission, exit_status):
            observe(notice)
    patch = patch_observation(submission, exit_status, observations)
    if patch:
        observe(patch)
    conclusion, produced = submission_conclusion(
        submission, exit_status, [r.thought for r in rounds]
    )
    steps.append(StepDraft(kind=StepKind.CONCLUSION, content=conclusion))
    task = _task(run.task, stem)
    return [
        IngestUnit(
            key=stem,
            title=f"mini-SWE-agent: {task.splitlines()[0][:100]}",
            observations=tuple(observations),
            trace=TraceDraft(task=task, steps=mark_retractions(steps), produced=produced),
            name=stem,
            extra={
                "format": "swe-agent",
                "agent": "mini-swe-agent",
                "trajectory_format": as_text(data.get("trajectory_format")) or None,
                "exit_status": exit_status,
                "rounds": len(rounds),
                "trimmed": trimmed,
            },
        )
    ]
