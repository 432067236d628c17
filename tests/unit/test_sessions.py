"""Unit tests of the coding-agent session formats on the real corpus: detection, requests, step counts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from service.domain.ingestion.formats import detect, parse, parse_document
from service.domain.ingestion.formats.chatter import is_chatter
from service.domain.ingestion.formats.redact import redact
from service.domain.ingestion.formats.session import (
    MAX_SESSION_ACTION_CHARS,
    MAX_SESSION_OBSERVATION_CHARS,
    follow_up_kind,
)
from service.domain.models import IngestUnit, StepKind

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
SESSIONS = CORPUS / "sessions"
FOLDER_FORMAT = {
    "claude-code-jsonl": "claude-code",
    "codex-rollout-jsonl": "codex",
    "aider-chat-history": "aider",
    "terminal-transcripts": "terminal",
}
FILES = (
    sorted(
        p.relative_to(SESSIONS).as_posix()
        for p in SESSIONS.rglob("*")
        if p.is_file() and p.name != "SOURCE.md"
    )
    if SESSIONS.is_dir()
    else []
)


@pytest.fixture(scope="module", autouse=True)
def _corpus_present() -> None:
    assert SESSIONS.is_dir(), f"the shared corpus is missing at {SESSIONS}"


def units_of(relative: str) -> list[IngestUnit]:
    path = SESSIONS / relative
    return parse(path.read_text(encoding="utf-8"), "auto", path.name)


def appended_conclusions(units: list[IngestUnit]) -> int:
    """Conclusions the parser had to add (no unrejected prose to conclude with)."""
    return sum(
        1
        for u in units
        if u.trace is not None
        and u.trace.steps[-1].kind == StepKind.CONCLUSION
        and u.trace.steps[-1].content.startswith(("Last action: ", "Last answer (rejected"))
    )


# --- the source's own structure, counted without the parser ------------------------------------

_CONSOLE = re.compile(
    r"^\s*(?:<local-command-std(?:out|err)>|<bash-std(?:out|err)>|\[Request interrupted|Caveat:)"
)


def claude_code_structure(text: str) -> tuple[list[str], int]:
    """(user messages, steps) of a Claude Code session: main-chain lines only."""
    users: list[str] = []
    steps = 0
    for line in text.splitlines():
        r = json.loads(line)
        if r.get("type") not in ("user", "assistant") or r.get("isSidechain") or r.get("isMeta"):
            continue
        content = r["message"]["content"]
        if r["type"] == "assistant":
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            for b in blocks:
                if b.get("type") == "tool_use" or (
                    b.get("type") in ("text", "thinking")
                    and (b.get("text") or b.get("thinking") or "").strip()
                ):
                    steps += 1
            continue
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            steps += sum(1 for b in content if b.get("type") == "tool_result")
            continue
        said = content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)
        if _CONSOLE.match(said):
            continue
        command = re.search(r"<command-name>\s*(\S+?)\s*</command-name>", said)
        args = re.search(r"<command-args>(.*?)</command-args>", said, re.DOTALL)
        if command:
            said = f"{command.group(1)} {args.group(1).strip() if args else ''}".strip()
        users.append(said.strip())
    # a bare slash command the agent never worked on is dropped (the /clear of codemie)
    dropped = [u for u in users if re.fullmatch(r"/[\w:-]+", u) and u != "/init"]
    steps += len(users) - len(dropped)
    return [u for u in users if u not in dropped], steps


def codex_structure(text: str) -> tuple[list[str], int]:
    users: list[str] = []
    steps = 0
    for line in text.splitlines():
        r = json.loads(line)
        p = r.get("payload") or {}
        if r.get("type") == "event_msg" and p.get("type") == "user_message":
            users.append(p["message"])
            steps += 1
        elif r.get("type") == "response_item" and users:
            kind = p.get("type")
            if (
                (kind == "message" and p.get("role") == "assistant")
                or (kind == "reasoning" and p.get("summary"))
                or kind
                in (
                    "function_call",
                    "function_call_output",
                    "custom_tool_call",
                    "custom_tool_call_output",
                    "web_search_call",
                    "local_shell_call",
                )
            ):
                steps += 1
    return users, steps


def aider_users(text: str) -> list[str]:
    runs = re.findall(r"(?:^#### .*\n?)+", text, re.MULTILINE)
    out = []
    for run in runs:
        said = "\n".join(line[5:] for line in run.splitlines()).strip()
        if "(Y)es/(N)o" in said or (said.startswith("/") and not said.startswith("/ask")):
            continue
        out.append(said.lstrip("> ").strip())
    return out


def terminal_users(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^> ?(.*)$", text, re.MULTILINE)]


def user_texts(units: list[IngestUnit]) -> list[str]:
    """Every user message the parser kept: each trace's request and its follow-ups, in order."""
    out = []
    for u in units:
        out += [o[len("User: ") :] for o in u.observations if o.startswith("User: ")]
    return out


# --- tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("relative", FILES)
def test_session_files_are_detected_by_structure(relative: str) -> None:
    path = SESSIONS / relative
    found = detect(path.read_text(encoding="utf-8"), "renamed.txt")  # the name is not used
    assert found.format == FOLDER_FORMAT[relative.split("/")[0]]
    assert found.signals


@pytest.mark.parametrize("relative", FILES)
def test_every_user_request_is_a_trace_or_its_follow_up(relative: str) -> None:
    text = (SESSIONS / relative).read_text(encoding="utf-8")
    units = units_of(relative)
    fmt = FOLDER_FORMAT[relative.split("/")[0]]
    if fmt == "claude-code":
        users, _ = claude_code_structure(text)
    elif fmt == "codex":
        users, _ = codex_structure(text)
    elif fmt == "aider":
        users = aider_users(text)
    else:
        users = terminal_users(text)
    kept = user_texts(units)
    # a bare slash command the agent never worked on (/clear, /cost) is console, not a request
    bare = re.compile(r"/[\w:-]+")
    users = [u for u in users if not bare.fullmatch(u.strip()) or u.strip() in kept]
    assert len(kept) == len(users)
    for said, got in zip(users, kept, strict=True):
        assert " ".join(got.split())[:60] == " ".join(said.split())[:60]
    with_trace = [u for u in units if u.trace is not None]
    assert len(with_trace) >= 1
    for u in with_trace:
        assert u.trace is not None
        assert u.trace.steps[0].content.startswith("User: ")
        assert sum(s.kind == StepKind.CONCLUSION for s in u.trace.steps) == 1
        if "session.chatter_reply" in u.extra["warnings"]:  # thanks, an introduction: no decision
            assert u.trace.produced is None
            assert is_chatter(
                next(s for s in u.trace.steps if s.kind == StepKind.CONCLUSION).content
            )
        elif any(
            w.startswith(("session.refused_call", "session.undone")) for w in u.extra["warnings"]
        ):
            assert u.trace.produced is None
            assert any(s.rejects for s in u.trace.steps)
        else:
            assert u.trace.produced is not None and u.trace.produced.kind == "decision"
    # a trace per request: its first message is never a follow-up of the one before
    assert len(units) == len(kept) - sum(
        1 for u in units for o in u.observations[1:] if o.startswith("User: ")
    )


@pytest.mark.parametrize(
    "relative",
    [f for f in FILES if FOLDER_FORMAT[f.split("/")[0]] in ("claude-code", "codex")],
)
def test_jsonl_session_step_counts_match_the_source(relative: str) -> None:
    text = (SESSIONS / relative).read_text(encoding="utf-8")
    units = units_of(relative)
    structure = claude_code_structure if "claude" in relative else codex_structure
    _, steps = structure(text)
    parsed = sum(len(u.trace.steps) for u in units if u.trace is not None)
    no_trace = sum(len(u.observations) for u in units if u.trace is None)
    assert parsed + no_trace == steps + appended_conclusions(units)


@pytest.mark.parametrize(
    "relative", [f for f in FILES if FOLDER_FORMAT[f.split("/")[0]] == "aider"]
)
def test_aider_edit_blocks_are_actions_naming_the_file(relative: str) -> None:
    text = (SESSIONS / relative).read_text(encoding="utf-8")
    first = text.index("\n#### ")
    edits = len(re.findall(r"^<{7} (?:SEARCH|ORIGINAL)\s*$", text[first:], re.MULTILINE))
    actions = [
        s.content
        for u in units_of(relative)
        if u.trace is not None
        for s in u.trace.steps
        if s.kind == StepKind.ACTION and s.content.startswith("edit ")
    ]
    assert len(actions) == edits > 0
    assert all("=======" not in a and "<<<<<<<" not in a for a in actions)


@pytest.mark.parametrize(
    "relative", [f for f in FILES if FOLDER_FORMAT[f.split("/")[0]] == "terminal"]
)
def test_terminal_tool_calls_and_thinking_match_the_source(relative: str) -> None:
    text = (SESSIONS / relative).read_text(encoding="utf-8")
    calls = len(re.findall(r"^⏺ [A-Z][\w.:-]*(?: [A-Z][\w.:-]*)?\(", text, re.MULTILINE))
    calls += len(re.findall(r"^\s*│ [✔✓✗✘x⊘⊷○?-]\s+[A-Z]\w*", text, re.MULTILINE))
    thinking = len(re.findall(r"^✻ Thinking", text, re.MULTILINE))
    units = units_of(relative)
    steps = [s for u in units if u.trace is not None for s in u.trace.steps]
    assert sum(s.kind == StepKind.ACTION for s in steps) == calls
    if thinking:
        thoughts = [s.content for s in steps if s.kind in (StepKind.THOUGHT, StepKind.CONCLUSION)]
        assert len(thoughts) >= thinking


@pytest.mark.parametrize("relative", FILES)
def test_outputs_and_actions_are_trimmed_to_their_limits(relative: str) -> None:
    marker = 80  # the "… [trimmed: n of m characters cut]" line
    units = units_of(relative)
    for u in units:
        if u.trace is None:
            continue
        for s in u.trace.steps[1:]:
            if s.kind == StepKind.OBSERVATION and not s.content.startswith("User: "):
                assert len(s.content) <= MAX_SESSION_OBSERVATION_CHARS + marker
            if s.kind == StepKind.ACTION:
                assert len(s.content) <= MAX_SESSION_ACTION_CHARS + marker
        marked = sum(
            "[trimmed: " in s.content or "[truncated: " in s.content for s in u.trace.steps
        )
        assert marked <= u.extra["trimmed"]
    # the big sessions had outputs to trim; the report counts them
    big = (SESSIONS / relative).stat().st_size > 100_000
    assert any(u.extra["trimmed"] for u in units) or not big


def test_user_corrections_reject_the_proposal_they_correct() -> None:
    units = units_of("claude-code-jsonl/codemie-session-196820da.jsonl")
    first = units[0]
    assert first.trace is not None
    steps = first.trace.steps
    corrections = [(i, s) for i, s in enumerate(steps) if s.rejects]
    texts = [s.content for _, s in corrections]
    assert any("option 1 is not accepable" in t for t in texts)
    assert any(t.startswith("User: don't produce code, design solution first") for t in texts)
    for i, s in corrections:
        (j,) = s.rejects
        assert j < i and steps[j].kind == StepKind.THOUGHT  # the agent's proposal, now rejected
    assert first.extra["corrections"] == len(corrections) == 4
    # a refused tool call in a console: the cancelled Edit is rejected, the next prompt follows up
    gemini = units_of("terminal-transcripts/bookminder-gemini-cli-day-014.md")
    refused = [
        (u, s)
        for u in gemini
        if u.trace
        for s in u.trace.steps
        if s.rejects and "refused" in s.content
    ]
    assert refused
    for u, s in refused:
        assert u.trace is not None
        assert u.trace.steps[s.rejects[0]].kind == StepKind.ACTION


def test_sub_agent_calls_are_steps_of_the_parent_trace() -> None:
    units = units_of("claude-code-jsonl/ccviewer-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
    orchestrator = units[0]
    assert orchestrator.trace is not None
    assert orchestrator.trace.task.startswith("/orchestrator create TODO app by Next.js")
    calls = [s for s in orchestrator.trace.steps if s.content.startswith("sub-agent Task(")]
    assert len(calls) == orchestrator.extra["subagent_calls"] == 5
    assert orchestrator.extra["skipped_lines"]["sidechain"] > 0


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("don't produce code, design solution first", "rejects"),
        ("more context: the issue must be address, option 1 is not accepable.", "rejects"),
        ("No, your task isn't to reorganize the categorization", "rejects"),
        ("great, but keep in mind that new file will be at the same folder", "amends"),
        ("create document in /specs folder", "request"),
        ("So, which of the 3 options did we end up using?", "request"),
    ],
)
def test_follow_up_kinds(text: str, kind: str) -> None:
    assert follow_up_kind(text) == kind


def test_secrets_are_redacted_before_parsing_and_counted() -> None:
    lines: list[dict[str, Any]] = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s",
            "message": {"role": "user", "content": "deploy with AKIAABCDEFGHIJKLMNOP please"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Setting the key."},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "export TOKEN=ghp_" + "x1" * 20},
                    },
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "sessionId": "s",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
                    }
                ],
            },
        },
    ]
    content = "\n".join(json.dumps(line) for line in lines)
    doc = parse_document(content, "auto", "s.jsonl")
    assert doc.format == "claude-code"
    assert dict(doc.redacted) == {"aws_access_key": 1, "github_token": 1, "private_key": 1}
    everything = json.dumps([[u.observations, u.trace] for u in doc.units], default=str)
    assert "AKIAABCDEFGHIJKLMNOP" not in everything
    assert "ghp_x1" not in everything and "MIIEow" not in everything
    assert "[REDACTED:private_key]" in everything


def test_unknown_structure_falls_back_to_text_with_a_warning() -> None:
    doc = parse_document("Just some notes.\n\nNothing structured here.", "auto", "notes.md")
    assert doc.format == "text"
    assert doc.warnings == ("ingest.fallback_to_text",)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # A value before a sentence's full stop is redacted whole (its last character leaked).
        ("secret: hunter2hunter2. Rotate it.", "secret: [REDACTED:assignment]. Rotate it."),
        (
            "The db password=Summer2024. Rotate it.",
            "The db password=[REDACTED:assignment]. Rotate it.",
        ),
        ("password=ab12cd.", "password=[REDACTED:assignment]."),
        ("api_key: s3cr3tvalue", "api_key: [REDACTED:assignment]"),
        # Code, not a literal: a member access or a call after the name is left alone.
        ("apiKey: config.apiKey1", "apiKey: config.apiKey1"),
        ("password=getPass2(user)", "password=getPass2(user)"),
        ("secret: env2.value", "secret: env2.value"),
        ("password=changeme", "password=changeme"),
    ],
)
def test_assignment_values_are_redacted_whole(text: str, kept: str) -> None:
    redacted, counts = redact(text)
    assert redacted == kept
    assert counts.get("assignment", 0) == (kept != text)
