"""Unit tests from fresh-user trial 22: Aider's /undo, where an Aider trace concludes, and
console status lines (a newer Gemini CLI footer) that became part of a decision."""

from __future__ import annotations

import pytest

from service.domain.ingestion.formats import parse_document
from service.domain.models import IngestUnit, StepKind

_HEADER = "# aider chat started at 2025-10-07 09:12:44\n\n> Aider v0.86.1\n\n"


def _request(message: str, reply: str, path: str, sha: str, subject: str) -> str:
    return (
        f"#### {message}\n\n{reply}\n\n{path}\n```python\n<<<<<<< SEARCH\nx = 1\n=======\n"
        f"x = 2\n>>>>>>> REPLACE\n```\n\n"
        f"> Tokens: 4.1k sent, 212 received. Cost: $0.02 message, $0.02 session.\n"
        f"> Applied edit to {path}\n> Commit {sha} {subject}\n\n"
    )


_UNDO = (
    "#### /undo\n\n> Removed: 8b77d01 feat: add rounding\n> Now at:  3e1a9c2 feat: add locale\n\n"
)
_FIRST = _request(
    "add a locale option",
    "I'll add a `locale` parameter.",
    "src/export.py",
    "3e1a9c2",
    "feat: add locale",
)
_SECOND = _request(
    "round the totals",
    "I'll round totals to cents in `export`.",
    "src/export.py",
    "8b77d01",
    "feat: add rounding",
)
_THIRD = _request(
    "add a test for the locale instead",
    "I'll add a test of the `de_DE` export.",
    "tests/test_export.py",
    "c0ffee4",
    "test: cover de_DE",
)


def _units(text: str) -> list[IngestUnit]:
    return parse_document(text, "aider", "h.aider.chat.history.md").units


def _kinds(unit: IngestUnit) -> list[str]:
    assert unit.trace is not None
    return [str(s.kind) for s in unit.trace.steps]


def test_an_undone_commit_leaves_no_decision_and_the_next_message_is_a_new_request() -> None:
    """Trial 22: request 2's commit was undone yet it stayed an active decision, and the
    message after the /undo was merged into the request that asked for it."""
    ask = "#### the import tool breaks on rounding. undo that last change\n\n"
    units = _units(_HEADER + _FIRST + _SECOND + ask + _UNDO + _THIRD)
    assert [u.trace.task for u in units if u.trace is not None] == [
        "add a locale option",
        "round the totals",
        "add a test for the locale instead",
    ]
    first, second, third = units
    assert first.trace is not None and first.trace.produced is not None
    assert second.trace is not None and second.trace.produced is None
    assert [w for w in second.extra["warnings"] if w.startswith("session.undone: ")] == [
        "session.undone: commit 8b77d01 (feat: add rounding) was undone (/undo); "
        "the trace decides nothing"
    ]
    steps = second.trace.steps
    removed = next(s for s in steps if s.content.startswith("Removed: 8b77d01"))
    assert removed.rejects and all(
        steps[r].content == "edit src/export.py" for r in removed.rejects
    )
    assert "User: the import tool breaks on rounding. undo that last change" in second.observations
    assert third.trace is not None and third.trace.produced is not None
    assert third.trace.produced.content == "I'll add a test of the `de_DE` export."
    assert third.trace.produced.status == "active"


def test_an_undo_typed_in_a_later_request_undoes_the_request_that_committed() -> None:
    question = (
        "#### /ask is rounding to cents right?\n\n"
        "Yes: `Invoice.total` is kept in cents, so round to 2 decimals.\n\n"
    )
    units = _units(_HEADER + _FIRST + _SECOND + question + _UNDO)
    second, asked = units[1], units[2]
    assert second.trace is not None and second.trace.produced is None
    undone = second.trace.steps[-1]
    assert undone.content.startswith("Undone in a later request: Removed: 8b77d01")
    assert [second.trace.steps[r].content for r in undone.rejects] == ["edit src/export.py"]
    assert asked.trace is not None and asked.trace.produced is not None  # its own answer stands
    assert any(o.startswith("Removed: 8b77d01") for o in asked.observations)


@pytest.mark.parametrize(
    "undo",
    [
        "#### /undo\n\n> Removed: 0000000 chore: made before this history\n\n",
        "#### /undo\n\n> The last commit was not made by aider in this chat session.\n\n",
    ],
)
def test_an_undo_of_no_commit_of_this_history_undoes_nothing(undo: str) -> None:
    units = _units(_HEADER + _FIRST + _SECOND + undo)
    assert all(u.trace is not None and u.trace.produced is not None for u in units)
    assert not [w for u in units for w in u.extra["warnings"] if w.startswith("session.undone")]


def test_an_aider_conclusion_follows_the_edits_commit_and_test_output_of_its_reply() -> None:
    """Trial 22: Aider writes its prose before its edit blocks and prints the applied edits,
    the commit and /run output after the reply, so every trace concluded at step 1."""
    run = "#### /run pytest -q\n\n> 11 passed in 0.31s\n\n"
    later = "#### thanks, but also the README\n\n"
    [unit] = _units(_HEADER + _FIRST + run + later)
    assert _kinds(unit) == [
        "observation",  # the request
        "action",  # edit src/export.py
        "observation",  # applied, committed
        "observation",  # User command: /run pytest -q
        "observation",  # 11 passed
        "conclusion",  # I'll add a `locale` parameter.
        "observation",  # the user's follow-up: the conclusion never moves past it
    ]
    assert unit.trace is not None and unit.trace.produced is not None
    assert unit.trace.produced.content == "I'll add a `locale` parameter."
    # Prose after the edits (a summary) concludes where it is, before the console output only
    # when it is followed by it; a trailing chatter reply stays after the conclusion.
    summary = (
        "#### rename x\n\nRenaming:\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\n"
        "y = 1\n>>>>>>> REPLACE\n```\n\nThis renames `x` to `y` in src/a.py.\n\n"
        "> Applied edit to src/a.py\n> Commit 1234567 refactor: rename x\n"
    )
    [unit] = _units(_HEADER + summary)
    assert _kinds(unit) == ["observation", "thought", "action", "observation", "conclusion"]


# --- console status lines ----------------------------------------------------------------------

_GEMINI = (
    "> add a vat_id column to customers\n\n"
    "╭──────────────────────────╮\n│ ✔  Shell alembic upgrade head │\n│                          │\n"
    "│    Running upgrade 0014 -> 0015 │\n╰──────────────────────────╯\n"
    "✦ The migration 0015 adds customers.vat_id, a nullable VARCHAR(32).\n\n"
)


@pytest.mark.parametrize(
    "footer",
    [
        # trial 22: a newer Gemini CLI footer, indented by one space
        " Using: 1 GEMINI.md file                 accepting edits (shift + tab to toggle)\n"
        " ~/ledgerly (main*)     no sandbox (see /docs)     gemini-2.5-pro (97% context left)\n",
        # the corpus's footer, not indented
        "Using 1 GEMINI.md file\n\n~/ledgerly (main*)   no sandbox (see /docs)   "
        "gemini-2.5-flash (89% context left)\n",
        "  Using: 1 open file (ctrl+g to view) | 2 GEMINI.md files | 1 MCP server\n"
        "  YOLO mode (ctrl + y to toggle)\n"
        "  ~/ledgerly (main*)     macOS Seatbelt (permissive-open)     gemini-2.5-pro\n"
        "  (100% context left)\n",
        "  ⏵⏵ auto-accept edits on (shift+tab to cycle)\n",
    ],
)
def test_console_status_lines_are_no_part_of_the_decision(footer: str) -> None:
    units = parse_document(_GEMINI + footer, "terminal", "gemini.txt").units
    assert units[0].trace is not None and units[0].trace.produced is not None
    text = "The migration 0015 adds customers.vat_id, a nullable VARCHAR(32)."
    assert units[0].trace.produced.content == text
    assert all(
        "context left" not in s.content and "toggle" not in s.content for s in units[0].trace.steps
    )


def test_prose_naming_a_sandbox_or_context_is_kept() -> None:
    """Only a status line's own wording is a status line: the agent's sentences stay."""
    said = (
        "✦ The tests run with no sandbox because the CI image lacks one.\n"
        "  Using 2 GEMINI.md files would be clearer; about 40% context left is fine.\n"
    )
    units = parse_document(_GEMINI.split("✦")[0] + said, "terminal", "gemini.txt").units
    assert units[0].trace is not None
    [conclusion] = [s for s in units[0].trace.steps if s.kind == StepKind.CONCLUSION]
    assert conclusion.content == (
        "The tests run with no sandbox because the CI image lacks one.\n"
        "Using 2 GEMINI.md files would be clearer; about 40% context left is fine."
    )
