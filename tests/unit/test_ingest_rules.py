"""Ingestion rules found by a fresh-user trial, without Neo4j: invisible content, damaged JSON
Lines, ADRs that say they ended, chatter replies (API behaviour: tests/api/test_ingest_trial.py).
"""

from __future__ import annotations

import json

import pytest

from service.domain.ingestion.formats import FormatError, detect_format, parse_document
from service.domain.ingestion.formats.adr import lifecycle
from service.domain.ingestion.formats.chatter import MAX_CHATTER_CHARS, is_chatter
from service.domain.ingestion.formats.common import check_text
from service.domain.ingestion.formats.jsonl import read_jsonl
from service.domain.ingestion.formats.session import Session
from service.domain.models import StepKind

# --- invisible content -------------------------------------------------------------------------


@pytest.mark.parametrize("content", ["\u200b\u200b\ufeff", "\ufeff \n\u2060", "\u00ad\u200e"])
def test_content_without_visible_characters_is_empty(content: str) -> None:
    with pytest.raises(FormatError, match=r"^auto: content is empty"):
        check_text(content, "auto")


def test_visible_text_among_format_characters_is_not_empty() -> None:
    check_text("\ufeff\u200bok", "text")


# --- JSON Lines ---------------------------------------------------------------------------------

GOOD = json.dumps({"type": "user"})


def test_a_few_corrupt_lines_are_skipped_and_named() -> None:
    lines = [GOOD] * 18 + ["{cut", "[1, 2]", GOOD]
    read = read_jsonl("\n".join(lines), "codex")
    assert len(read.records) == 19
    assert read.skipped == (19, 20)
    assert read.truncated is None
    assert read.warnings == (
        "jsonl.lines_skipped: lines 19, 20 are not valid JSON objects and were skipped "
        "(2 of 21 lines)",
    )


def test_more_corrupt_lines_than_the_share_is_not_json_lines() -> None:
    lines = [GOOD] * 7 + ["{cut", GOOD]  # 1 of 9: over 10%
    with pytest.raises(FormatError, match=r"^codex: line 8 is not valid JSON"):
        read_jsonl("\n".join(lines), "codex")
    with pytest.raises(FormatError, match=r"^codex: line 1 is not valid JSON"):
        read_jsonl("{cut", "codex")


def test_a_cut_off_last_line_is_named() -> None:
    read = read_jsonl(f"{GOOD}\n\n{GOOD}\n{GOOD[:5]}\n", "claude-code")
    assert len(read.records) == 2
    assert read.truncated == 4  # blank lines keep their number
    assert read.warnings == (
        "jsonl.truncated_last_line: line 4 is cut off (truncated mid-object); what it held is lost",
    )


def codex_turn(answer: str, question: str = "Why does CI fail?") -> list[str]:
    return [
        json.dumps({"type": "event_msg", "payload": {"type": "user_message", "message": question}}),
        *[
            json.dumps({"type": "event_msg", "payload": {"type": "token_count", "n": i}})
            for i in range(10)
        ],
        json.dumps(
            {
                "type": "response_item",
                "payload": {"type": "message", "role": "assistant", "content": answer},
            }
        ),
    ]


def test_a_session_with_a_corrupt_line_is_detected_and_warns() -> None:
    lines = codex_turn("Pin `ruff` to 0.5.0 in CI.")
    lines.insert(3, '{"type": "event_msg", "payl')
    parsed = parse_document("\n".join(lines), "auto", "rollout.jsonl")
    assert parsed.format == "codex"
    assert parsed.warnings == (
        "jsonl.lines_skipped: line 4 is not a valid JSON object and was skipped (1 of 13 lines)",
    )
    assert "corrupt lines skipped: 1" in parsed.signals


# --- ADRs that say they ended -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "title", "superseded_by", "ended"),
    [
        ("superseded by ADR-0057", "Use --input", [], "superseded"),
        ("Superseded", "Use --input", [], "superseded"),
        ("", "ADR013: [superseded] Proper use of HTTP fetching", [], "superseded"),
        ("", "Use node-fetch", ["14"], "superseded"),
        ("Deprecated", "Use Travis", [], "deprecated"),
        ("obsolete", "Use Travis", [], "deprecated"),
        ("Rejected", "Use MongoDB", [], "rejected"),
        ("proposed (withdrawn)", "Use MongoDB", [], "rejected"),
        ("accepted; supersedes ADR-0045", "Allow a positional argument", [], None),
        ("Accepted", "Deprecate the v1 API", [], None),  # the decision is to deprecate
        ("", "Reject unsigned commits", [], None),
    ],
)
def test_an_adr_says_how_its_decision_ended(
    status: str, title: str, superseded_by: list[str], ended: str | None
) -> None:
    assert lifecycle(status, title, superseded_by) == ended


# --- chatter --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "I'm glad the changes worked for you! If you have any more requests or need further "
        "assistance, feel free to ask.",
        "I am Codex, an AI coding assistant by OpenAI.",
        "I can work with many programming languages including Python, JavaScript, TypeScript, "
        "Go, and Rust.",
        "You're absolutely right! I apologize for the confusion.",
        "Thank you! Happy to help.",
        "Sorry about that.",
        "Hello! How can I help you today?",
        "```",
        "",
    ],
)
def test_chatter(reply: str) -> None:
    assert is_chatter(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "You're absolutely right! The fix is to pin `ruff==0.5.0`.",
        "Use the --input flag everywhere.",
        "Sorry, the tests in tests/test_io.py still fail.",
        "I'm glad it works: the cache now expires after 300 seconds.",
        "Thanks! I'll switch the session cache to Redis.",
        "The second option is simpler because it needs no migration.",
        "Glad that fixed it!",  # a fix: kept (decision words count, missing chatter is cheap)
        "We should keep the current design.",
        "It crashes in parse_config when the file is empty.",
        "Thank you for your patience. " * (MAX_CHATTER_CHARS // 29 + 1),  # long: content
    ],
)
def test_not_chatter(reply: str) -> None:
    assert not is_chatter(reply)


def finish(*moves: tuple[str, str]) -> tuple[list[tuple[str, str]], str | None]:
    session = Session()
    session.user("Make the upload test pass")
    trace = session.current
    assert trace is not None
    for kind, text in moves:
        trace.think(text) if kind == "prose" else trace.act(text)
    steps, produced = trace.finish()
    return [(s.kind, s.content) for s in steps], produced.content if produced else None


def test_after_chatter_the_latest_real_prose_concludes() -> None:
    steps, decision = finish(
        ("prose", "I'll add a retry to `upload()` in upload.py."),
        ("action", "edit upload.py"),
        ("prose", "Let me know if you need anything else!"),
    )
    assert decision == "I'll add a retry to `upload()` in upload.py."
    assert steps[1] == (StepKind.CONCLUSION, decision)
    assert steps[3] == (StepKind.THOUGHT, "Let me know if you need anything else!")


def test_after_chatter_and_no_real_prose_the_last_action_concludes() -> None:
    steps, decision = finish(("action", "edit dist/index.js"), ("prose", "```"))
    assert decision == "Last action: edit dist/index.js"
    assert steps[-1] == (StepKind.CONCLUSION, decision)


def test_a_request_answered_only_with_chatter_produces_nothing() -> None:
    session = Session()
    session.user("Hello, Codex! Please explain what you do.")
    assert session.current is not None
    session.current.think("I am Codex, an AI coding assistant by OpenAI.")
    (unit,) = session.units("codex", "Codex")
    assert unit.trace is not None
    assert unit.trace.produced is None
    assert unit.trace.steps[-1].kind == StepKind.CONCLUSION
    assert unit.extra["warnings"] == ["session.chatter_reply"]


# --- leading byte-order mark and other invisible characters ------------------------------------

BOM_ADR = (
    "# ADR 15: Use PostgreSQL for persistence\n\n## Status\nAccepted\n## Context\n"
    "We need a database.\n## Decision\nWe will use PostgreSQL 16.\n"
)
BOM_SESSION = (
    "\n".join(
        json.dumps(r)
        for r in [
            {"type": "session_meta", "payload": {"id": "s1", "cwd": "/repo"}},
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Pick a database for us"}],
                },
            },
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "We will use PostgreSQL 16 for storage."}
                    ],
                },
            },
        ]
    )
    + "\n"
)
BOM_DOCUMENTS = [
    ("adr-bomonly.md", BOM_ADR),
    ("session.jsonl", BOM_SESSION),
    ("notes.md", "# Notes\n\nWe chose PostgreSQL because it is boring.\n"),
    ("traj.json", json.dumps({"trajectory": [{"action": "ls", "observation": "a b"}]})),
]


@pytest.mark.parametrize("prefix", ["\ufeff", "\ufeff\u200b\u2060", "\u200e"])
@pytest.mark.parametrize(("name", "content"), BOM_DOCUMENTS)
def test_leading_invisible_characters_do_not_change_parsing(
    prefix: str, name: str, content: str
) -> None:
    clean = parse_document(content, "auto", name)
    marked = parse_document(prefix + content, "auto", name)
    assert marked == clean
    assert not any(prefix[0] in o for u in marked.units for o in u.observations)


def test_an_adr_with_a_bom_keeps_its_number_and_title() -> None:
    parsed = parse_document("\ufeff" + BOM_ADR, "auto", "adr-bomonly.md")
    assert parsed.format == "adr"
    assert "an 'ADR n' title" in parsed.signals
    (unit,) = parsed.units
    assert unit.title == "ADR 15: Use PostgreSQL for persistence"
    assert detect_format("\ufeff" + BOM_ADR, "adr-bomonly.md") == "adr"


def test_check_text_drops_only_leading_invisible_characters() -> None:
    assert check_text("\ufeff\u200bok\ufeff", "text") == "ok\ufeff"
    assert check_text("\ufeff\n  ok", "text") == "\n  ok"
