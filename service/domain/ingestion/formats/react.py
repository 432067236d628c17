"""The ``react`` format: ReAct transcripts (text or a JSON object of prompts), one unit per episode."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from service.domain.ingestion.formats.common import (
    MAX_STEP_CHARS,
    FormatError,
    load_json,
    obs,
    source_stem,
    truncate,
)
from service.domain.ingestion.formats.markdown import chunk_text
from service.domain.ingestion.formats.retraction import mark_retractions
from service.domain.ingestion.formats.session import trim_observation
from service.domain.ingestion.formats.submission import gives_up
from service.domain.models import (
    IngestUnit,
    Kind,
    ProducedDraft,
    StepDraft,
    StepKind,
    TraceDraft,
)

#: A step line: ``Thought 1:`` as the ReAct paper prints it, or unnumbered, in any case and in
#: bold (``Thought:``, ``action:``, ``**Observation:**``), with the LangChain-style
#: ``Action Input:`` and ``Final Answer:``. Groups: tag, number (optional), text.
_REACT_TAG = re.compile(
    r"^(?:\*\*)?(thought|action[ _]input|action|observation|final[ _]answer)(?:[ \t]+(\d+))?"
    r"[ \t]*(?:\*\*)?:(?:\*\*)?[ \t]?(.*)$",
    re.IGNORECASE,
)
#: A numbered step (``Thought 1:``/``Action 1:``): a ReAct transcript by itself.
REACT_ANY_TAG = re.compile(r"^(?:Thought|Action) \d+:", re.MULTILINE)
_REACT_LINE = re.compile(_REACT_TAG.pattern, re.IGNORECASE | re.MULTILINE)
_REACT_START = re.compile(
    r"^\s*(?:(\d+)\s+)?(?:\*\*)?(Question|Claim|Task)(?:\*\*)?:(?:\*\*)?\s*(.*)$", re.IGNORECASE
)
_REACT_FINISH = re.compile(r"^Finish\[(.*)\]$", re.DOTALL | re.IGNORECASE)
_REACT_SEPARATOR = re.compile(r"^-{3,}\s*$")
#: Agent-framework banners around a run (LangChain's ``> Entering new AgentExecutor chain...``).
_REACT_NOISE = re.compile(r"^\s*> (?:Entering new .*chain|Finished chain)", re.IGNORECASE)
_REACT_DEBUG = "ohh..."
#: The environment's end-of-episode marker after the answer (``Episode finished, reward = 1``):
#: no evidence, kept in ``extra["end_marker"]`` instead of as an observation.
_REACT_END = re.compile(r"^episode (?:finished|ended|done|over)\b", re.IGNORECASE)


def _tag_name(tag: re.Match[str]) -> str:
    """A step tag's name, lower case, one space: ``Action_Input``, ``ACTION  INPUT`` -> action input."""
    return " ".join(tag.group(1).lower().replace("_", " ").split())


def looks_like_react(text: str) -> bool:
    """Return True when text holds ReAct steps.

    Either a numbered ``Thought n:``/``Action n:`` line, or unnumbered step lines (`_REACT_TAG`,
    any case, bold allowed) with a ``Thought:``, an ``Action:`` or ``Final Answer:``, and what
    only an agent loop writes: an ``Observation:``, ``Action Input:`` or ``Final Answer:``
    (trial 14: an ADR whose consequences said "Action: ..." and "Thought: ..." was read as
    ReAct, its decision lost).
    """
    if REACT_ANY_TAG.search(text):
        return True
    tags = {_tag_name(m) for m in _REACT_LINE.finditer(text)}
    return (
        "thought" in tags
        and bool(tags & {"action", "final answer"})
        and bool(tags & {"observation", "action input", "final answer"})
    )


@dataclass
class _Record:
    tag: str  # thought, action, observation or final answer (lower case)
    number: int | None
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
            label = start.group(2).capitalize()
            episodes.append(_Episode(label, start.group(3).strip(), start.group(1)))
        elif episodes:
            episodes[-1].lines.append(line)
    if not episodes and looks_like_react(text):
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
        name = _tag_name(tag) if tag else ""
        if in_debug:
            if name == "thought":
                in_debug = False
            else:
                skipped += 1
                continue
        if tag and name == "action input" and records and records[-1].tag == "action":
            last = records[-1]
            if len(last.lines) == 1 and tag.group(3).strip():
                last.lines[0] = f"{last.lines[0].rstrip()}: {tag.group(3).strip()}"
            else:
                last.lines.append(tag.group(3))
        elif tag:
            number = int(tag.group(2)) if tag.group(2) else None
            kind = "action" if name == "action input" else name
            records.append(_Record(kind, number, [tag.group(3)]))
        elif line.startswith(_REACT_DEBUG):
            in_debug = True
            skipped += 1
        elif _REACT_SEPARATOR.match(line) or _REACT_NOISE.match(line):
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
            observations=tuple(chunk_text(body)),
            extra={"format": "react", "note": "episode without numbered steps", **result},
        )
    steps: list[StepDraft] = []
    observations: list[str] = []
    answer: str | None = None
    end_marker: str | None = None
    trimmed = 0
    for pos, record in enumerate(records):
        text = record.text
        if record.tag == "thought":
            steps.append(StepDraft(kind=StepKind.THOUGHT, content=text or "(empty thought)"))
        elif record.tag == "final answer":
            answer = text
            steps.append(StepDraft(kind=StepKind.CONCLUSION, content=text or "(empty answer)"))
        elif record.tag == "action":
            finish = _REACT_FINISH.match(text)
            following = records[pos + 1] if pos + 1 < len(records) else None
            refused = (
                following is not None
                and following.tag == "observation"
                and following.text.startswith("Invalid action")
            )
            if finish and not refused:
                answer = finish.group(1).strip()
                steps.append(
                    StepDraft(kind=StepKind.CONCLUSION, content=answer or "(empty answer)")
                )
            else:
                trimmed += len(text) > MAX_STEP_CHARS
                steps.append(
                    StepDraft(
                        kind=StepKind.ACTION,
                        content=truncate(text, MAX_STEP_CHARS) or "(empty action)",
                    )
                )
        elif answer is not None and _REACT_END.match(text):
            end_marker = text
        else:
            observation, cut = trim_observation(text)
            observation = observation or "(empty observation)"
            trimmed += cut
            steps.append(
                StepDraft(
                    kind=StepKind.OBSERVATION,
                    content=observation,
                    cites=(obs(len(observations)),),
                )
            )
            observations.append(observation)
    if answer is not None and gives_up(answer):
        produced = ProducedDraft(
            kind=Kind.OBSERVATION,
            content=f"{episode.label}: {task}\nNo answer: the agent gave up ({answer})",
        )
    elif answer is not None:
        produced = ProducedDraft(
            kind=Kind.DECISION,
            content=f"{episode.label}: {task}\nAnswer: {answer}",
            status="active",
        )
    else:
        numbered = {r.number for r in records if r.number is not None}
        rounds = len(numbered) or sum(r.tag == "thought" for r in records)
        unit = "numbered round" if numbered else "round"
        produced = ProducedDraft(
            kind=Kind.OBSERVATION,
            content=(
                f"{episode.label}: {task}\nNo answer: the episode ended without Finish "
                f"after {rounds} {unit}{'' if rounds == 1 else 's'}."
            ),
        )
    extra: dict[str, Any] = {"format": "react", "answer": answer, "trimmed": trimmed, **result}
    if end_marker is not None:
        extra["end_marker"] = end_marker
    if episode.number is not None:
        extra["question_idx_line"] = episode.number
    if skipped:
        extra["skipped_debug_lines"] = skipped
    return IngestUnit(
        key=key,
        title=f"{episode.label}: {task[:100]}",
        observations=tuple(observations),
        trace=TraceDraft(task=task, steps=mark_retractions(steps), produced=produced),
        extra=extra,
    )


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse ReAct transcripts into one unit per episode.

    Input: ``react`` (ReAct transcripts: plain text such as the FEVER notebook output, or a JSON
    object of prompt strings such as ``prompts_naive.json``)

    An episode starts at a ``Question:``, ``Claim:`` or ``Task:`` line (optionally preceded by
    a number); one unit per episode. Every ``Thought n:``, ``Action n:`` and ``Observation n:``
    line is one step (``thought``, ``action``, ``observation`` citing ``obs:<k>``); the number
    is optional, case is ignored and the tag may be bold (``**Thought:**``). An ``Action
    Input:`` line joins the action before it (``Search: <input>``, no step of its own); untagged
    lines continue the previous step, so ``len(steps)`` equals the number of tagged lines other
    than ``Action Input:``, less the end marker below. Long observations keep their head and
    tail (`trim_observation`), counted in ``extra["trimmed"]`` with actions cut to
    `MAX_STEP_CHARS`. An ``Action n: Finish[x]`` whose next observation is not ``Invalid
    action...``, or a ``Final Answer: x`` line, is the ``conclusion`` step, its content the
    answer ``x`` alone, and makes the produced ``decision`` (two lines: ``"<Claim|Question|
    Task>: <task>"`` and ``"Answer: x"``), unless the answer says there is none (`gives_up`:
    "I cannot determine the cause" is an ``observation``); an episode without one produces an ``observation``
    saying so, with the number of its rounds (numbered, else its thoughts) and no conclusion
    step. An observation after the answer that only ends the episode (``Episode finished,
    reward = 1``) is no step: it is kept in ``extra["end_marker"]``.
    Agent-framework banners (``> Entering new AgentExecutor chain...``, ``> Finished chain.``)
    are skipped. Notebook noise is skipped: a line starting with ``ohh...`` opens a
    debug block (the notebook's retry print) that runs to the next ``Thought n:`` line; a
    ``{'steps': ...}`` result line is parsed into ``unit.extra`` and ends the episode's steps;
    lines of dashes are separators. In JSON input, keys are read in order and each episode is
    keyed ``<key>-<n>``; a key whose prompt has no numbered step (e.g. ``cotqa_*``) becomes
    ``text`` units keyed ``<key>-text-<i>``. Text input keys episodes ``episode-<n>``
    (1-based).

    Args:
        content: a transcript, or a JSON object of prompt strings.
        source_name: its file name (in the units' titles).

    Returns:
        One unit per episode, in order (``text`` units for prompts without numbered steps).

    Raises:
        FormatError: invalid JSON, a non-string value, or no episode with numbered steps.
    """
    stripped = content.lstrip()
    source = source_stem(source_name)
    if stripped.startswith(("{", "[")):
        data = load_json(content, "react")
        if not isinstance(data, dict):
            raise FormatError("react: JSON input must be an object of prompt strings")
        units: list[IngestUnit] = []
        for name, value in data.items():
            if not isinstance(value, str):
                raise FormatError(f"react: value of {name!r} is not a string")
            if looks_like_react(value):
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
                    for i, chunk in enumerate(chunk_text(value))
                )
        if not any(u.trace for u in units):
            raise FormatError("react: no value holds 'Thought 1:'/'Action 1:' steps")
        return units
    episodes = _react_episodes(content)
    if not episodes:
        raise FormatError(
            "react: no episode found (expected 'Question:' or 'Claim:' lines followed by "
            "'Thought 1:'/'Action 1:' or 'Thought:'/'Action:' lines)"
        )
    units = [_react_unit(ep, f"episode-{n}", source) for n, ep in enumerate(episodes, 1)]
    if not any(u.trace for u in units):
        raise FormatError("react: no episode has 'Thought n:'/'Action n:' steps")
    return units
