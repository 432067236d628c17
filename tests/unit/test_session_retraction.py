"""Unit tests from fresh-user trial 22: an agent's change of mind ("I was wrong about the
renderer", "floats are not the cause") rejects the earlier guess, which becomes a hypothesis."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.domain.ingestion.formats import parse_document
from service.domain.ingestion.formats.retraction import retracted_subjects
from service.domain.ingestion.formats.session import SessionTrace
from service.domain.models import StepKind, StepStatus, TraceDraft
from service.domain.quality import QualityThresholds
from service.tools.gate_report import assess_unit
from service.tools.gate_variants import VARIANTS


def _trace(fmt: str, text: str, name: str) -> TraceDraft:
    units = parse_document(text, fmt, name).units
    traces = [u.trace for u in units if u.trace is not None]
    assert len(traces) == 1
    return traces[0]


def _links(trace: TraceDraft) -> list[tuple[int, int]]:
    return [(i, r) for i, s in enumerate(trace.steps) for r in s.rejects]


def _claude_code(blocks: list[tuple[str, Any]]) -> str:
    lines = [{"type": "user", "message": {"role": "user", "content": "PDF export is slow."}}]
    for n, (role, content) in enumerate(blocks):
        if role == "assistant":
            block = (
                {"type": "thinking", "thinking": content}
                if content.startswith("(thinking) ")
                else {"type": "text", "text": content}
            )
            if content.startswith("$ "):
                block = {
                    "type": "tool_use",
                    "id": f"t{n}",
                    "name": "Bash",
                    "input": {"command": content[2:]},
                }
            lines.append(
                {"type": "assistant", "message": {"role": "assistant", "content": [block]}}
            )
        else:
            result = {"type": "tool_result", "tool_use_id": f"t{n - 1}", "content": content}
            lines.append({"type": "user", "message": {"role": "user", "content": [result]}})
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def _codex(items: list[dict[str, Any]]) -> str:
    request = "The invoice total is off by one cent. Fix it."
    lines: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": "x", "cwd": "/w", "originator": "codex_cli_rs"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": request}],
            },
        },
        {"type": "event_msg", "payload": {"type": "user_message", "message": request}},
    ]
    lines += [{"type": "response_item", "payload": item} for item in items]
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def _reasoning(text: str) -> dict[str, Any]:
    return {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]}


def _say(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


def _shell(call: str, command: str, output: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", command]}),
            "call_id": call,
        },
        {"type": "function_call_output", "call_id": call, "output": json.dumps({"output": output})},
    ]


def test_claude_code_i_was_wrong_about_rejects_the_plan_it_takes_back() -> None:
    """Trial 22: "I think we should switch the renderer" stayed asserted after "I was wrong
    about the renderer"."""
    text = _claude_code(
        [
            ("assistant", "(thinking) I think we should switch the renderer to wkhtmltopdf."),
            ("assistant", "$ python -m cProfile render.py"),
            ("user", "7.8 of 9.1 s in add_font_face (214 calls)"),
            (
                "assistant",
                "(thinking) Font subsetting takes the time. I was wrong about the renderer.",
            ),
            ("assistant", "I trimmed the @font-face rules; one invoice now renders in 0.8 s."),
        ]
    )
    trace = _trace("claude-code", text, "s.jsonl")
    assert _links(trace) == [(4, 1)]
    assert trace.steps[1].status == StepStatus.HYPOTHESIS
    assert trace.steps[4].kind == StepKind.THOUGHT
    assert trace.steps[-1].kind == StepKind.CONCLUSION and not trace.steps[-1].rejects


def test_codex_not_the_cause_rejects_the_suspicion() -> None:
    """Trial 22: "Suspecting float arithmetic" then "floats are not the cause", both asserted."""
    items = [
        _reasoning("**Suspecting float arithmetic**\n\nA float crept in somewhere, I guess."),
        *_shell("c1", "rg -n 'float\\(' billing", "billing/invoice.py:58: return round(x, 2)"),
        _say("No float() calls, so floats are not the cause. round() uses banker's rounding."),
        *_shell("c2", "pytest -q", "12 passed"),
        _say("Fixed: the total is quantized with ROUND_HALF_UP; all 12 tests pass."),
    ]
    trace = _trace("codex", _codex(items), "rollout-x.jsonl")
    assert _links(trace) == [(4, 1)]
    assert trace.steps[1].status == StepStatus.HYPOTHESIS
    assert [s.status for i, s in enumerate(trace.steps) if i != 1] == [StepStatus.ASSERTED] * (
        len(trace.steps) - 1
    )


def test_a_retraction_that_concludes_keeps_its_rejection() -> None:
    trace = SessionTrace(request="Why do the fixture tests fail?")
    trace.think("It's possible the book is in another fixture file.")
    trace.act("SearchText: 'Lao Tzu' within fixtures")
    trace.result("No matches found")
    trace.think("It seems I was wrong about the fixture files: the data is generated.")
    steps, produced = trace.finish()
    assert steps[-1].kind == StepKind.CONCLUSION
    assert steps[-1].rejects == (1,)
    assert steps[1].status == StepStatus.HYPOTHESIS
    assert produced is not None and produced.content == steps[-1].content


def test_aider_and_terminal_replies_retract_through_the_shared_trace() -> None:
    aider = (
        "# aider chat started at 2025-10-07 09:12:44\n\n"
        "#### the export is slow\n\n"
        "Maybe the cache is disabled. I'll enable it.\n\n"
        "src/export.py\n```python\n<<<<<<< SEARCH\nCACHE = False\n=======\nCACHE = True\n"
        ">>>>>>> REPLACE\n```\n\n"
        "> Applied edit to src/export.py\n\n"
        "#### but it is still slow\n\n"
        "I was wrong about the cache: the N+1 query in export_rows is the cause.\n\n"
    )
    trace = _trace("aider", aider, "h.aider.chat.history.md")
    ((by, rejected),) = _links(trace)
    assert trace.steps[rejected].content.startswith("Maybe the cache is disabled")
    assert trace.steps[rejected].status == StepStatus.HYPOTHESIS
    assert trace.steps[by].content.startswith("I was wrong about the cache")

    console = (
        "> The backup upload fails with AccessDenied.\n\n"
        "⏺ My guess is that the IAM key expired. Let me check the credentials.\n\n"
        "⏺ Bash(aws sts get-caller-identity)…\n  ⎿  arn:aws:iam::1:user/backup\n\n"
        "⏺ The IAM key is not the cause: the bucket policy denies PutObject.\n\n"
        "⏺ Bash(aws s3api get-bucket-policy --bucket b)…\n  ⎿  Deny s3:PutObject\n\n"
        "⏺ I removed the Deny statement from the bucket policy; the upload works again.\n"
    )
    trace = _trace("terminal", console, "day.txt")
    assert _links(trace) == [(4, 1)]
    assert trace.steps[1].status == StepStatus.HYPOTHESIS


@pytest.mark.parametrize(
    ("guess", "later"),
    [
        # the same words, no retraction
        ("I suspect the cache is stale.", "The cache TTL is 60 s, so I'll lower the cache TTL."),
        # a retraction only supposed
        ("Maybe the cache is stale.", "If the cache is not the cause, the query must be."),
        # a later thought confirming a negated guess
        ("Maybe the cache is not the problem here.", "The cache is not the problem."),
        # a plain statement, no guess: never made a hypothesis
        ("The cache is stale after deploys.", "The cache is not the cause."),
        # a plan to rule something out is no retraction
        ("Maybe the cache is stale.", "Let me rule out the cache first."),
        # a question retracts nothing
        ("Maybe the cache is stale.", "Is the cache not the problem?"),
        # a retraction about something else
        ("Maybe the cache is stale.", "I was wrong about the index name."),
    ],
)
def test_a_later_thought_that_retracts_nothing_rejects_nothing(guess: str, later: str) -> None:
    trace = SessionTrace(request="The export is slow.")
    trace.think(guess)
    trace.act("Bash: grep -n cache config.py")
    trace.result("12: CACHE_TTL = 60")
    trace.think(later)
    steps, _ = trace.finish()
    assert not any(s.rejects for s in steps)
    assert all(s.status == StepStatus.ASSERTED for s in steps)


def test_user_messages_and_tool_output_are_never_retracted() -> None:
    trace = SessionTrace(request="Maybe the cache is stale? The export is slow.")
    trace.think("Let me look at the settings.")
    trace.act("Bash: cat config.py")
    trace.result("# maybe the cache is stale\nCACHE_TTL = 60")
    trace.think("The cache is not the cause: the TTL is 60 s.")
    steps, _ = trace.finish()
    assert not any(s.rejects for s in steps)


def test_the_closest_matching_guess_is_rejected_once() -> None:
    trace = SessionTrace(request="The export is slow.")
    trace.think("Maybe the cache is stale.")
    trace.think("I suspect the stale cache again, or the query plan.")
    trace.act("Bash: grep -n cache config.py")
    trace.result("12: CACHE_TTL = 60")
    trace.think("The stale cache is not the cause.")
    trace.think("So the cache is ruled out; the query plan is next.")
    steps, _ = trace.finish()
    assert [(i, r) for i, s in enumerate(steps) for r in s.rejects] == [(5, 2), (6, 1)]


@pytest.mark.parametrize(
    ("text", "subjects"),
    [
        ("No float() calls, so floats are not the cause.", ["floats"]),
        ("I was wrong about the renderer.", ["the renderer"]),
        ("This rules out the cache.", ["the cache"]),
        ("Hmm, that's not it.", [None]),
        ("The cache has not been ruled out yet.", []),
        ("I see the hook is actually auto-fixing files, but commits aren't staged.", []),
        ("Actually, the hook doesn't stage files.", ["the hook"]),
    ],
)
def test_retracted_subjects(text: str, subjects: list[str | None]) -> None:
    assert [s.strip() if s else s for s in retracted_subjects(text)] == subjects


def test_the_gate_accepts_a_change_of_mind_and_refuses_concluding_the_rejected_guess() -> None:
    """A rejected guess must not fail a good trace; when the conclusion itself is the step that
    rejects (its rejection dropped by the variant), the variant still gets a rejected guess."""
    trace = SessionTrace(request="Why do the fixture tests fail for the Lao Tzu book?")
    trace.think("It's possible the Lao Tzu book is in another fixture file.")
    trace.act("SearchText: 'Lao Tzu' within fixtures")
    trace.result("No matches found for 'Lao Tzu' in the fixture files")
    trace.think("I was wrong about the fixture files: no fixture holds the Lao Tzu book.")
    unit = trace.unit("terminal", "t", 1, {})
    results = {r.variant: r for r in assess_unit(unit, QualityThresholds(), "t")}
    assert results["original"].verdict == "accepted"
    assert all(results[v].verdict == "rejected" for v in VARIANTS if v != "original")
    assert "concludes_rejected" in results["concludes_rejected"].codes


REACT = """Question: Why did the nightly backup take six hours on 2025-05-14?
Thought 1: Maybe the backup target (S3) was throttled. I should check S3 throttling metrics.
Action 1: Query[s3 SlowDown errors bucket=backups 2025-05-14]
Observation 1: 0 SlowDown responses on 2025-05-14; p99 PUT latency 84 ms, normal.
Thought 2: S3 was not throttling, so that is ruled out as well. My second hypothesis is clock drift on the host: the scheduler may start the job late, which cron would not log.
Action 2: Query[ntp offset host=db-orders-1]
Observation 2: offset 3 ms.
Thought 3: The clock is fine, so clock drift is not the cause. A VACUUM FULL ran at the same time.
Action 3: Finish[A VACUUM FULL ran during the backup window and saturated disk I/O.]
"""


def test_a_trajectory_marks_the_guesses_its_agent_takes_back() -> None:
    """Trial 23: trajectories said "that is ruled out as well", "clock skew is not the cause;
    that hypothesis is rejected", and every step stayed `asserted`."""
    doc = parse_document(REACT, "auto", "backup.txt")
    trace = doc.units[0].trace
    assert trace is not None
    marked = [(i, s.status, s.rejects) for i, s in enumerate(trace.steps) if s.kind == "thought"]
    assert marked == [
        (0, StepStatus.HYPOTHESIS, ()),
        (3, StepStatus.HYPOTHESIS, (0,)),
        (6, StepStatus.ASSERTED, (3,)),
    ]


@pytest.mark.parametrize(
    ("text", "subjects"),
    [
        ("S3 was not throttling, so that is ruled out as well.", [None]),
        (
            "It still fails, so clock skew is not the cause; that hypothesis is rejected.",
            ["clock skew"],
        ),
        ("The third idea was wrong.", [None]),
    ],
)
def test_retractions_of_a_trajectory(text: str, subjects: list[str | None]) -> None:
    assert [s.strip() if s else s for s in retracted_subjects(text)] == subjects


RETRACT_SHORT = """Question: Why does the nightly report job fail on the app-3 host?
Thought 1: Maybe the cron schedule overlaps with the vacuum job.
Action 1: Search[cron schedule app-3]
Observation 1: report runs at 02:00, vacuum runs at 04:00.
Thought 2: That is ruled out as well. The SMTP relay may reject the report mail.
Action 2: Search[mail log app-3]
Observation 2: smtp relay: 550 sender rejected for reports@app-3
Action 3: Finish[The SMTP relay rejects the sender reports@app-3; allow it on the relay]
"""

GIVE_UP = """Question: Why is the staging cluster's DNS resolution slow?
Thought 1: I should check the resolver configuration.
Action 1: Search[resolv.conf staging]
Observation 1: nameserver 10.0.0.2, options timeout:5 attempts:3
Thought 2: I could not find why it is slow.
Action 2: Finish[I cannot determine the cause]
"""


def test_a_short_retraction_after_an_action_takes_back_the_guess_before() -> None:
    """Trial 25: in ReAct an action and an observation always stand between a guess and "That
    is ruled out as well.", which names nothing, so it retracted nothing."""
    trace = parse_document(RETRACT_SHORT, "auto", "report.txt").units[0].trace
    assert trace is not None
    thoughts = [(i, s.status, s.rejects) for i, s in enumerate(trace.steps) if s.kind == "thought"]
    assert thoughts == [(0, StepStatus.HYPOTHESIS, ()), (3, StepStatus.ASSERTED, (0,))]


def test_a_react_answer_that_gives_up_decides_nothing() -> None:
    """Trial 25: Finish[I cannot determine the cause] became an active decision."""
    trace = parse_document(GIVE_UP, "auto", "dns.txt").units[0].trace
    assert trace is not None and trace.produced is not None
    assert trace.produced.kind == "observation"
    assert "No answer: the agent gave up (I cannot determine the cause)" in trace.produced.content
