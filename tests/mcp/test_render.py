"""The texts number a step by its 0-based index everywhere, as `rejects` and REST's `index`."""

from __future__ import annotations

from service.mcp import render, render_lineage
from service.mcp.backend import BackendError

STEPS = [
    {"index": 0, "kind": "observation", "content": "it fails", "status": "asserted"},
    {
        "index": 1,
        "kind": "thought",
        "content": "maybe the cache",
        "status": "rejected",
        "rejected_by": 2,
    },
    {"index": 2, "kind": "observation", "content": "the cache is fine", "rejects": [1]},
]


def test_steps_are_numbered_by_index() -> None:
    assert render.step_lines(STEPS) == [
        "0. [observation] it fails",
        "1. [thought, hypothesis] maybe the cache (rejected by step 2)",
        "2. [observation] the cache is fine (rules out step 1)",
    ]


def test_revisit_hypothesis_and_quality_issue_steps_are_indexes() -> None:
    challenged = render_lineage.challenge(
        {"memory": {}, "revisit": [{"trace_id": "t", "step": 2, "memory_id": "m", "version": 1}]}
    )
    assert "- trace t step 2: cited m v1" in challenged
    precedents = render_lineage.precedents(
        {
            "items": [
                {
                    "decision": {},
                    "reasoning": [
                        {
                            "hypotheses": [
                                {"step": 1, "content": "maybe the cache", "rejected_by": 2}
                            ]
                        }
                    ],
                }
            ]
        }
    )
    assert "- hypothesis, step 1: maybe the cache (rejected by step 2:" in precedents
    refusal = BackendError(
        422,
        "reasoning.rejected",
        "poor",
        {"quality": {"issues": [{"code": "circular", "step": 2, "message": "m"}]}},
    )
    assert "circular (step 2): m" in render.error(refusal)


def test_a_texts_bidirectional_controls_are_shown_escaped() -> None:
    """A stored text's U+202E reversed what the model reads after it (Trojan Source); trial 7."""
    text = render.shown("[fact] approve\u202e gnirts \u2066x\u2069 ok\u200f")
    assert text == "[fact] approve\\u202e gnirts \\u2066x\\u2069 ok\\u200f"
    assert render.shown("plain text, é, 中文, emoji 🙂") == "plain text, é, 中文, emoji 🙂"


def test_a_texts_terminal_controls_are_shown_escaped() -> None:
    """Trial 13: ANSI escapes went raw into the tool text a host may print to a terminal."""
    text = render.shown("\x1b[31mred\x1b[0m\rover\x08\x07 \x9b2J\x7f")
    assert text == "\\u001b[31mred\\u001b[0m\\u000dover\\u0008\\u0007 \\u009b2J\\u007f"
    assert render.shown("line one\n\tindented") == "line one\n\tindented"


def test_a_produced_memory_that_changed_is_one_item_with_how_it_stands_now() -> None:
    produced = [
        {
            "memory_id": "d1",
            "version": 1,
            "kind": "decision",
            "content": "Use Kafka",
            "system_to": "2026-12-05T10:00:00Z",
        },
        {
            "memory_id": "d1",
            "version": 2,
            "kind": "decision",
            "content": "Use Kafka",
            "status": "challenged",
        },
        {"memory_id": "d2", "version": 1, "kind": "fact", "content": "Queue is Kafka"},
    ]
    text = render.trace({"trace_id": "t", "task": "pick a queue", "produced": produced})
    assert text.count("Produced:") == 2
    assert text.count("Use Kafka") == 1
    assert "  Now: [decision] same text as v1 (id d1, v2, challenged," in text
    changed = [produced[0], {**produced[1], "content": "Use RabbitMQ"}]
    assert "  Now: [decision] Use RabbitMQ (id d1, v2," in render.trace({"produced": changed})


def test_a_recalled_trace_is_brief_and_get_memory_shows_it_whole() -> None:
    """Trial 17: one recall of 10 items was 45,800 characters (a 135-step session inlined)."""
    steps = [
        {"index": i, "kind": "observation", "content": f"output {i} " + "x" * 2000}
        for i in range(135)
    ]
    item = {"kind": "reasoning", "trace_id": "t9", "task": "fix it", "steps": steps}
    text = render.ranked({"items": [item]}, "recall")
    assert text.count("[observation]") == render.BRIEF_STEPS
    assert f"... {135 - render.BRIEF_STEPS} steps not shown (get_memory t9" in text
    assert "0. [observation] output 0" in text and "134. [observation] output 134" in text
    assert "   3. [observation]" not in text and f"   {135 - 9}. [observation]" in text
    assert len(text) < 12 * (render.BRIEF_STEP_CHARS + 100) + 500
    whole = render.record(item)
    assert whole.count("[observation]") == 135 and "x" * 2000 in whole


def test_a_windows_line_end_is_a_line_end() -> None:
    assert render.shown("line one\r\nline two\r") == "line one\nline two\\u000d"


def test_a_multi_line_text_stays_inside_its_item() -> None:
    """Trial 18: a memory's later lines started at column 0, read as the next item's."""
    memory = {"kind": "observation", "memory_id": "m1", "version": 1, "content": "one\ntwo"}
    step = {"index": 0, "kind": "observation", "content": "out\nerr"}
    item = {"kind": "reasoning", "trace_id": "t1", "task": "a\nb", "steps": [step]}
    text = render.ranked({"items": [memory, item]}, "recall")
    assert "1. [observation] one\n   two (id m1" in text
    assert "   0. [observation] out\n      err" in text and "   Task: a\n      b" in text
    assert render.memories({"items": [memory]}, "History").endswith(
        "one\n   two (id m1, v1, valid now to now)"
    )


def test_an_item_says_what_was_folded_into_it_and_which_trace_produced_it() -> None:
    """Trial 18: two sessions' near-duplicate traces were one item, the text saying nothing."""
    item = {
        "kind": "decision",
        "memory_id": "d1",
        "version": 1,
        "content": "Use Kafka",
        "duplicates": {"count": 7, "memory_ids": [f"d{i}" for i in range(2, 9)]},
        "reasoning": {"trace_id": "t1", "task": "Pick a\nqueue"},
    }
    text = render.ranked({"items": [item]}, "recall")
    assert "7 near-duplicate(s) folded in: d2, d3, d4, d5, d6 ..." in text
    assert "produced by trace t1 (task: Pick a queue)" in text


def test_a_version_another_door_wrote_says_who_changed_it() -> None:
    """Trial 19: a version maintenance wrote read "by user" (the creator only)."""
    m = {
        "kind": "decision",
        "memory_id": "d1",
        "version": 3,
        "content": "Use Kafka",
        "created_by": {"origin": "user", "actor": "agent-1"},
        "last_modified_by": {"origin": "maintenance", "actor": "job:evidence-drift"},
    }
    line = render.memory_line(m)
    assert "by user, this version by maintenance (job:evidence-drift))" in line
    same = {**m, "last_modified_by": m["created_by"]}
    assert "this version" not in render.memory_line(same)


def test_a_multi_line_decision_stays_inside_the_lineage_text() -> None:
    """Trial 20: a lineage's header and its versions wrote a decision's second line at column 0."""
    decision = {
        "kind": "decision",
        "memory_id": "d1",
        "version": 1,
        "content": "Use a lock\nfor setup",
    }
    text = render_lineage.lineage({"memory": decision, "versions": [decision], "traces": []})
    assert "Lineage of [decision] Use a lock\n   for setup" in text
    assert "\n  [decision] Use a lock\n    for setup (id d1" in text
    assert "\nfor setup" not in text


def test_precedents_and_a_single_memory_keep_later_lines_indented() -> None:
    """Trial 21: a precedent's reasoning and hypotheses, and get_memory, wrote them at column 0."""
    decision = {
        "kind": "decision",
        "memory_id": "d1",
        "version": 1,
        "content": "Wait\nfor teardown",
    }
    reasoning = {
        "trace_id": "t1",
        "task": "Why is it flaky?\n(asked in standup)",
        "conclusion": "port reused\nso wait",
        "hypotheses": [{"step": 1, "content": "a leak\nasync", "status": "hypothesis"}],
    }
    text = render_lineage.precedents({"items": [{"decision": decision, "reasoning": [reasoning]}]})
    lines = text.splitlines()
    assert lines[1].startswith("1. [decision] Wait")
    assert not [line for line in lines[2:] if not line.startswith(" ")], text
    assert render.record(decision).startswith("[decision] Wait\n  for teardown (id d1")


def test_a_challenge_of_a_decision_no_longer_in_force_says_so() -> None:
    """Trial 22: a superseded ADR's challenge gave no hint that the decision had ended."""
    memory = {"kind": "decision", "memory_id": "d1", "version": 2, "content": "Use Redis"}
    ended = {"memory": {**memory, "valid_to": "2024-11-20T00:00:00+00:00"}, "traces": []}
    assert "This decision no longer holds (valid to 2024-11-20" in render_lineage.challenge(ended)
    later = {"memory": {**memory, "valid_to": "2999-01-01T00:00:00+00:00"}, "traces": []}
    assert "no longer holds" not in render_lineage.challenge(later)
    assert "no longer holds" not in render_lineage.challenge({"memory": memory, "traces": []})


def test_a_challenge_of_another_kind_says_nothing_was_written() -> None:
    """Trial 24: challenging a fact answered a lineage as if it had worked."""
    fact = {"kind": "fact", "memory_id": "f1", "version": 1, "content": "Postgres 16"}
    assert "this fact was not changed" in render_lineage.challenge({"memory": fact, "traces": []})
    decision = {**fact, "kind": "decision"}
    assert "was not changed" not in render_lineage.challenge({"memory": decision, "traces": []})


WHY = {
    "fusion": "weighted",
    "fused": 0.83,
    "lexical": {"bm25": 3.1, "normalised": 0.7, "contribution": 0.42},
    "vector": {"similarity": 0.8, "normalised": 0.775, "contribution": 0.31},
    "task": {"similarity": 0.6, "normalised": 0.5, "contribution": 0.1},
    "neighbours": None,
    "identified": None,
    "matched_terms": ["upload", "test"],
    "context_terms": ["rows"],
}


def test_an_explained_item_says_why_in_one_line() -> None:
    """Trial 24: MCP recall had no `explain`; the text says why, not the raw dict."""
    item = {"kind": "fact", "memory_id": "f1", "version": 1, "content": "x", "explain": WHY}
    text = render.ranked({"items": [item]}, "recall")
    assert text.splitlines()[2] == (
        "   why: lexical 0.42 (matched: upload, test; via context: rows), vector 0.31, task 0.10"
    )
    assert "why:" not in render.ranked({"items": [{**item, "explain": None}]}, "recall")
    rrf = {
        **WHY,
        "lexical": None,
        "vector": {"similarity": 0.81, "normalised": None, "contribution": None},
        "task": None,
        "matched_terms": [],
        "context_terms": [],
        "identified": 0,
    }
    assert render.why_line(rrf) == (
        "why: no lexical match, vector similarity 0.81, lacks the number asked about"
    )
    trace = {"kind": "reasoning", "trace_id": "t1", "task": "t", "steps": [], "explain": WHY}
    assert render.ranked({"items": [trace]}, "search").splitlines()[2].startswith("   why: ")


def _version(n: int, content: str, **more: object) -> dict[str, object]:
    return {"memory_id": "d1", "version": n, "kind": "decision", "content": content, **more}


def test_a_lineage_writes_a_version_text_only_when_it_changed() -> None:
    """Trial 24: 4 versions and 3 traces wrote a decision's text in every line (8.5k chars)."""
    text = "Use a lock around the temp directory " * 5
    versions = [
        _version(1, text),
        _version(2, text, status="challenged"),
        _version(3, text, status="active"),
        _version(4, "Give each worker its own directory"),
    ]
    traces = [
        {"trace_id": f"t{i}", "task": "why", "produced": [versions[i - 1], versions[3]]}
        for i in (1, 2, 3)
    ]
    answer = {"memory": versions[3], "versions": versions, "traces": traces}
    shown = render_lineage.lineage(answer)
    assert shown.count(text) == 1
    assert "\n  [decision] same text as v1 (id d1, v2, challenged," in shown
    assert "\n  [decision] same text as v1 (id d1, v3, active," in shown
    assert shown.count("Produced: [decision] same text as v1 (id d1, v") == 3
    assert shown.count("  Now: [decision] same text as v4 (id d1, v4,") == 3
    assert len(shown) < 1_800
    history = render_lineage.history({"items": versions, "count": 4})
    assert history.count(text) == 1 and history.startswith("Versions (4):")
    assert "\n2. [decision] same text as v1 (id d1, v2," in history
    back = [*versions, _version(5, text)]  # the first text again: written again
    assert render_lineage.history({"items": back}).count(text) == 2


def test_a_version_conflict_says_to_read_the_memory_again() -> None:
    conflict = BackendError(
        409, "memory.version_conflict", "memory d1 is at version 3, not 2", {"current_version": 3}
    )
    text = render.error(conflict)
    assert text.startswith("Refused: memory.version_conflict (HTTP 409): memory d1 is at version 3")
    assert "Read it again (get_memory)" in text
    assert "Read it again" not in render.error(BackendError(409, "conflict", "already"))
    assert render.updated(_version(3, "x"), 2).startswith("Updated: [decision] x (id d1, v3")
    assert render.updated(_version(2, "x"), 2).startswith("Nothing changed (same values): ")
