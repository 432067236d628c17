"""The ``swe-agent`` format: a SWE-agent ``.traj`` JSON file becomes one unit."""

from __future__ import annotations

from typing import Any

from service.domain.ingestion.formats import mini_swe_agent
from service.domain.ingestion.formats.common import (
    MAX_STEP_CHARS,
    MAX_TASK_CHARS,
    FormatError,
    as_text,
    load_json,
    obs,
    source_stem,
    tagged,
    truncate,
)
from service.domain.ingestion.formats.retraction import mark_retractions
from service.domain.ingestion.formats.session import trim_observation
from service.domain.ingestion.formats.submission import patch_observation, submission_conclusion
from service.domain.models import (
    IngestUnit,
    StepDraft,
    StepKind,
    TraceDraft,
)

#: Where SWE-agent 1.x instance templates put the issue (``<pr_description>...``).
_ISSUE_TAGS = ("pr_description", "issue_description", "issue", "problem_statement")


def _swe_task(data: dict[str, Any], stem: str) -> str:
    history = data.get("history")
    if isinstance(history, list):
        for message in history:
            if not isinstance(message, dict) or message.get("role") != "user":
                continue
            if message.get("is_demo"):
                continue
            text = as_text(message.get("content"))
            issue = tagged(text, _ISSUE_TAGS)
            if issue is not None:
                return truncate(issue, MAX_TASK_CHARS)
            if "ISSUE:" in text:
                text = text.split("ISSUE:", 1)[1]
            text = text.split("INSTRUCTIONS:", 1)[0].strip()
            if text:
                return truncate(text, MAX_TASK_CHARS)
    return f"SWE-agent run {stem}"


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse a SWE-agent trajectory into one unit.

    Input: ``swe-agent`` (SWE-agent ``.traj`` JSON: ``{trajectory[], history[], info{exit_status,
    submission}}``)

    One unit per file. Each ``trajectory[i]`` gives three steps: a ``thought`` step (its
    ``thought``), an ``action`` step (its ``action``) and an ``observation`` step citing
    ``obs:<i>`` (its ``observation``); then, when ``info.submission`` is a patch no observation
    shows (an autosubmitted one: `patch_observation`), an ``observation`` step of it; then one
    ``conclusion`` step. So ``len(steps) == 3 * len(trajectory) + 1`` (``+ 2`` with the patch
    observation) and ``len(observations)`` is one per entry (plus the patch). Long output keeps
    its head and tail (`trim_observation`, where a test's summary and error are), counted in
    ``extra["trimmed"]`` with the actions cut to `MAX_STEP_CHARS`; an empty one becomes
    ``"(no output)"``. The conclusion and produced memory are `submission_conclusion`'s, from
    ``info.submission``, ``info.exit_status`` and the thoughts: a submitted patch is a
    ``decision`` naming the changed files and the agent's last explanation, an autosubmitted
    one (``submitted (exit_cost)``) or none an ``observation``. The task is the issue text of
    the first non-demonstration user message of ``history`` (inside SWE-agent 1.x's
    ``<pr_description>``/``<issue_description>``/``<issue>`` tags, else between ``ISSUE:`` and
    ``INSTRUCTIONS:``), cut to `MAX_TASK_CHARS`.

    A mini-SWE-agent trajectory (``{info, messages[], trajectory_format: "mini-swe-agent-1"}``,
    `mini_swe_agent.is_mini_trajectory`) is read by `mini_swe_agent.parse_data` into the same
    shape.

    Args:
        content: the ``.traj`` (or mini-SWE-agent ``.traj.json``) file's JSON text.
        source_name: its file name; the stem keys and names the unit.

    Returns:
        One unit: the trajectory as a trace, its observations; ``extra`` holds the exit status
        and ``trimmed``.

    Raises:
        FormatError: not a JSON object, or ``trajectory`` missing, empty or malformed (for
            mini-SWE-agent: ``messages`` malformed or without an assistant message).
    """
    data = load_json(content, "swe-agent")
    if mini_swe_agent.is_mini_trajectory(data):
        return mini_swe_agent.parse_data(data, source_name)
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

    stem = source_stem(source_name)
    steps: list[StepDraft] = []
    observations: list[str] = []
    thoughts: list[str] = []
    trimmed = 0
    for i, entry in enumerate(trajectory):
        if not isinstance(entry, dict):
            raise FormatError(f"swe-agent: trajectory[{i}] is not an object")
        if "action" not in entry:
            raise FormatError(f"swe-agent: trajectory[{i}] has no 'action'")
        thought = as_text(entry.get("thought")).strip() or "(no thought recorded)"
        action = as_text(entry.get("action")).strip() or "(empty action)"
        observation, cut = trim_observation(as_text(entry.get("observation")))
        observation = observation or "(no output)"
        trimmed += cut + (len(action) > MAX_STEP_CHARS)
        observations.append(observation)
        steps.append(StepDraft(kind=StepKind.THOUGHT, content=thought))
        steps.append(StepDraft(kind=StepKind.ACTION, content=truncate(action, MAX_STEP_CHARS)))
        steps.append(StepDraft(kind=StepKind.OBSERVATION, content=observation, cites=(obs(i),)))
        thoughts.append(thought)

    exit_status = as_text(info.get("exit_status")).strip() or "unknown"
    submission = as_text(info.get("submission")).strip()
    patch, cut = trim_observation(patch_observation(submission, exit_status, observations))
    if patch:
        trimmed += cut
        steps.append(
            StepDraft(kind=StepKind.OBSERVATION, content=patch, cites=(obs(len(observations)),))
        )
        observations.append(patch)
    conclusion, produced = submission_conclusion(submission, exit_status, thoughts)
    steps.append(StepDraft(kind=StepKind.CONCLUSION, content=conclusion))
    task = _swe_task(data, stem)
    return [
        IngestUnit(
            key=stem,
            title=f"SWE-agent: {task.splitlines()[0][:100]}",
            observations=tuple(observations),
            trace=TraceDraft(task=task, steps=mark_retractions(steps), produced=produced),
            name=stem,
            extra={
                "format": "swe-agent",
                "exit_status": exit_status,
                "trajectory_entries": len(trajectory),
                "trimmed": trimmed,
            },
        )
    ]
