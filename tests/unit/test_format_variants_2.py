"""Unit tests of the format parsers on more variants the corpus does not hold.

mini-SWE-agent trajectories (``*.traj.json``, read as ``swe-agent``: v1 text actions, v2 list
content, tool calls and ``exit`` messages, files from before ``trajectory_format``) and AsciiDoc
ADRs (``= Title``, ``== Context``, ``:status:`` attribute entries, listing blocks).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.domain.ingestion.formats import FormatError, detect, parse_document
from service.domain.models import IngestUnit, Kind


def _steps(unit: IngestUnit) -> list[tuple[str, str]]:
    assert unit.trace is not None
    return [(str(s.kind), s.content) for s in unit.trace.steps]


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


# --- mini-SWE-agent ----------------------------------------------------------------------------

_DIFF = (
    "diff --git a/src/timedelta.py b/src/timedelta.py\n-    return int(x)\n+    return round(x)\n"
)
_TASK = (
    "<pr_description>\nConsider the following PR description:\nTimeDelta rounds down\n"
    "</pr_description>\n\n<instructions>\n# Task Instructions\n...</instructions>"
)


_FORMAT_ERROR = "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."
_SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"


def _mini_v1() -> dict[str, Any]:
    return {
        "info": {
            "exit_status": "Submitted",
            "submission": _DIFF,
            "model_stats": {"instance_cost": 0.12, "api_calls": 4},
            "mini_version": "1.9.0",
        },
        "messages": [
            {"role": "system", "content": "You are a helpful assistant...", "timestamp": 1.0},
            {"role": "user", "content": _TASK, "timestamp": 2.0},
            {
                "role": "assistant",
                "content": "THOUGHT: Find the rounding.\n\n"
                "```bash\ngrep -n int src/timedelta.py\n```",
            },
            {
                "role": "user",
                "content": "<returncode>0</returncode>\n<output>\n3:    return int(x)\n</output>",
            },
            {
                "role": "assistant",
                "content": "THOUGHT: Two commands.\n\n```bash\nls\n```\n\n```bash\npwd\n```",
            },
            {
                "role": "user",
                "content": _FORMAT_ERROR,
            },
            {
                "role": "assistant",
                "content": "THOUGHT: Run the tests.\n\n```bash\npytest -q tests\n```",
            },
            {
                "role": "user",
                "content": "<returncode>1</returncode>\n<output>\n1 failed, 3 passed\n</output>",
            },
            {
                "role": "assistant",
                "content": f"THOUGHT: Fixed; submit.\n\n```bash\n{_SUBMIT}\n```",
            },
            {"role": "user", "content": _DIFF},
        ],
        "trajectory_format": "mini-swe-agent-1",
    }


def test_mini_swe_agent_v1_trajectory_is_read_as_a_swe_agent_trace() -> None:
    content = json.dumps(_mini_v1())
    found = detect(content, "pydantic__timedelta-1.traj.json")
    assert found.format == "swe-agent" and "mini-swe-agent-1" in found.signals[0]
    doc = parse_document(content, "auto", "pydantic__timedelta-1.traj.json")
    (unit,) = doc.units
    assert unit.key == "pydantic__timedelta-1"
    assert unit.trace is not None and unit.trace.task == "TimeDelta rounds down"
    assert _steps(unit) == [
        ("thought", "Find the rounding."),
        ("action", "grep -n int src/timedelta.py"),
        ("observation", "3:    return int(x)"),
        ("thought", "Two commands."),
        ("action", "(no action run: 2 bash blocks, expected one)"),
        (
            "observation",
            "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
        ),
        ("thought", "Run the tests."),
        ("action", "pytest -q tests"),
        ("observation", "(exit code 1)\n1 failed, 3 passed"),
        ("thought", "Fixed; submit."),
        ("action", _SUBMIT),
        ("observation", _DIFF.strip()),
        ("conclusion", "Submitted patch to src/timedelta.py."),
    ]
    assert [s.cites for s in unit.trace.steps if s.kind == "observation"] == [
        ("obs:0",),
        ("obs:1",),
        ("obs:2",),
        ("obs:3",),
    ]
    assert unit.trace.produced is not None and unit.trace.produced.kind == Kind.DECISION
    assert unit.extra == {
        "format": "swe-agent",
        "agent": "mini-swe-agent",
        "trajectory_format": "mini-swe-agent-1",
        "exit_status": "Submitted",
        "rounds": 4,
        "trimmed": 0,
    }
    # Declared as swe-agent, the same file gives the same unit.
    assert parse_document(content, "swe-agent", "pydantic__timedelta-1.traj.json").units == [unit]


def test_mini_swe_agent_v2_parts_tool_calls_and_exit_message() -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": "cat setup.cfg"})},
    }
    traj = {
        "info": {"exit_status": "", "submission": "", "mini_version": "2.0.0"},
        "messages": [
            {"role": "system", "content": [_text("You are a helpful assistant.")]},
            {"role": "user", "content": [_text("Please solve this issue: Pin the linter\n\n")]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call],
                "extra": {"actions": [{"command": "cat setup.cfg", "tool_call_id": "call_1"}]},
            },
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [_text("<returncode>0</returncode>\n<output>\n[flake8]\n</output>")],
            },
            {
                "role": "user",
                "content": "Tool call error:\n\n<error>\nNo tool calls found\n</error>",
                "extra": {"interrupt_type": "FormatError", "model_response": "I am done."},
            },
            {
                "role": "exit",
                "content": "LimitsExceeded",
                "extra": {"exit_status": "LimitsExceeded", "submission": ""},
            },
        ],
        "trajectory_format": "mini-swe-agent-1.1",
    }
    doc = parse_document(json.dumps(traj), "auto", "run.traj.json")
    assert doc.format == "swe-agent"
    (unit,) = doc.units
    assert unit.trace is not None and unit.trace.task == "Pin the linter"
    assert _steps(unit)[:6] == [
        ("thought", "(no thought recorded)"),
        ("action", "cat setup.cfg"),
        ("observation", "[flake8]"),
        ("thought", "I am done."),
        ("action", "(no action run: no bash block)"),
        ("observation", "Tool call error:\n\n<error>\nNo tool calls found\n</error>"),
    ]
    assert _steps(unit)[-1] == (
        "conclusion",
        "Run ended without a submission (exit status: LimitsExceeded). Last thought: I am done.",
    )
    assert unit.trace.produced is not None and unit.trace.produced.kind == Kind.OBSERVATION


def test_mini_swe_agent_file_without_trajectory_format_is_known_by_its_info() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Please solve this issue: Fix the typo"},
        {"role": "assistant", "content": "Fix it.\n```bash\nsed -i s/teh/the/ README\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"},
    ]
    traj = {
        "info": {"exit_status": "Submitted", "submission": "README fixed"},
        "messages": messages,
    }
    content = json.dumps(traj)
    assert detect(content, "fix.traj.json").format == "swe-agent"
    (unit,) = parse_document(content, "auto", "fix.traj.json").units
    assert _steps(unit) == [
        ("thought", "Fix it."),
        ("action", "sed -i s/teh/the/ README"),
        ("observation", "(no output)"),
        ("conclusion", "Submitted: README fixed"),
    ]
    # A chat export of messages without a run's marks (an action block answered by a
    # <returncode>) is still no known format.
    chat = [{"role": "user", "content": "Fix the typo"}, {"role": "assistant", "content": "Done"}]
    for document in (chat, {"messages": chat}):
        with pytest.raises(FormatError, match="matches no known format"):
            detect(json.dumps(document), "chat.json")
    with pytest.raises(FormatError, match="no assistant message"):
        parse_document(json.dumps({**traj, "messages": messages[:1]}), "swe-agent", "x.traj.json")


def test_mini_swe_agent_messages_saved_alone_are_a_trajectory() -> None:
    """A helper's probe: a run's messages saved without `info` (a JSON list, or an object of
    `messages` only) were refused as JSON of no known format."""
    messages = _mini_v1()["messages"]
    for document in (messages, {"messages": messages}):
        content = json.dumps(document)
        found = detect(content, "run.json")
        assert found.format == "swe-agent", found
        (unit,) = parse_document(content, "auto", "run.json").units
        assert unit.trace is not None and unit.trace.task == "TimeDelta rounds down"
        assert _steps(unit)[:3] == [
            ("thought", "Find the rounding."),
            ("action", "grep -n int src/timedelta.py"),
            ("observation", "3:    return int(x)"),
        ]
        assert _steps(unit)[-1] == ("conclusion", "Submitted patch to src/timedelta.py.")
        assert unit.extra["exit_status"] == "Submitted"
    # Trial 16: the submitting output in its wrapper, the echoed mark first: the patch alone.
    wrapped = [
        *messages[:-1],
        {
            "role": "user",
            "content": f"<returncode>0</returncode>\n<output>\n{_SUBMIT.split()[1]}\n"
            f"{_DIFF.strip()}\n</output>",
        },
    ]
    (unit,) = parse_document(json.dumps(wrapped), "auto", "run.json").units
    assert _steps(unit)[-1] == ("conclusion", "Submitted patch to src/timedelta.py.")


# --- AsciiDoc ADRs -----------------------------------------------------------------------------

_ADOC = """= ADR 12: Use PostgreSQL for the event store
Jane Doe <jane@example.com>
v1.1, 2024-03-05: accepted after review
:toc:
:status: accepted

== Context

Events are written by *three* services and must be read in order.
// TODO: link the incident

== Considered Options

* PostgreSQL
* Kafka

== Decision

We will use *PostgreSQL* with one table per aggregate type.

[source,sql]
----
CREATE TABLE events (id bigserial PRIMARY KEY);
== not a heading
----

== Consequences

=== Negative

* one more database to back up
"""


def test_adr_asciidoc_is_read_with_its_sections_and_header() -> None:
    doc = parse_document(_ADOC, "auto", "0012-event-store.adoc")
    assert doc.format == "adr"
    (unit,) = doc.units
    assert unit.title == "ADR 12: Use PostgreSQL for the event store"
    assert unit.extra["status"] == "accepted"
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2024-03-05"
    assert unit.observations[0] == "Events are written by three services and must be read in order."
    steps = _steps(unit)
    assert ("thought", "PostgreSQL") in steps and ("thought", "Kafka") in steps
    assert ("thought", "Negative: - one more database to back up") in steps
    assert steps[-1] == (
        "conclusion",
        "We will use PostgreSQL with one table per aggregate type.\n"
        "CREATE TABLE events (id bigserial PRIMARY KEY);\n== not a heading",
    )
    assert not unit.extra.get("unplaced_sections")


def test_asciidoc_titles_are_headings_only_in_an_asciidoc_document() -> None:
    """A Markdown ADR with ``== ...`` prose and a setext title reads as before."""
    markdown = (
        "Use Redis\n=========\n\n## Context\n\nCarts are lost.\n== not a heading in Markdown\n\n"
        "## Decision\n\nWe will use Redis.\n"
    )
    (unit,) = parse_document(markdown, "auto", "0003-redis.md").units
    assert unit.title == "ADR 3: Use Redis"  # the number only its file name carried
    assert unit.observations == ("Carts are lost. == not a heading in Markdown",)
    adoc = markdown.replace("Use Redis\n=========", "= Use Redis").replace("## ", "== ")
    (unit,) = parse_document(adoc, "auto", "0003-redis.adoc").units
    assert unit.title == "ADR 3: Use Redis"
    assert _steps(unit)[-1] == ("conclusion", "We will use Redis.")
