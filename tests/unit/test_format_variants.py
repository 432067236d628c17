"""Unit tests of the format parsers on variants of each kind that the corpus does not hold.

Other versions of the tools' formats (older and newer Codex rollouts, Claude Code stream-json,
OpenHands V1 events and UI downloads, SWE-agent 1.x), other spellings (unnumbered ReAct), and
terminal recordings (asciinema, ``script`` with ANSI escapes).
"""

from __future__ import annotations

import json
from typing import Any

from service.domain.ingestion.formats import detect, parse_document
from service.domain.models import IngestUnit, StepKind


def _jsonl(*records: dict[str, Any]) -> str:
    return "\n".join(json.dumps(r) for r in records) + "\n"


def _steps(unit: IngestUnit) -> list[tuple[str, str]]:
    assert unit.trace is not None
    return [(str(s.kind), s.content) for s in unit.trace.steps]


def _auto(content: str, name: str) -> tuple[str, list[IngestUnit]]:
    doc = parse_document(content, "auto", name)
    return doc.format, doc.units


# --- aider -------------------------------------------------------------------------------------

_AIDER = """
# aider chat started at 2025-03-02 10:00:01

> Aider v0.75.2
> Main model: sonnet with diff edit format

#### /ask should the cache use LRU or TTL?

#### should the cache use LRU or TTL?

Use TTL eviction, because entries go stale on a schedule.

#### implement TTL eviction

I'll add a `ttl` parameter.

src/cache.py
```python
<<<<<<< SEARCH
class Cache:
=======
class Cache:  # ttl
>>>>>>> REPLACE
```

> Applied edit to src/cache.py
> Commit 9ab12cd feat: Add TTL eviction

# aider chat started at 2025-03-03 08:30:00

> /usr/local/bin/aider --architect
> Aider v0.75.2

#### /architect split cache into a package

#### split cache into a package

Move `src/cache.py` to `src/cache/__init__.py`.

> Edit the files? (Y)es/(N)o [Yes]: y

#### Move `src/cache.py` to `src/cache/__init__.py`.

src/cache/__init__.py
```python
<<<<<<< SEARCH
=======
from .core import Cache
>>>>>>> REPLACE
```

> Applied edit to src/cache/__init__.py
"""


def test_aider_replace_line_ends_the_edit_not_the_reply() -> None:
    fmt, units = _auto(_AIDER, "x.aider.chat.history.md")
    assert fmt == "aider"
    steps = [s for u in units for s in _steps(u)]
    assert not [c for _, c in steps if c.startswith(">>>>") or c.strip().startswith("```")]
    assert ("action", "edit src/cache.py") in steps
    assert (
        "observation",
        "Applied edit to src/cache.py\nCommit 9ab12cd feat: Add TTL eviction",
    ) in (steps)


def test_aider_old_format_fence_above_the_file_name_is_no_thought() -> None:
    text = (
        "# aider chat started at 2023-07-14 09:12:45\n\n#### fix it\n\nI will fix it:\n\n"
        "```python\nsrc/a.py\n<<<<<<< ORIGINAL\nx = 1\n=======\nx = 2\n>>>>>>> UPDATED\n```\n\n"
        "> Applied edit to src/a.py\n"
    )
    units = parse_document(text, "aider", "h.md").units
    assert _steps(units[0])[1:] == [
        ("action", "edit src/a.py"),
        ("observation", "Applied edit to src/a.py"),
        ("conclusion", "I will fix it:"),  # after the edit and its console output (trial 22)
    ]


def test_aider_whole_file_and_udiff_edits_are_actions_not_thoughts() -> None:
    """A helper's probe: in Aider's `whole` format (the file named above a block of its new
    contents) the file's code became a thought, and a `#### ` or `> ` line inside it ended the
    reply; a `udiff` block was a thought too."""
    text = (
        "# aider chat started at 2024-05-01 10:00:00\n\n#### add a greeting\n\n"
        "Here is the updated `hello.py`:\n\nhello.py\n```\nimport sys\n\n"
        "def greeting(name):\n    print('Hey', name)\n```\n\n"
        "And the README:\n\ndocs/README.md\n```markdown\n# Hello\n\n#### Usage\n\n"
        "> run it with python\n```\n\n"
        "```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n```\n\n"
        "Run it with:\n\n```bash\npython hello.py\n```\n\n> Applied edit to hello.py\n"
    )
    units = parse_document(text, "aider", "h.md").units
    assert _steps(units[0])[1:] == [
        ("thought", "Here is the updated `hello.py`:"),
        ("action", "edit hello.py"),
        ("thought", "And the README:"),
        ("action", "edit docs/README.md"),
        ("action", "edit src/app.py"),
        ("observation", "Applied edit to hello.py"),
        ("conclusion", "Run it with:\n\n```bash\npython hello.py\n```"),
    ]


def test_a_short_aider_history_is_known_by_its_header() -> None:
    """Trial 16: requests and a whole-file edit, no console lines: read as text."""
    text = (
        "# aider chat started at 2024-05-01 10:00:00\n\n#### rewrite main\n\n"
        "src/main.py\n```python\nprint('hi')\n```\n\n#### second request\n\nok\n"
    )
    fmt, units = _auto(text, "a.md")
    assert fmt == "aider"
    assert ("action", "edit src/main.py") in _steps(units[0])
    # Markdown with #### headings and no Aider header stays text.
    assert (
        _auto("# Notes\n\n#### Setup\n\nRun it.\n\n#### Usage\n\nCall it.\n", "n.md")[0] == "text"
    )


def test_aider_command_echo_and_banner_of_a_new_session_are_no_steps() -> None:
    units = parse_document(_AIDER, "aider", "h.md").units
    requests = [u.trace.task for u in units if u.trace is not None]
    # /ask and /architect log their message again; the architect's reply goes to the editor
    assert requests == [
        "should the cache use LRU or TTL?",
        "implement TTL eviction",
        "split cache into a package",
    ]
    second = _steps(units[1])
    assert all("--architect" not in c for _, c in second)  # the next session's banner
    assert units[0].extra["skipped"]["repeated_messages"] == 3
    assert ("action", "edit src/cache/__init__.py") in _steps(units[2])


# --- ReAct -------------------------------------------------------------------------------------

_LANGCHAIN = """> Entering new AgentExecutor chain...
Question: What is the population of Paris, squared?
Thought: I need the population of Paris.
Action: Search
Action Input: "Paris population"
Observation: Paris has 2,102,650 inhabitants.
Thought: I now know the final answer
Final Answer: 4,421,137,022,500

> Finished chain.
"""


def test_react_unnumbered_langchain_steps_are_detected_and_parsed() -> None:
    fmt, units = _auto(_LANGCHAIN, "agent.log")
    assert fmt == "react"
    assert _steps(units[0]) == [
        ("thought", "I need the population of Paris."),
        ("action", 'Search: "Paris population"'),
        ("observation", "Paris has 2,102,650 inhabitants."),
        ("thought", "I now know the final answer"),
        ("conclusion", "4,421,137,022,500"),
    ]
    assert units[0].extra["answer"] == "4,421,137,022,500"
    assert units[0].trace is not None and units[0].trace.produced is not None
    assert units[0].trace.produced.kind == "decision"


def test_react_lowercase_and_bold_tags_are_steps() -> None:
    text = (
        "**Task:** pick a fruit\n\n**Thought:** apples are in season.\n"
        "**Action:** lookup[apple]\n**Observation:** in stock\nthought: take it\n"
        "action: finish[apple]\n"
    )
    fmt, units = _auto(text, "run.md")
    assert fmt == "react"
    assert units[0].trace is not None and units[0].trace.task == "pick a fruit"
    kinds = [k for k, _ in _steps(units[0])]
    assert kinds == ["thought", "action", "observation", "thought", "conclusion"]
    assert units[0].extra["answer"] == "apple"


# --- Claude Code -------------------------------------------------------------------------------

_BASE = {"sessionId": "s", "cwd": "/p", "version": "1.0.61", "isSidechain": False}


def _user(uuid: str, content: Any, **more: Any) -> dict[str, Any]:
    message = {"role": "user", "content": content}
    return {**_BASE, "type": "user", "uuid": uuid, "message": message, **more}


def _assistant(uuid: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "assistant", "content": list(blocks)}
    return {**_BASE, "type": "assistant", "uuid": uuid, "message": message}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def test_claude_code_compact_summary_continues_the_request() -> None:
    summary = "This session is being continued from a previous conversation. Summary: ..."
    text = _jsonl(
        _user("u1", "Fix the flaky date test"),
        _assistant("a1", _text("I froze the clock in `test_dates.py`, fixing the flake.")),
        {**_BASE, "type": "system", "subtype": "compact_boundary", "uuid": "c"},
        _user("u2", summary, isCompactSummary=True),
        _user("u3", "Now add a DST regression test"),
        _assistant("a2", _text("Added `tests/test_dst.py` for both transitions.")),
    )
    units = parse_document(text, "claude-code", "s.jsonl").units
    assert [u.trace.task for u in units if u.trace] == [
        "Fix the flaky date test",
        "Now add a DST regression test",
    ]
    # a log that starts with the summary: it states the task
    started = parse_document(_jsonl(*json.loads(f"[{text.splitlines()[3]}]")), "claude-code", "c")
    assert started.units[0].observations[0].startswith("User: This session is being continued")


def test_claude_code_stream_json_output_is_detected_and_kept() -> None:
    ids = {"session_id": "s", "parent_tool_use_id": None}
    tool = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "3 passed"}
    text = _jsonl(
        {"type": "system", "subtype": "init", "session_id": "s", "tools": ["Bash"]},
        {"type": "assistant", "message": {"role": "assistant", "content": [tool]}, **ids},
        {"type": "user", "message": {"role": "user", "content": [result]}, **ids},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [_text("All 3 tests pass; no fix needed.")],
            },
            **ids,
        },
        {"type": "result", "subtype": "success", "result": "All 3 tests pass.", "session_id": "s"},
    )
    fmt, units = _auto(text, "out.jsonl")
    assert fmt == "claude-code"
    assert _steps(units[0])[1:] == [
        ("action", "Bash: pytest -q"),
        ("observation", "3 passed"),
        ("conclusion", "All 3 tests pass; no fix needed."),
    ]


def test_claude_code_user_shell_commands_are_observations_not_requests() -> None:
    text = _jsonl(
        _user("u1", "Add a DST test"),
        _assistant("a1", _text("Added `tests/test_dst.py`.")),
        _user("u2", "<bash-input>git status</bash-input>"),
        _user("u3", "<bash-stdout>nothing to commit</bash-stdout><bash-stderr></bash-stderr>"),
    )
    units = parse_document(text, "claude-code", "s.jsonl").units
    assert len(units) == 1
    assert _steps(units[0])[-2:] == [
        ("observation", "User shell: git status"),
        ("observation", "nothing to commit"),
    ]


def test_claude_code_a_write_not_permitted_is_refused_and_claims_no_decision() -> None:
    """Trial 19: the Write was never permitted, yet "I've created CLAUDE.md" became an active
    decision. The call is rejected; a to-do update after it resolves nothing; no decision."""

    def call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"type": "tool_use", "id": call_id, "name": name, "input": args}

    def result(call_id: str, content: str, **more: Any) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": call_id, "content": content, **more}

    denied = (
        "Claude requested permissions to write to /p/CLAUDE.md, but you haven't granted it yet."
    )
    records = [
        _user("u1", "Create a CLAUDE.md for this repository"),
        _assistant("a1", call("t1", "Write", {"file_path": "/p/CLAUDE.md", "content": "# x"})),
        _user("u2", [result("t1", denied, is_error=True)]),
        _assistant("a2", call("t2", "TodoWrite", {"todos": []})),
        _user("u3", [result("t2", "Todos have been modified successfully.")]),
        _assistant("a3", _text("I've created a basic CLAUDE.md file for this repository.")),
    ]
    unit = parse_document(_jsonl(*records), "claude-code", "s.jsonl").units[0]
    assert unit.trace is not None and unit.trace.produced is None
    [warning] = [w for w in unit.extra["warnings"] if w.startswith("session.refused_call: ")]
    assert "'Write: /p/CLAUDE.md' was refused" in warning, warning
    write = next(i for i, s in enumerate(unit.trace.steps) if s.content.startswith("Write"))
    assert any(write in s.rejects for s in unit.trace.steps)
    # A read after the refusal does not make the claim true (trials 20, 21).
    for tool, args in (
        ("Read", {"file_path": "/p/CLAUDE.md"}),
        ("Bash", {"command": "cat CLAUDE.md"}),
    ):
        read = [
            *records[:5],
            _assistant("a4", call("t3", tool, args)),
            _user("u4", [result("t3", "File does not exist.")]),
            records[5],
        ]
        unit = parse_document(_jsonl(*read), "claude-code", "s.jsonl").units[0]
        assert unit.trace is not None and unit.trace.produced is None, tool
    # A call that worked after the refusal resolves it: the decision stands.
    worked = [
        *records[:5],
        _assistant("a4", call("t3", "Bash", {"command": "cat > CLAUDE.md"})),
        _user("u4", [result("t3", "")]),
        records[5],
    ]
    unit = parse_document(_jsonl(*worked), "claude-code", "s.jsonl").units[0]
    assert unit.trace is not None and unit.trace.produced is not None
    assert unit.trace.produced.status == "active"


def test_mangled_session_lines_are_read_around_not_a_crash() -> None:
    """A fuzzed log (a `type`, an id or a text part that is an object) raised TypeError: a 500."""
    records = [
        _user("u1", "Fix the flaky test"),
        {**_BASE, "type": {}, "uuid": "x"},
        _assistant(
            "a1", {"type": "tool_use", "id": {}, "name": "Bash", "input": {"command": "pytest"}}
        ),
        _user("u2", [{"type": "tool_result", "tool_use_id": {"a": 1}, "content": [{"text": {}}]}]),
        _assistant("a2", _text("Fixed the flaky test by freezing the clock.")),
    ]
    (unit,) = parse_document(_jsonl(*records), "auto", "s.jsonl").units
    assert unit.trace is not None and unit.trace.produced is not None
    codex = [
        {"type": "session_meta", "payload": {"id": "s", "timestamp": "2025-01-01T00:00:00Z"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "List files"}],
            },
        },
        {"type": "response_item", "payload": {"type": {}, "call_id": {}}},
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "arguments": "{}",
                "call_id": ["c"],
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": {}, "output": "a.txt"},
        },
    ]
    assert parse_document(_jsonl(*codex), "auto", "rollout.jsonl").format == "codex"


# --- Codex -------------------------------------------------------------------------------------

_PATCH = "*** Begin Patch\n*** Update File: README.md\n+--verbose\n*** End Patch"


def test_codex_patch_in_function_arguments_names_the_files_only() -> None:
    text = _jsonl(
        {"id": "r1", "timestamp": "2025-06-12T14:03:11Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Doc it"}]},
        {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps({"command": ["apply_patch", _PATCH]}),
            "call_id": "c1",
        },
        {"type": "function_call_output", "call_id": "c1", "output": '{"output": "Done"}'},
        {
            "type": "function_call",
            "name": "apply_patch",
            "arguments": json.dumps({"input": _PATCH}),
            "call_id": "c2",
        },
    )
    units = parse_document(text, "auto", "rollout-old.jsonl").units
    actions = [c for k, c in _steps(units[0]) if k == "action"]
    assert actions == ["apply_patch: README.md", "apply_patch: README.md"]
    # items without a timestamp are dated by the session line
    assert units[0].valid_from is not None and units[0].valid_from.year == 2025


def test_codex_typescript_json_rollout_is_a_codex_session() -> None:
    rollout = {
        "session": {"timestamp": "2025-04-20T10:00:00Z", "id": "c8f1", "instructions": ""},
        "items": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go"}]},
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "shell",
                "arguments": '{"command": ["git", "mv", "a.py", "b.py"]}',
            },
            {"type": "function_call_output", "call_id": "c1", "output": '{"output": "ok"}'},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Renamed `a.py` to `b.py`."}],
            },
        ],
    }
    content = json.dumps(rollout, indent=2)
    assert detect(content, "rollout-x.json").format == "codex"
    units = parse_document(content, "auto", "rollout-x.json").units
    assert _steps(units[0])[1:] == [
        ("action", "shell: git mv a.py b.py"),
        ("observation", "ok"),
        ("conclusion", "Renamed `a.py` to `b.py`."),
    ]


# --- OpenHands ---------------------------------------------------------------------------------

_OH_EVENTS: list[dict[str, Any]] = [
    {"id": 0, "source": "user", "action": "message", "args": {"content": "Fix login"}},
    {
        "id": 1,
        "source": "agent",
        "action": "edit",
        "args": {"path": "/w/views.py", "command": "str_replace", "old_str": "a", "thought": ""},
    },
    {"id": 2, "source": "agent", "observation": "edit", "cause": 1, "content": "edited"},
    {
        "id": 3,
        "source": "agent",
        "action": "finish",
        "message": "All done! What's next on the agenda?",
        "args": {"final_thought": "Renamed the form key to `password`.", "thought": ""},
    },
]


def test_openhands_finish_final_thought_and_file_paths_are_kept() -> None:
    units = parse_document(json.dumps(_OH_EVENTS), "auto", "t.json").units
    assert _steps(units[0]) == [
        ("action", "edit: str_replace /w/views.py"),
        ("observation", "edited"),
        ("conclusion", "Renamed the form key to `password`."),
    ]


def test_openhands_ui_trajectory_download_is_openhands_not_swe_agent() -> None:
    content = json.dumps({"trajectory": _OH_EVENTS})
    assert detect(content, "trajectory.json").format == "openhands"
    units = parse_document(content, "auto", "trajectory.json").units
    assert units[0].trace is not None and units[0].trace.task == "Fix login"


def test_opendevin_action_observation_pairs_are_read_as_events() -> None:
    """OpenDevin (OpenHands before its rename) keeps `history` as [action, observation] pairs."""
    pairs = [
        [_OH_EVENTS[0], {"observation": "null", "content": "", "extras": {}}],
        [_OH_EVENTS[1], _OH_EVENTS[2]],
        [_OH_EVENTS[3]],
    ]
    for document in (pairs, {"instance_id": "x", "history": pairs}):
        fmt, units = _auto(json.dumps(document), "output.json")
        assert fmt == "openhands"
        assert units[0].trace is not None and units[0].trace.task == "Fix login"
        assert _steps(units[0]) == [
            ("action", "edit: str_replace /w/views.py"),
            ("observation", "edited"),
            ("conclusion", "Renamed the form key to `password`."),
        ]


def test_openhands_v1_conversation_events_are_read() -> None:
    events = [
        {"kind": "SystemPromptEvent", "id": "e0", "source": "agent", "system_prompt": {}},
        {
            "kind": "MessageEvent",
            "id": "e1",
            "source": "user",
            "llm_message": {"role": "user", "content": [_text("Document CONFIG_PATH")]},
        },
        {
            "kind": "ActionEvent",
            "id": "e2",
            "source": "agent",
            "thought": [_text("Find where it is read.")],
            "action": {"kind": "ExecuteBashAction", "command": "grep -rn CONFIG_PATH src"},
            "tool_name": "execute_bash",
        },
        {
            "kind": "ObservationEvent",
            "id": "e3",
            "source": "environment",
            "observation": {"kind": "ExecuteBashObservation", "output": "src/config.py:3"},
            "action_id": "e2",
            "tool_name": "execute_bash",
        },
        {
            "kind": "ActionEvent",
            "id": "e4",
            "source": "agent",
            "thought": [],
            "action": {"kind": "FinishAction", "message": "Documented CONFIG_PATH in README.md."},
            "tool_name": "finish",
        },
    ]
    fmt, units = _auto(json.dumps(events), "events.json")
    assert fmt == "openhands"
    assert units[0].trace is not None and units[0].trace.task == "Document CONFIG_PATH"
    assert _steps(units[0]) == [
        ("thought", "Find where it is read."),
        ("action", "execute_bash: grep -rn CONFIG_PATH src"),
        ("observation", "src/config.py:3"),
        ("conclusion", "Documented CONFIG_PATH in README.md."),
    ]
    assert units[0].extra["observation_causes"] == {2: 1}


def test_openhands_think_is_one_thought_step() -> None:
    """A helper's probe: `think` gave a thought, a bare action "think: ..." and an observation
    "Your thought has been logged."; it is one thought (none when empty), classic or V1."""
    classic = [
        _OH_EVENTS[0],
        {"id": 1, "source": "agent", "action": "think", "args": {"thought": "Maybe the key."}},
        {
            "id": 2,
            "source": "agent",
            "observation": "think",
            "cause": 1,
            "content": "Your thought has been logged.",
        },
        {"id": 3, "source": "agent", "action": "think", "args": {"thought": " "}},
        *_OH_EVENTS[1:],
    ]
    units = parse_document(json.dumps(classic), "auto", "t.json").units
    assert _steps(units[0]) == [
        ("thought", "Maybe the key."),
        ("action", "edit: str_replace /w/views.py"),
        ("observation", "edited"),
        ("conclusion", "Renamed the form key to `password`."),
    ]
    assert units[0].extra["observation_causes"] == {2: 1}
    v1 = [
        {
            "kind": "MessageEvent",
            "id": "e1",
            "source": "user",
            "llm_message": {"role": "user", "content": [_text("Fix login")]},
        },
        {
            "kind": "ActionEvent",
            "id": "e2",
            "source": "agent",
            "thought": [],
            "action": {"kind": "ThinkAction", "thought": "Maybe the key."},
            "tool_name": "think",
        },
        {
            "kind": "ActionEvent",
            "id": "e3",
            "source": "agent",
            "thought": [],
            "action": {"kind": "FinishAction", "message": "Renamed the key."},
            "tool_name": "finish",
        },
    ]
    fmt, units = _auto(json.dumps(v1), "events.json")
    assert fmt == "openhands"
    assert _steps(units[0]) == [("thought", "Maybe the key."), ("conclusion", "Renamed the key.")]


# --- SWE-agent ---------------------------------------------------------------------------------


def test_swe_agent_1x_task_is_the_pr_description() -> None:
    prompt = (
        "<uploaded_files>\n/testbed\n</uploaded_files>\nConsider the following PR description:"
        "\n\n<pr_description>\nTimeDelta rounds down\n</pr_description>\n\nCan you help me?"
    )
    traj = {
        "trajectory": [{"thought": "Look.", "action": "ls", "observation": "a.py", "response": ""}],
        "history": [
            {"role": "system", "content": "SETTING: ..."},
            {"role": "user", "content": [_text(prompt)]},
        ],
        "info": {"exit_status": "submitted", "submission": "diff --git a/a.py b/a.py"},
    }
    units = parse_document(json.dumps(traj), "auto", "x.traj").units
    assert units[0].trace is not None and units[0].trace.task == "TimeDelta rounds down"


# --- terminal ----------------------------------------------------------------------------------

_CONSOLE = [
    "> fix the typo in README",
    "",
    "⏺ I'll fix it.",
    "",
    "⏺ Update(README.md)",
    "  ⎿  Updated README.md with 1 addition",
    "",
    "⏺ Fixed the typo in README.md.",
]


def test_terminal_asciinema_cast_is_read_as_its_output() -> None:
    header = {"version": 2, "width": 100, "height": 30, "timestamp": 1719830000}
    events = [[0.1 * i, "o", f"\x1b[1m{line}\x1b[0m\r\n"] for i, line in enumerate(_CONSOLE)]
    content = "\n".join(json.dumps(x) for x in [header, *events, [9.0, "i", "q"]])
    fmt, units = _auto(content, "session.cast")
    assert fmt == "terminal"
    assert _steps(units[0]) == [
        ("observation", "User: fix the typo in README"),
        ("thought", "I'll fix it."),
        ("action", "Update: README.md"),
        ("observation", "Updated README.md with 1 addition"),
        ("conclusion", "Fixed the typo in README.md."),
    ]
    plain = parse_document(json.dumps(header) + '\n[0.1, "o", "$ ls\\r\\na.py\\r\\n"]', "auto", "c")
    assert plain.format == "text" and plain.units[0].observations == ("$ ls\na.py",)


def test_terminal_script_typescript_loses_its_ansi_escapes() -> None:
    colour = ["\x1b[38;5;174m" + ln + "\x1b[39m" if ln.startswith("⏺") else ln for ln in _CONSOLE]
    content = "\r\n".join(["\x1b]0;dev@box: ~\x07\x1b[01;32mdev@box\x1b[00m$ claude", *colour])
    fmt, units = _auto(content, "typescript")
    assert fmt == "terminal"
    assert all("\x1b" not in c for _, c in _steps(units[0]))
    assert _steps(units[0])[-1] == ("conclusion", "Fixed the typo in README.md.")


# --- ADR ---------------------------------------------------------------------------------------


def test_adr_rst_field_list_gives_status_and_date() -> None:
    text = (
        "ADR 8: Adopt structured logging\n===============================\n\n"
        ":Status: Accepted\n:Date: 2021-05-10\n\nContext\n-------\n\nLogs are free text.\n\n"
        "Decision\n--------\n\nWe will log JSON.\n"
    )
    unit = parse_document(text, "auto", "adr-8.rst").units[0]
    assert unit.extra["status"] == "Accepted"
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2021-05-10"
    assert unit.observations == ("Logs are free text.",)


def test_adr_y_statement_without_sections_is_an_adr() -> None:
    text = (
        "# ADR-012: Session storage\n\nIn the context of checkout, facing lost carts on "
        "restarts, we decided for Redis and neglected in-memory sessions, to achieve scaling, "
        "accepting the cost of a cluster.\n"
    )
    fmt, units = _auto(text, "session-storage.md")
    assert fmt == "adr"
    steps = _steps(units[0])
    assert steps[-1][0] == StepKind.CONCLUSION
    assert steps[-1][1].startswith("we decided for Redis")


def test_an_emoji_shortcode_opening_a_line_is_prose_not_a_field() -> None:
    """`:Status: Accepted` is a field line; `:warning: ...` (GitHub's shortcode) opens prose."""
    text = (
        "# ADR 9: Queue retries\n\n:warning: Retries double the load on the broker during an "
        "outage.\n\n## Status\n\nAccepted\n\n## Decision\n\nWe will retry three times.\n"
    )
    unit = parse_document(text, "auto", "adr-9.md").units[0]
    assert "warning" not in unit.extra.get("metadata", {})
    assert any("Retries double the load" in o for o in unit.observations), unit.observations


def test_an_adr_with_action_and_thought_lines_is_an_adr_not_react() -> None:
    """Trial 14: "Action:"/"Thought:" lines in an ADR's consequences made it ReAct (its decision
    lost, and locked in by the recorded format); notes with such lines are no ReAct either."""
    record = (
        "# ADR 7: Drop the legacy exporter\n\nStatus: accepted\n\n## Context\n\nIt is unused.\n\n"
        "## Decision\n\nWe will remove it.\n\n## Consequences\n\n"
        "Action: Bo removes the module.\nThought: keep the flag one release.\n"
    )
    fmt, units = _auto(record, "0007-drop-exporter.md")
    assert fmt == "adr"
    assert units[0].trace is not None and units[0].trace.produced is not None
    assert "We will remove it." in units[0].trace.produced.content
    notes = "Standup\n\nThought: the cache is cold.\nAction: warm it before the demo.\n"
    assert _auto(notes, "notes.md")[0] == "text"


def test_an_unterminated_terminal_title_loses_only_its_escape() -> None:
    """Trial 14: one stray `ESC ]` (an OSC never ended) removed the rest of the document."""
    log = "build started\n\x1b[32mOK\x1b[0m step 1\n\x1b]0;my title\nstep 2: lint\nstep 3: test\n"
    doc = parse_document(log, "auto", "build.log")
    text = "\n".join(doc.units[0].observations)
    assert "step 3: test" in text and "\x1b" not in text
