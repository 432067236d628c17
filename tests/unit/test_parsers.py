"""Unit tests of the ingestion parsers on the real corpus and on malformed input."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from service.domain.ingestion.formats import FormatError, adr_key, detect_format, openhands, parse
from service.domain.ingestion.formats.common import MAX_TEXT_CHUNK_CHARS
from service.domain.ingestion.formats.session import MAX_SESSION_OBSERVATION_CHARS
from service.domain.models import IngestUnit, StepKind, StepStatus
from service.tools import gate_report, gate_variants

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
TRAJ = CORPUS / "trajectories"
ADRS = CORPUS / "adrs"


@pytest.fixture(scope="module", autouse=True)
def _corpus_present() -> None:
    assert CORPUS.is_dir(), f"the shared corpus is missing at {CORPUS}"


@cache
def units_of(path: Path) -> tuple[IngestUnit, ...]:
    return tuple(parse(path.read_text(encoding="utf-8"), "auto", path.name))


def corpus_path(relative: str) -> Path:
    return CORPUS / relative


SWE_FILES = sorted(p.name for p in (TRAJ / "swe-agent").glob("*.traj")) if TRAJ.is_dir() else []
ADR_FILES = (
    sorted(p.relative_to(ADRS).as_posix() for p in ADRS.rglob("*.md") if p.name != "SOURCE.md")
    if ADRS.is_dir()
    else []
)


# --- format detection --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("trajectories/swe-agent/swe-agent__test-repo-i1.traj", "swe-agent"),
        ("trajectories/swe-agent/humanevalfix-python-0.traj", "swe-agent"),
        ("trajectories/swe-agent/ctf_misc_networking_1.traj", "swe-agent"),
        (
            "trajectories/swe-agent/marshmallow-1867_function_calling_replace_from_source.traj",
            "swe-agent",
        ),
        ("trajectories/react/FEVER_run_outputs.txt", "react"),
        ("trajectories/react/hotpotqa_prompts_naive.json", "react"),
        ("trajectories/openhands/basic.json", "openhands"),
        ("trajectories/openhands/basic_interactions.json", "openhands"),
        *((f"adrs/{name}", "adr") for name in ADR_FILES),
        ("adrs/SOURCE.md", "text"),
        ("trajectories/SOURCE.md", "text"),
    ],
)
def test_detect_format_on_the_corpus(relative: str, expected: str) -> None:
    path = corpus_path(relative)
    assert detect_format(path.read_text(encoding="utf-8"), path.name) == expected


@pytest.mark.parametrize(
    ("content", "name", "expected"),
    [
        ("Just some notes.\n\nAnother paragraph.", "notes.txt", "text"),
        ("Question: what?\nThought 1: think\nAction 1: Finish[x]\n", "run.txt", "react"),
        ('{"p": "Question: q\\nThought 1: t\\nAction 1: Finish[a]"}', "prompts.json", "react"),
        ('{"trajectory": []}', "x.traj", "swe-agent"),
        ('[{"id": 0, "action": "message", "source": "user"}]', "events.json", "openhands"),
        ("# T\n\n## Context\n\nWhy.\n\n## Decision\n\nWe do it.\n", "0001-t.md", "adr"),
        ("# Title\n\n## Decision\n\nonly one ADR heading\n", "notes.md", "text"),
    ],
)
def test_detect_format_on_small_inputs(content: str, name: str, expected: str) -> None:
    assert detect_format(content, name) == expected


# --- malformed input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "fmt", "name", "message"),
    [
        ("{}", "auto", "empty.json", "matches no known format"),
        ("[1, 2, 3]", "auto", "ints.json", "matches no known format"),
        ("{not json", "auto", "broken.json", "not valid JSON"),
        ('{"info": {}}', "swe-agent", "run.traj", "swe-agent: 'trajectory' is missing"),
        ('{"trajectory": {}}', "swe-agent", "run.traj", "'trajectory' must be a list"),
        ('{"trajectory": [{"thought": "t"}]}', "swe-agent", "run.traj", "has no 'action'"),
        ("[1, 2]", "openhands", "events.json", "openhands: event 0 is not an object"),
        ("[]", "openhands", "events.json", "openhands: the event list is empty"),
        ("\x00\x01\x02\x03garbage\x04\x05", "auto", "blob.bin", "looks binary"),
        ("\x00\x01\x02\x03garbage\x04\x05", "text", "blob.txt", "text: content looks binary"),
        ("", "text", "empty.txt", "text: content is empty"),
        ("just prose, no steps", "react", "x.txt", "react: no episode found"),
        ("# Title\n\nNo decision here.\n", "adr", "0001-x.md", "adr: "),
        ("whatever", "yaml", "x.yaml", "unknown format 'yaml'"),
    ],
)
def test_malformed_input_raises_format_error(
    content: str, fmt: str, name: str, message: str
) -> None:
    with pytest.raises(FormatError, match=re.escape(message)) as caught:
        parse(content, fmt, name)
    assert caught.value.code == "input.invalid_format"
    assert isinstance(caught.value, ValueError)


def test_traj_without_trajectory_fails_detection_too() -> None:
    with pytest.raises(FormatError, match="matches no known format"):
        parse('{"history": [], "info": {}}', "auto", "run.traj")


# --- SWE-agent ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SWE_FILES)
def test_swe_agent_step_counts_match_the_source(name: str) -> None:
    path = TRAJ / "swe-agent" / name
    raw = json.loads(path.read_text(encoding="utf-8"))
    (unit,) = units_of(path)
    assert unit.trace is not None
    n = len(raw["trajectory"])
    steps = unit.trace.steps
    assert len(steps) == 3 * n + 1
    assert len(unit.observations) == n
    assert [st.kind for st in steps[:-1]] == [
        StepKind.THOUGHT,
        StepKind.ACTION,
        StepKind.OBSERVATION,
    ] * n
    assert steps[-1].kind == StepKind.CONCLUSION
    for i, entry in enumerate(raw["trajectory"]):
        assert steps[3 * i].content == entry["thought"].strip()
        assert steps[3 * i + 1].content == entry["action"].strip()
        assert steps[3 * i + 2].cites == (f"obs:{i}",)
    submission = raw["info"]["submission"].strip()
    assert unit.trace.produced is not None
    assert unit.trace.produced.kind == "decision"
    assert unit.trace.produced.content == steps[-1].content
    if submission.startswith("diff"):  # the patch in words; the diff stays an observation
        changed = re.findall(r"^diff --git a/(\S+) b/", submission, re.MULTILINE)
        assert unit.trace.produced.content.startswith(f"Submitted patch to {changed[0]}")
        assert "diff --git" not in unit.trace.produced.content
        assert any(o.startswith(submission[:50]) for o in unit.observations)
    else:
        assert unit.trace.produced.content == f"Submitted: {submission}"


def test_swe_agent_long_observations_keep_head_and_tail_and_are_counted() -> None:
    path = TRAJ / "swe-agent" / "marshmallow-1867_function_calling_replace_from_source.traj"
    raw = json.loads(path.read_text(encoding="utf-8"))
    (unit,) = units_of(path)
    longest = max(
        range(len(raw["trajectory"])), key=lambda i: len(raw["trajectory"][i]["observation"])
    )
    original = raw["trajectory"][longest]["observation"].strip()
    assert len(original) > MAX_SESSION_OBSERVATION_CHARS
    kept = unit.observations[longest]
    assert kept.startswith(original[:100]) and kept.endswith(original[-100:])
    assert "[trimmed: " in kept
    assert len(kept) < MAX_SESSION_OBSERVATION_CHARS + 100
    long = sum(
        len(e["observation"].strip()) > MAX_SESSION_OBSERVATION_CHARS for e in raw["trajectory"]
    )
    assert unit.extra["trimmed"] == long


def test_swe_agent_task_is_the_issue_text() -> None:
    (unit,) = units_of(TRAJ / "swe-agent" / "swe-agent__test-repo-i1.traj")
    assert unit.trace is not None
    assert unit.trace.task.startswith("SyntaxError: invalid syntax")
    assert "INSTRUCTIONS" not in unit.trace.task


def test_swe_agent_without_submission_reports_the_exit_status() -> None:
    content = json.dumps(
        {
            "trajectory": [
                {"thought": "look at the code", "action": "ls", "observation": "main.py"},
            ],
            "info": {"exit_status": "exit_cost"},
        }
    )
    (unit,) = parse(content, "swe-agent", "run.traj")
    assert unit.trace is not None
    assert unit.trace.produced is not None
    assert unit.trace.produced.kind == "observation"
    assert "exit_cost" in unit.trace.produced.content
    assert len(unit.trace.steps) == 4
    assert unit.observations == ("main.py",)


# --- ReAct -------------------------------------------------------------------------------------


def _fever() -> tuple[IngestUnit, ...]:
    return units_of(TRAJ / "react" / "FEVER_run_outputs.txt")


def test_fever_has_500_episodes() -> None:
    units = _fever()
    assert len(units) == 500
    assert all(u.trace is not None for u in units)
    assert len({u.key for u in units}) == 500
    raw = (TRAJ / "react" / "FEVER_run_outputs.txt").read_text(encoding="utf-8")
    claims = re.findall(r"^\d+ Claim: (.*)$", raw, re.MULTILINE)
    assert [u.trace.task for u in units if u.trace] == [c.strip() for c in claims]


def test_fever_step_counts_match_the_notebook_step_counter() -> None:
    # The notebook counts thought/action rounds; a finished episode shows `steps` rounds of
    # Thought/Action/Observation, the last observation its end marker ("Episode finished,
    # reward = 1": no step, kept in `extra`); an unfinished one hit the budget after
    # `steps - 1` rounds.
    for unit in _fever():
        assert unit.trace is not None
        if unit.extra["answer"]:
            assert len(unit.trace.steps) == 3 * unit.extra["steps"] - 1, unit.key
            assert unit.extra["end_marker"].startswith("Episode finished, reward = ")
        else:
            assert len(unit.trace.steps) == 3 * (unit.extra["steps"] - 1), unit.key


def test_fever_finish_maps_to_conclusion_and_answer() -> None:
    finished = unfinished = 0
    for unit in _fever():
        assert unit.trace is not None
        assert unit.trace.produced is not None
        kinds = [st.kind for st in unit.trace.steps]
        if unit.extra["answer"]:
            finished += 1
            assert kinds.count(StepKind.CONCLUSION) == 1
            assert unit.trace.produced.kind == "decision"
            assert unit.trace.produced.content.endswith(f"Answer: {unit.extra['answer']}")
        else:
            unfinished += 1
            assert StepKind.CONCLUSION not in kinds
            assert unit.trace.produced.kind == "observation"
        observations = [st for st in unit.trace.steps if st.kind == StepKind.OBSERVATION]
        assert [st.cites for st in observations] == [
            (f"obs:{i}",) for i in range(len(observations))
        ]
        assert len(unit.observations) == len(observations)
    assert (finished, unfinished) == (491, 9)


def test_fever_notebook_debug_blocks_are_skipped() -> None:
    unit = next(u for u in _fever() if u.extra.get("question_idx") == 3991)
    assert unit.trace is not None
    assert unit.extra["skipped_debug_lines"] > 0
    assert not any("ohh..." in st.content for st in unit.trace.steps)
    assert [st.kind for st in unit.trace.steps] == [
        StepKind.THOUGHT,
        StepKind.ACTION,
        StepKind.OBSERVATION,
        StepKind.THOUGHT,
        StepKind.CONCLUSION,
    ]


def test_hotpotqa_prompt_episodes_match_the_source() -> None:
    path = TRAJ / "react" / "hotpotqa_prompts_naive.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    units = units_of(path)
    traced = [u for u in units if u.trace is not None]
    expected_counts: list[int] = []
    for value in raw.values():
        if not re.search(r"^(?:Thought|Action) 1:", value, re.MULTILINE):
            continue
        for episode in re.split(r"^Question:", value, flags=re.MULTILINE)[1:]:
            expected_counts.append(
                len(re.findall(r"^(?:Thought|Action|Observation) \d+:", episode, re.MULTILINE))
            )
    assert len(traced) == len(expected_counts) == 23
    assert [len(u.trace.steps) for u in traced if u.trace] == expected_counts
    assert all(u.trace and u.trace.steps[-1].kind == StepKind.CONCLUSION for u in traced)
    # prompts without numbered steps are kept as text, never dropped
    assert {u.key.rsplit("-text-", 1)[0] for u in units if u.trace is None} == {
        k for k, v in raw.items() if not re.search(r"^(?:Thought|Action) 1:", v, re.MULTILINE)
    }


def test_react_invalid_finish_is_an_action_not_a_conclusion() -> None:
    content = (
        "Claim: X is Y.\nThought 1: search X\nAction 1: Search[X]\nObservation 1: X is Y.\n"
        "Thought 2: done\nAction 2: \n\nFinish[SUPPORTS]\nObservation 2: Invalid action: Finish\n"
    )
    (unit,) = parse(content, "react", "run.txt")
    assert unit.trace is not None
    assert [st.kind for st in unit.trace.steps].count(StepKind.CONCLUSION) == 0
    assert unit.trace.steps[4].content == "Finish[SUPPORTS]"


# --- OpenHands ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["basic.json", "basic_interactions.json"])
def test_openhands_step_counts_match_the_source(name: str) -> None:
    path = TRAJ / "openhands" / name
    events = json.loads(path.read_text(encoding="utf-8"))
    (unit,) = units_of(path)
    assert unit.trace is not None
    user_messages = sum(
        1 for e in events if e.get("source") == "user" and e.get("action") == "message"
    )
    agent_actions = [
        e
        for e in events
        if e.get("source") == "agent" and "action" in e and e["action"] != "finish"
    ]
    thoughts = sum(1 for e in agent_actions if (e.get("args") or {}).get("thought"))
    observations = sum(1 for e in events if "observation" in e)
    finish = sum(1 for e in events if e.get("action") == "finish")
    assert (
        len(unit.trace.steps)
        == (user_messages - 1) + thoughts + len(agent_actions) + observations + finish
    )
    assert unit.trace.task == events[0]["args"]["content"]
    assert unit.trace.steps[-1].kind == StepKind.CONCLUSION
    assert unit.trace.produced is not None
    assert unit.valid_from is not None
    assert unit.valid_from.tzinfo is not None


def test_openhands_observation_is_linked_to_its_cause() -> None:
    (unit,) = units_of(TRAJ / "openhands" / "basic.json")
    assert unit.trace is not None
    assert [st.kind for st in unit.trace.steps] == [
        StepKind.THOUGHT,
        StepKind.ACTION,
        StepKind.OBSERVATION,
        StepKind.CONCLUSION,
    ]
    assert unit.extra["observation_causes"] == {2: 1}
    assert unit.trace.steps[2].cites == ("obs:0",)


def test_openhands_later_user_messages_are_observations() -> None:
    (unit,) = units_of(TRAJ / "openhands" / "basic_interactions.json")
    assert unit.observations == (
        "User: No, I mean by Goldbach's conjecture!",
        "User: Finish please",
    )
    assert unit.trace is not None
    assert unit.trace.produced is not None
    assert "Goldbach" in unit.trace.produced.content


# --- ADRs --------------------------------------------------------------------------------------

# Counted from the files: (observations incl. drivers and preamble notes -- a lead-in ending
# with ":" one with the list or code it introduces --, options, chosen, steps, rejected options). Chosen options come from quoted names in the decision or an
# option's name contained in it; "Alternative Approaches" (CometBFT) are all rejected.
ADR_EXPECTED = {
    "apalache/012adr-adopt-adr-template.md": (3, 0, [], 5, 0),
    "apalache/013adr-configuration.md": (6, 7, [], 16, 0),
    "apalache/022adr-unification-of-configs-and-options.md": (3, 2, [], 7, 0),
    "backstage/adr013-use-node-fetch.md": (2, 0, [], 4, 0),
    "backstage/adr014-use-fetch.md": (1, 0, [], 3, 0),
    "cometbft/adr-109-reduce-go-api-surface.md": (2, 3, [], 15, 3),
    "cometbft/adr-114-undo-109.md": (5, 2, [], 13, 2),
    "jabref/0033-store-chats-in-mvstore.md": (3, 3, ["MVStore"], 10, 2),
    "jabref/0035-generate-embeddings-online.md": (3, 2, ["OpenAI embedding API"], 8, 1),
    "jabref/0037-rag-architecture-implementation.md": (
        6,
        4,
        ["Use a hand-crafted RAG", "Use a third-party Java library"],
        15,
        2,
    ),
    "jabref/0045-use-input-flag-always-for-input-files.md": (4, 2, 1, 12, 1),
    "jabref/0057-allow-positional-input-file-argument.md": (5, 3, 1, 14, 2),
    "log4brains/20200926-use-the-adr-number-as-its-unique-id.md": (1, 3, 1, 6, 2),
    "log4brains/20201016-use-the-adr-slug-as-its-unique-id.md": (1, 0, [], 2, 0),
    "madr/0008-add-status-field.md": (2, 6, ["Use YAML front matter"], 16, 5),
    "madr/0013-use-yaml-front-matter-for-meta-data.md": (2, 2, ["Use YAML front matter"], 7, 1),
    "tournesol/2021-12-12_create_an_adl.md": (5, 2, 1, 11, 1),
}


def test_all_adrs_are_covered() -> None:
    assert sorted(ADR_EXPECTED) == ADR_FILES
    assert len(ADR_FILES) == 17


@pytest.mark.parametrize("relative", sorted(ADR_EXPECTED))
def test_adr_mapping_matches_the_source(relative: str) -> None:
    n_obs, n_options, chosen, n_steps, n_rejected = ADR_EXPECTED[relative]
    path = ADRS / relative
    (unit,) = units_of(path)
    assert unit.trace is not None
    steps = unit.trace.steps
    assert unit.name == path.stem == unit.key
    assert len(unit.observations) == n_obs
    assert len(steps) == n_steps
    options = [i for i, st in enumerate(steps) if st.status == StepStatus.HYPOTHESIS]
    assert len(options) == n_options == len(unit.extra["options"])
    if isinstance(chosen, list):
        assert unit.extra["chosen"] == chosen
    else:
        assert len(unit.extra["chosen"]) == chosen
    rejected = {r for st in steps for r in st.rejects}
    assert len(rejected) == n_rejected
    for r in rejected:
        assert steps[r].status == StepStatus.HYPOTHESIS  # the store marks it rejected
        assert steps[r].content not in unit.extra["chosen"]
    assert steps[-1].kind == StepKind.CONCLUSION
    assert unit.trace.produced is not None
    assert unit.trace.produced.kind == "decision"
    assert unit.trace.produced.status == "active"
    assert unit.trace.produced.content.startswith(unit.title)
    assert unit.extra["unplaced_sections"] == []


def test_an_adr_numbered_only_by_its_file_name_says_its_number_and_joins_lead_ins() -> None:
    """Trials 17 and 19: "why was ADR 45 superseded" missed `0045-use-input-flag...md`
    (titled without its number), and "How source data is processed:" was an observation
    of its own, without the list it introduces."""
    (unit,) = units_of(ADRS / "jabref" / "0045-use-input-flag-always-for-input-files.md")
    assert unit.title.startswith("ADR 45: Use `--input` Flag")
    assert unit.trace is not None and unit.trace.task == unit.title
    (unit,) = units_of(ADRS / "jabref" / "0037-rag-architecture-implementation.md")
    steps = [o for o in unit.observations if o.startswith("RAG architecture consists of")]
    assert len(steps) == 1, unit.observations  # with the lead-in after it and its list
    assert "\nHow source data is processed:\n1. Indexing:" in steps[0]  # numbered as written
    kept = {
        "apalache/012adr-adopt-adr-template.md": "ADR 12: Adopt an ADR Template",  # was ADR-012
        "log4brains/20200926-use-the-adr-number-as-its-unique-id.md": "Use the ADR number",
        "tournesol/2021-12-12_create_an_adl.md": "Architecture Knowledge Management",
    }
    for relative, title in kept.items():  # a number in the title already, or a date
        (unit,) = units_of(ADRS / relative)
        assert unit.title.startswith(title), unit.title


def test_adr_without_level_one_title_takes_the_front_matter_title() -> None:
    (unit,) = units_of(ADRS / "backstage" / "adr014-use-fetch.md")
    assert unit.title == "ADR 14: Proper use of HTTP fetching libraries"  # written ADR014
    (unit,) = units_of(ADRS / "backstage" / "adr013-use-node-fetch.md")
    assert "superseded by ADR014" in unit.observations[0]


def test_adr_metadata_tables_status_lines_and_changelogs() -> None:
    (unit,) = units_of(ADRS / "apalache" / "013adr-configuration.md")
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2022-08-15"
    (unit,) = units_of(ADRS / "tournesol" / "2021-12-12_create_an_adl.md")
    assert unit.extra["status"].lower() == "accepted"
    assert unit.extra["chosen"][0].startswith("creating the A.D.L.")
    (unit,) = units_of(ADRS / "cometbft" / "adr-114-undo-109.md")
    assert unit.extra["status"].startswith("Accepted")
    assert unit.extra["status_history"] == ["2024-04-25: First draft (@adizere)"]


def test_adr_in_a_what_why_how_template_with_a_metadata_table() -> None:
    content = (
        "# RFC 7: Cache sessions in Redis\n\n| Status | Accepted |\n|---|---|\n"
        "| Supersedes | RFC-3 |\n| Date | 2023-05-02 |\n\n## What\n\nWe cache sessions in "
        "Redis with a one hour TTL.\n\n## Why\n\nSession reads dominate database load.\n\n"
        "## Goals\n\n- p99 login under 50 ms\n\n## How\n\nA write-through cache in the "
        "session service.\n\n## Alternatives\n\n- Memcached: no persistence\n- Keep the "
        "database: too slow\n\n## Team notes\n\nDiscussed on 2023-04-30.\n"
    )
    (unit,) = parse(content, "auto", "0007-cache-sessions.md")
    assert unit.extra["format"] == "adr"
    assert unit.supersedes == ("3",)
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2023-05-02"
    assert unit.extra["status"] == "Accepted"
    assert unit.extra["options"] == ["Memcached: no persistence", "Keep the database: too slow"]
    assert unit.extra["unplaced_sections"] == ["Team notes"]
    assert "Team notes: Discussed on 2023-04-30." in unit.observations
    assert unit.trace is not None
    steps = unit.trace.steps
    assert steps[-1].content == "We cache sessions in Redis with a one hour TTL."
    assert {r for st in steps for r in st.rejects} == {2, 3}  # the alternatives, not chosen


def test_a_y_statement_without_a_decision_section_is_still_an_adr() -> None:
    content = (
        "# ADR 4: Logging\n\n## Summary\n\nIn the context of on-call debugging, facing "
        "scattered logs, we decided for structured JSON logs to achieve searchable incidents, "
        "accepting larger log volume.\n\n## Context\n\nLogs are free text today.\n"
    )
    (unit,) = parse(content, "auto", "adr-4-logging.md")
    assert unit.extra["format"] == "adr"
    assert unit.trace is not None
    assert "we decided for structured JSON logs" in unit.trace.steps[-1].content


def test_adr_supersession_pairs_are_detected_from_both_sides() -> None:
    def unit(relative: str) -> IngestUnit:
        return units_of(ADRS / relative)[0]

    old = unit("jabref/0045-use-input-flag-always-for-input-files.md")
    new = unit("jabref/0057-allow-positional-input-file-argument.md")
    assert adr_key(new.name or "") in old.superseded_by
    assert adr_key(old.name or "") in new.supersedes
    old = unit("log4brains/20200926-use-the-adr-number-as-its-unique-id.md")
    new = unit("log4brains/20201016-use-the-adr-slug-as-its-unique-id.md")
    assert adr_key(new.name or "") in old.superseded_by
    assert adr_key(old.name or "") in new.supersedes
    others = [
        u for r in ADR_FILES for u in units_of(ADRS / r) if "0045" not in r and "0057" not in r
    ]
    assert sum(bool(u.supersedes or u.superseded_by) for u in others) == 4
    assert unit("backstage/adr013-use-node-fetch.md").superseded_by == ("14",)
    assert unit("cometbft/adr-114-undo-109.md").supersedes == ("109",)  # "Partly Undo ADR 109"
    assert unit("cometbft/adr-109-reduce-go-api-surface.md").superseded_by == ()
    builds_on = unit("apalache/022adr-unification-of-configs-and-options.md")
    assert builds_on.extra["amends"] == ["13"] and builds_on.supersedes == ()


def test_adr_dates_become_valid_from() -> None:
    (unit,) = units_of(ADRS / "log4brains" / "20201016-use-the-adr-slug-as-its-unique-id.md")
    assert unit.valid_from is not None
    assert unit.valid_from.isoformat() == "2020-10-16T00:00:00+00:00"


@pytest.mark.parametrize(
    ("reference", "key"),
    [
        ("ADR-0057", "57"),
        ("0057-allow-positional-input-file-argument", "57"),
        ("docs/decisions/0057-allow-positional-input-file-argument.md", "57"),
        ("adr 0045", "45"),
        ("20201016-use-the-adr-slug-as-its-unique-id", "20201016"),
        ("use-postgres", "use-postgres"),
    ],
)
def test_adr_key_normalises_references(reference: str, key: str) -> None:
    assert adr_key(reference) == key


def test_nygard_adr_with_status_section() -> None:
    content = (
        "# 12. Use PostgreSQL\n\n## Status\n\nSuperseded by ADR-0019\n\n## Context\n\n"
        "We need a relational database for orders.\n\n## Decision\n\n"
        "We will use PostgreSQL for orders.\n\n## Consequences\n\nOps must learn it.\n"
    )
    (unit,) = parse(content, "auto", "0012-use-postgresql.md")
    assert unit.superseded_by == ("19",)
    assert unit.trace is not None
    assert [st.kind for st in unit.trace.steps] == [
        StepKind.OBSERVATION,
        StepKind.THOUGHT,
        StepKind.CONCLUSION,
    ]
    assert unit.trace.steps[1].content == "Consequences: Ops must learn it."
    assert unit.extra["unplaced_sections"] == []


# --- text --------------------------------------------------------------------------------------


def test_text_is_chunked_on_paragraph_boundaries() -> None:
    paragraphs = [f"Paragraph {i}: " + "word " * 150 for i in range(12)]
    units = parse("\n\n".join(paragraphs), "text", "notes.txt")
    assert len(units) > 1
    assert all(u.trace is None and len(u.observations) == 1 for u in units)
    chunks = [u.observations[0] for u in units]
    assert all(len(c) <= MAX_TEXT_CHUNK_CHARS for c in chunks)
    rejoined = "\n\n".join(chunks)
    assert [p.strip() for p in rejoined.split("\n\n")] == [p.strip() for p in paragraphs]
    assert [u.key for u in units] == [f"chunk-{i}" for i in range(len(units))]


def test_text_paragraph_longer_than_a_chunk_is_split() -> None:
    long_paragraph = "\n".join(f"line {i} " + "x" * 90 for i in range(60))
    units = parse(long_paragraph, "text", "log.txt")
    assert len(units) >= 3
    assert all(len(u.observations[0]) <= MAX_TEXT_CHUNK_CHARS for u in units)
    assert "".join(u.observations[0].replace("\n", "") for u in units) == long_paragraph.replace(
        "\n", ""
    )


# --- the quality gate on the real corpus -------------------------------------------------------


@pytest.fixture(scope="module")
def gate_results() -> list[gate_report.CaseResult]:
    return gate_report.run(CORPUS)


def test_real_traces_pass_and_broken_variants_are_rejected(
    gate_results: list[gate_report.CaseResult],
) -> None:
    originals = [r for r in gate_results if r.variant == "original"]
    session_traces = sum(
        1
        for path in sorted((CORPUS / "sessions").rglob("*"))
        if path.is_file() and path.name != "SOURCE.md"
        for u in units_of(path)
        if u.trace is not None
    )
    # sessions/: 28 + 9 aider, 1 + 2 + 5 claude-code, 2 + 2 codex, 22 + 3 terminal
    assert session_traces == 74
    assert len(originals) == 4 + 500 + 23 + 2 + session_traces + 17
    wrong = gate_report.exceptions(gate_results)
    assert wrong == [], wrong[:10]
    summary = gate_report.summarize(gate_results)
    assert summary.precision == 1.0
    assert summary.recall == 1.0


@pytest.mark.parametrize(
    ("variant", "code"),
    [
        ("loop", "circular"),
        ("no_evidence", "unsupported_conclusion"),
        ("concludes_rejected", "concludes_rejected"),
    ],
)
def test_each_variant_is_rejected_for_its_own_reason(
    gate_results: list[gate_report.CaseResult], variant: str, code: str
) -> None:
    of_variant = [r for r in gate_results if r.variant == variant]
    assert of_variant
    missing = [(r.file, r.unit, r.codes) for r in of_variant if code not in r.codes]
    assert missing == []


def test_report_rows_aggregate_multi_trace_files(
    gate_results: list[gate_report.CaseResult],
) -> None:
    rows = gate_report.rows(gate_results)
    fever = [r for r in rows if r.file.endswith("FEVER_run_outputs.txt")]
    assert [r.variant for r in fever] == list(gate_variants.VARIANTS)
    assert all(r.units == 500 and r.misses == 0 for r in fever)
    text = gate_report.render_plain(
        rows, gate_report.summarize(gate_results), gate_report.exceptions(gate_results)
    )
    assert "precision" in text
    assert "recall" in text


def test_a_finished_openhands_run_produces_a_decision_as_a_session_does() -> None:
    (unit,) = units_of(TRAJ / "openhands" / "basic.json")
    assert unit.trace is not None and unit.trace.produced is not None
    assert unit.trace.produced.kind == "decision"
    assert unit.trace.produced.status == "active"
    assert unit.trace.produced.content.startswith("I've created a simple implementation")
    task = {"id": 0, "action": "message", "source": "user", "args": {"content": "Add 1 and 1"}}
    reply = {"id": 1, "action": "message", "source": "agent", "args": {"content": "It is 2."}}
    thanks = {"id": 2, "action": "finish", "source": "agent", "args": {"thought": "All done!"}}
    unfinished = openhands.parse(json.dumps([task, reply]), "e.json")[0].trace
    assert unfinished is not None and unfinished.produced is not None
    assert unfinished.produced.kind == "observation"  # no finish: the run did not conclude
    chatter = openhands.parse(json.dumps([task, thanks]), "e.json")[0].trace
    assert chatter is not None and chatter.produced is not None
    assert chatter.produced.kind == "observation"  # "All done!" decides nothing
