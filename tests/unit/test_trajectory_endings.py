"""How agent trajectories end (trial 23): give-ups, submissions in words, trimmed tool output.

Synthetic inputs, one per finding: an OpenHands ``finish`` with ``task_completed: false``, long
tool output cut to head and tail in every trajectory format, a mini-SWE-agent run that
submitted nothing, a patch decision in words and an autosubmitted run, V1's finish echo, and
ReAct/mini-SWE-agent end markers.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.domain.ingestion.formats import parse_document
from service.domain.models import IngestUnit, Kind

_DIFF = "diff --git a/pkg/cache.py b/pkg/cache.py\n-    del d[k]\n+    d.pop(k, None)\n"
#: Tool output whose verdict is at its end: a FAILED line and the pytest summary.
_LONG = "".join(f"tests/test_x.py::test_{i} PASSED\n" for i in range(300))
_LONG += "FAILED tests/test_x.py::test_race - KeyError\n==== 1 failed, 300 passed in 9.1s ===="


def _units(content: Any, name: str) -> list[IngestUnit]:
    text = content if isinstance(content, str) else json.dumps(content)
    return parse_document(text, "auto", name).units


def _steps(unit: IngestUnit) -> list[tuple[str, str]]:
    assert unit.trace is not None
    return [(str(s.kind), s.content) for s in unit.trace.steps]


def _produced(unit: IngestUnit) -> tuple[str, str | None, str]:
    assert unit.trace is not None and unit.trace.produced is not None
    produced = unit.trace.produced
    return str(produced.kind), produced.status, produced.content


# --- 1. OpenHands finish with task_completed false ----------------------------------------------

_GIVE_UP = (
    "I could not complete the task: the sandbox has no network, so `pydantic-settings` cannot "
    "be installed. No files were changed."
)


def _openhands(completed: Any) -> list[dict[str, Any]]:
    finish_args: dict[str, Any] = {"final_thought": _GIVE_UP, "outputs": {}}
    if completed is not None:
        finish_args["task_completed"] = completed
    return [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "Upgrade pydantic"}},
        {
            "id": 1,
            "source": "agent",
            "action": "run",
            "args": {"command": "pip install 'pydantic>=2'", "thought": "Install it."},
        },
        {
            "id": 2,
            "source": "agent",
            "observation": "run",
            "cause": 1,
            "content": "ERROR: network unreachable",
        },
        {"id": 3, "source": "agent", "action": "finish", "args": finish_args},
    ]


@pytest.mark.parametrize("completed", ["false", False, "FALSE"])
def test_openhands_finish_not_completed_is_no_decision(completed: Any) -> None:
    (unit,) = _units(_openhands(completed), "events.json")
    assert _steps(unit)[-1] == ("conclusion", _GIVE_UP)
    assert _produced(unit) == ("observation", None, _GIVE_UP)
    assert unit.extra["task_completed"] == "false"


@pytest.mark.parametrize("completed", ["true", True, "partial", None])
def test_openhands_finish_completed_or_unsaid_is_a_decision(completed: Any) -> None:
    (unit,) = _units(_openhands(completed), "events.json")
    assert _produced(unit) == ("decision", "active", _GIVE_UP)


def _v1_finish(extra: dict[str, Any]) -> list[dict[str, Any]]:
    message = "export_csv now passes lineterminator='\\n', so files use LF line endings."
    return [
        {
            "kind": "MessageEvent",
            "id": "e1",
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "Fix CSV"}]},
        },
        {
            "kind": "ActionEvent",
            "id": "e2",
            "source": "agent",
            "thought": [{"type": "text", "text": "Look at the writer."}],
            "action": {"kind": "ExecuteBashAction", "command": "grep -n writer export.py"},
            "tool_name": "execute_bash",
        },
        {
            "kind": "ObservationEvent",
            "id": "e3",
            "observation": {"kind": "ExecuteBashObservation", "output": "12: csv.writer(f)"},
            "action_id": "e2",
            "tool_name": "execute_bash",
        },
        {
            "kind": "ActionEvent",
            "id": "e4",
            "source": "agent",
            "thought": [],
            "action": {"kind": "FinishAction", "message": message, **extra},
            "tool_name": "finish",
        },
        {
            "kind": "ObservationEvent",
            "id": "e5",
            "observation": {"kind": "FinishObservation", "output": message},
            "action_id": "e4",
            "tool_name": "finish",
        },
    ]


def test_openhands_v1_finish_not_completed_is_no_decision() -> None:
    (unit,) = _units(_v1_finish({"task_completed": False}), "v1.json")
    assert _produced(unit)[0] == "observation"
    (unit,) = _units(_v1_finish({}), "v1.json")
    assert _produced(unit)[0] == "decision"


# --- 5. OpenHands V1 finish echo ----------------------------------------------------------------


def test_openhands_v1_finish_echo_is_no_step_and_no_observation() -> None:
    (unit,) = _units(_v1_finish({}), "v1.json")
    message = _produced(unit)[2]
    assert [kind for kind, _ in _steps(unit)] == ["thought", "action", "observation", "conclusion"]
    assert message not in unit.observations
    assert "event 4: observation finish" in unit.extra["skipped_events"]


# --- 2. Long tool output: head and tail, counted -----------------------------------------------


def _swe(observation: str, submission: str = _DIFF, status: str = "submitted") -> dict[str, Any]:
    return {
        "trajectory": [
            {
                "thought": "Run the suite.",
                "action": "pytest -q",
                "observation": observation,
                "response": "",
            },
            {
                "thought": "Popping the key makes the race harmless; the suite passes. Submit.",
                "action": "submit",
                "observation": submission,
                "response": "",
            },
        ],
        "history": [{"role": "user", "content": "<issue>KeyError under load</issue>"}],
        "info": {"exit_status": status, "submission": submission},
    }


def _mini(outputs: list[str], submission: str, thoughts: list[str], **info: Any) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "<task>Slug bug</task>"}]
    for thought, output in zip(thoughts, outputs, strict=True):
        messages.append({"role": "assistant", "content": f"THOUGHT: {thought}\n\n```bash\nls\n```"})
        messages.append({"role": "user", "content": f"<returncode>0</returncode>\n{output}"})
    return {
        "info": {"exit_status": "Submitted", "submission": submission, **info},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
    }


def _react(observation: str) -> str:
    return (
        "Question: Why does the suite fail?\nThought 1: Run it.\nAction 1: Run[pytest]\n"
        f"Observation 1: {observation}\nThought 2: A race.\nAction 2: Finish[a race]\n"
    )


@pytest.mark.parametrize(
    ("content", "name"),
    [
        (_swe(_LONG), "run.traj"),
        (_mini([_LONG], "", ["Run the suite."], exit_status="LimitsExceeded"), "m.traj.json"),
        (
            [
                {"id": 0, "source": "user", "action": "message", "args": {"content": "Fix it"}},
                {"id": 1, "source": "agent", "action": "run", "args": {"command": "pytest"}},
                {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": _LONG},
            ],
            "events.json",
        ),
        (_react(_LONG), "react.txt"),
    ],
)
def test_long_tool_output_keeps_head_and_tail_and_is_counted(content: Any, name: str) -> None:
    (unit,) = _units(content, name)
    (kept,) = [o for o in unit.observations if "PASSED" in o]
    assert kept.startswith("tests/test_x.py::test_0 PASSED")
    assert kept.endswith("==== 1 failed, 300 passed in 9.1s ====")
    assert "[trimmed: " in kept and len(kept) < 1300
    assert unit.extra["trimmed"] == 1


# --- 3. mini-SWE-agent: an empty submission -----------------------------------------------------


def test_mini_empty_submission_says_so_and_decides_the_stated_conclusion() -> None:
    thoughts = ["Check the docs.", "The behaviour is intended per the docs; no change. Submit."]
    (unit,) = _units(_mini(["doc says so", ""], "", thoughts), "e.traj.json")
    expected = (
        "Submitted an empty patch (no change). The behaviour is intended per the docs; no change."
    )
    assert _steps(unit)[-1] == ("conclusion", expected)
    assert _produced(unit) == ("decision", "active", expected)


def test_mini_empty_submission_that_admits_failure_is_no_decision() -> None:
    thoughts = ["Check the docs.", "I could not find the cause of the bug. Submitting."]
    (unit,) = _units(_mini(["doc says so", ""], "", thoughts), "e.traj.json")
    kind, _, content = _produced(unit)
    assert kind == "observation" and content.startswith("Submitted an empty patch (no change).")
    assert "without a submission" not in content


# --- 4. A patch decision in words; autosubmitted runs give up ---------------------------------


def test_swe_agent_patch_decision_names_files_and_explanation_and_keeps_the_diff() -> None:
    (unit,) = _units(_swe("1 passed"), "run.traj")
    expected = "Submitted patch to pkg/cache.py: Popping the key makes the race harmless; the suite passes."
    assert _produced(unit) == ("decision", "active", expected)
    assert _steps(unit)[-2:] == [("observation", _DIFF.strip()), ("conclusion", expected)]


@pytest.mark.parametrize(
    "status", ["submitted (exit_cost)", "exit_cost", "submitted (exit_context)"]
)
def test_swe_agent_autosubmitted_patch_is_a_give_up(status: str) -> None:
    data = _swe("1 passed", status=status)
    data["trajectory"] = data["trajectory"][:1]  # no submit: the harness submitted at its limit
    data["trajectory"][0]["thought"] = "I am not sure the edit is right; out of budget."
    (unit,) = _units(data, "run.traj")
    kind, status_, content = _produced(unit)
    assert (kind, status_) == ("observation", None)
    assert content.startswith(f"Run autosubmitted at its limit (exit status: {status}): ")
    assert "patch to pkg/cache.py, not verified by the agent" in content
    assert _steps(unit)[-2] == (
        "observation",
        f"Autosubmitted patch (exit status: {status}):\n{_DIFF.strip()}",
    )
    assert unit.observations[-1] == _steps(unit)[-2][1]


# --- 6. End markers and wording -----------------------------------------------------------------


def test_mini_v2_limit_message_is_its_own_observation() -> None:
    data = _mini(["5.3.1"], "", ["Check kombu's version."])
    data["info"] = {"exit_status": "LimitsExceeded", "submission": ""}
    data["messages"].append(
        {
            "role": "user",
            "content": "Limits exceeded: step limit of 6 reached.",
            "extra": {"exit_status": "LimitsExceeded"},
        }
    )
    (unit,) = _units(data, "l.traj.json")
    assert _steps(unit)[2:4] == [
        ("observation", "5.3.1"),
        ("observation", "Limits exceeded: step limit of 6 reached."),
    ]
    assert unit.observations == ("5.3.1", "Limits exceeded: step limit of 6 reached.")


def test_react_conclusion_is_the_answer_and_the_end_marker_no_step() -> None:
    (unit,) = _units(_react("1 failed") + "Observation 2: Episode finished, reward = 1\n", "r.txt")
    assert _steps(unit)[-1] == ("conclusion", "a race")
    assert unit.observations == ("1 failed",)
    assert unit.extra["end_marker"] == "Episode finished, reward = 1"
    assert _produced(unit)[2] == "Question: Why does the suite fail?\nAnswer: a race"


def test_react_give_up_without_numbers_counts_rounds() -> None:
    text = (
        "Question: Which licence?\nThought: Look at PyPI.\nAction: pypi[pkg]\n"
        "Observation: 503\nThought: I cannot tell.\n"
    )
    (unit,) = _units(text, "r.md")
    assert _produced(unit)[2].endswith("ended without Finish after 2 rounds.")
    (unit,) = _units(text.replace("Thought:", "Thought 1:", 1), "r.md")
    assert _produced(unit)[2].endswith("after 1 numbered round.")


def test_verified_submit_stays_a_decision_of_kind_decision() -> None:
    (unit,) = _units(_swe("ok", status="submitted"), "run.traj")
    assert unit.trace is not None and unit.trace.produced is not None
    assert unit.trace.produced.kind == Kind.DECISION
