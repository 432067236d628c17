"""Ingestion of handed-in material (issue 6): units, sources, supersession, limits, failures.

Every file under corpus/trajectories and corpus/adrs is ingested for real (real Neo4j, real
model). Step counts are checked against the source's own structure, as the parsers document
it (`service/domain/ingestion/formats/`).
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from service.domain.ingestion.formats import parse
from service.domain.ingestion.formats.openhands import (
    OPENHANDS_SKIPPED_ACTIONS,
    OPENHANDS_SKIPPED_OBSERVATIONS,
)
from tests.conftest import Tenant
from tests.factories import memory

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
TRAJ = CORPUS / "trajectories"
ADRS = CORPUS / "adrs"
SESSIONS = CORPUS / "sessions"
CCVIEWER_NAME = "ccviewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
FEVER = TRAJ / "react" / "FEVER_run_outputs.txt"
MARSHMALLOW = TRAJ / "swe-agent" / "marshmallow-1867_function_calling_replace_from_source.traj"
#: FEVER and marshmallow have their own tests (they are the slow, large ones).
SMALL_FILES = sorted(
    p.relative_to(CORPUS).as_posix()
    for p in [*TRAJ.rglob("*"), *ADRS.rglob("*.md"), *SESSIONS.rglob("*")]
    if p.is_file() and p.name != "SOURCE.md" and p not in (FEVER, MARSHMALLOW)
)
PAIRS = {
    "jabref": (
        "adrs/jabref/0045-use-input-flag-always-for-input-files.md",
        "adrs/jabref/0057-allow-positional-input-file-argument.md",
    ),
    "log4brains": (
        "adrs/log4brains/20200926-use-the-adr-number-as-its-unique-id.md",
        "adrs/log4brains/20201016-use-the-adr-slug-as-its-unique-id.md",
    ),
    # stated only by the older record ("superseded by [ADR014]" in an admonition)
    "backstage": ("adrs/backstage/adr013-use-node-fetch.md", "adrs/backstage/adr014-use-fetch.md"),
    # stated only by the newer record's title ("Partly Undo ADR 109")
    "cometbft": (
        "adrs/cometbft/adr-109-reduce-go-api-surface.md",
        "adrs/cometbft/adr-114-undo-109.md",
    ),
}
#: Pairs whose older record says itself that it is superseded (status, title or admonition).
SELF_SUPERSEDED = {"jabref", "log4brains", "backstage"}
#: The format each sessions/ folder must be detected as.
SESSION_FORMATS = {
    "claude-code-jsonl": "claude-code",
    "codex-rollout-jsonl": "codex",
    "aider-chat-history": "aider",
    "terminal-transcripts": "terminal",
}


@pytest.fixture(scope="module", autouse=True)
def _corpus_present() -> None:
    assert TRAJ.is_dir(), f"the shared corpus is missing at {CORPUS}"
    assert ADRS.is_dir(), f"the shared corpus is missing at {CORPUS}"


def ingest(t: Tenant, relative: str, fmt: str = "auto") -> Any:
    path = CORPUS / relative
    return t.post(
        "/v1/ingest",
        json={"format": fmt, "content": path.read_text(encoding="utf-8"), "source_name": path.name},
    )


def ingest_ok(t: Tenant, relative: str) -> dict[str, Any]:
    r = ingest(t, relative)
    assert r.status_code in (200, 201), r.text
    return r.json()  # type: ignore[no-any-return]


def cypher(driver: Driver, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = driver.execute_query(query, params)
    return [r.data() for r in records]


def counts(driver: Driver, namespace: str) -> tuple[int, int]:
    nodes = cypher(driver, "MATCH (n {namespace: $ns}) RETURN count(n) AS c", ns=namespace)[0]["c"]
    rels = cypher(driver, "MATCH (n {namespace: $ns})-[r]->() RETURN count(r) AS c", ns=namespace)[
        0
    ]["c"]
    return nodes, rels


def stored_steps(driver: Driver, namespace: str) -> dict[str, int]:
    """unit key -> number of stored steps of the trace drawn from it (checked equal to step_count)."""
    rows = cypher(
        driver,
        """MATCH (t:ReasoningTrace {namespace: $ns})-[r:EXTRACTED_FROM]->(:Source)
           UNWIND r.units AS unit
           RETURN unit, t.step_count AS step_count, COUNT { (t)-[:HAS_STEP]->(:ReasoningStep) } AS steps,
                  COUNT { (t)-[:HAS_STEP]->()-[:NEXT]->() } AS next""",
        ns=namespace,
    )
    for row in rows:
        assert row["steps"] == row["step_count"], row
        assert row["next"] == row["steps"] - 1, row
    return {row["unit"]: row["steps"] for row in rows}


# --- the source's own structure (the parsers' documented mapping) ------------------------------


_TAG = re.compile(r"^(Thought|Action|Observation) \d+:")
#: The environment's end-of-episode marker: no step (kept in the unit's `extra`).
_END_MARKER = re.compile(r"^Observation \d+: Episode finished")


def react_tagged_lines(text: str, start: re.Pattern[str]) -> list[int]:
    """Tagged lines per episode; a line starting `ohh...` opens a notebook debug block up to the next Thought.

    An ``Observation n: Episode finished, ...`` end marker is no step.
    """
    per_episode: list[int] = []
    in_debug = False
    for line in text.splitlines():
        if start.match(line):
            per_episode.append(0)
            in_debug = False
        elif per_episode:
            if line.startswith("ohh..."):
                in_debug = True
                continue
            tag = _TAG.match(line)
            if _END_MARKER.match(line):
                continue
            if tag and not (in_debug and tag.group(1) != "Thought"):
                in_debug = False
                per_episode[-1] += 1
    return per_episode


def expected_steps(relative: str) -> dict[str, int]:
    """unit key -> step count, from the raw file."""
    path = CORPUS / relative
    text = path.read_text(encoding="utf-8")
    stem = path.name.rsplit(".", 1)[0]
    if relative.startswith("trajectories/swe-agent/"):
        return {stem: 3 * len(json.loads(text)["trajectory"]) + 1}
    if relative.startswith("trajectories/openhands/"):
        events = json.loads(text)
        actions = [
            e for e in events if "action" in e and e["action"] not in OPENHANDS_SKIPPED_ACTIONS
        ]
        user_messages = [
            e for e in actions if e.get("source") == "user" and e["action"] == "message"
        ]
        user_other = [e for e in actions if e.get("source") == "user" and e["action"] != "message"]
        agent = [e for e in actions if e.get("source") != "user"]
        finish = [e for e in agent if e["action"] == "finish"]
        non_finish = [e for e in agent if e["action"] != "finish"]
        with_thought = [e for e in non_finish if (e.get("args") or {}).get("thought")]
        observations = [
            e
            for e in events
            if "observation" in e and e["observation"] not in OPENHANDS_SKIPPED_OBSERVATIONS
        ]
        n = (
            (len(user_messages) - 1)
            + len(user_other)
            + len(with_thought)
            + len(non_finish)
            + len(observations)
            + (1 if finish else 0)
        )
        return {stem: n}
    if relative.endswith("FEVER_run_outputs.txt"):
        per = react_tagged_lines(text, re.compile(r"^\s*\d+\s+(Claim|Question):"))
        return {f"episode-{i}": n for i, n in enumerate(per, 1)}
    if relative.endswith("hotpotqa_prompts_naive.json"):
        out: dict[str, int] = {}
        for key, prompt in json.loads(text).items():
            if re.search(r"^(Thought|Action) \d+:", prompt, re.MULTILINE):
                per = react_tagged_lines(prompt, re.compile(r"^\s*(?:\d+\s+)?(Question|Claim):"))
                out.update({f"{key}-{i}": n for i, n in enumerate(per, 1) if n})
        return out
    raise AssertionError(f"no structural count for {relative}")


#: Headings of option sections across the ADR templates of the corpus.
OPTION_HEADINGS = re.compile(
    r"^(#{2,4}) (?:Considered Options|Options|Alternatives|Alternative Approaches|Positions)\s*$",
    re.MULTILINE | re.IGNORECASE,
)


def adr_options(text: str) -> int:
    """Options listed under option headings: list items that are not bare links, or `(n)` paragraphs."""
    count = 0
    for heading in OPTION_HEADINGS.finditer(text):
        level = len(heading.group(1))
        rest = text[heading.end() :]
        end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
        body = rest[: end.start()] if end else rest
        items = re.findall(r"^(?:[*-]|\d+\.) +(.+)$", body, re.MULTILINE)
        items = [
            i for i in items if not re.fullmatch(r"\W*(?:https?://\S+|\[[^\]]*\]\([^)]*\))\W*", i)
        ]
        count += len(items) or len(re.findall(r"^\(\d+\) ", body, re.MULTILINE))
    return count


# --- every corpus file ------------------------------------------------------------------------


@pytest.mark.parametrize("relative", SMALL_FILES)
def test_every_corpus_file_ingests(tenant: Tenant, neo4j_driver: Driver, relative: str) -> None:
    path = CORPUS / relative
    units = parse(path.read_text(encoding="utf-8"), "auto", path.name)
    r = ingest(tenant, relative)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["new"] is True
    assert body["status"] == "complete"
    assert body["chunks"] == {"ok": len(units), "failed": 0, "refused": 0}
    assert [u["key"] for u in body["units"]] == [u.key for u in units]
    assert all(u["status"] == "ok" and u["error"] is None for u in body["units"])
    with_trace = [u for u in units if u.trace is not None]
    # units telling the same reasoning (a prompt file repeats its examples) share one trace
    assert len(body["trace_ids"]) == body["created"]["reasoning"] <= len(with_trace)
    assert sum(1 for u in body["units"] if u["trace_id"]) == len(with_trace)
    assert {u["trace_id"] for u in body["units"] if u["trace_id"]} == set(body["trace_ids"])
    assert {q["unit"] for q in body["quality"]} == {u.key for u in with_trace}
    assert all(
        q["verdict"] in ("accepted", "poor", "rejected") and 0 <= q["score"] <= 1
        for q in body["quality"]
    )

    # stored steps: one per parsed step, in order, and as many as the source's own structure says
    steps = stored_steps(neo4j_driver, tenant.namespace)
    assert steps == {u.key: len(u.trace.steps) for u in with_trace if u.trace}
    if relative.startswith("adrs/"):
        (_unit,) = units
        trace = tenant.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
        hypotheses = [
            s
            for s in trace["steps"]
            if s["kind"] == "thought" and s["status"] in ("hypothesis", "rejected")
        ]
        assert len(hypotheses) == adr_options(path.read_text(encoding="utf-8"))
        assert trace["steps"][-1]["kind"] == "conclusion"
        # one decision (a deprecated or superseded record's is closed since: its latest too)
        assert {(p["kind"], p["memory_id"]) for p in trace["produced"]} == {
            ("decision", trace["produced"][0]["memory_id"])
        }
    elif relative.startswith("sessions/"):
        # counts against the source's structure: tests/unit/test_sessions.py; here: every
        # request with agent work is a trace that produced a decision, the format as expected
        assert body["format"] == SESSION_FORMATS[relative.split("/")[1]]
        assert body["detection"]["signals"]
        assert all(u["steps"] == steps[u["key"]] for u in body["units"] if u["key"] in steps)
        # identical conclusions ("Please add the file to the chat") are one decision (idempotent)
        distinct = {
            " ".join(u.trace.produced.content.split())
            for u in with_trace
            if u.trace and u.trace.produced
        }
        assert body["created"].get("decision", 0) == len(distinct)
    else:
        assert steps == expected_steps(relative)

    # everything drawn is EXTRACTED_FROM the one source, and written by origin ingestion
    rows = cypher(
        neo4j_driver,
        """MATCH (m:Memory {namespace: $ns})
           OPTIONAL MATCH (m)-[:EXTRACTED_FROM]->(s:Source)
           RETURN m.memory_id AS memory_id, m.kind AS kind, m.version AS version, m.created_by_origin AS origin,
                  m.last_modified_by_origin AS modified, collect(s.uid) AS sources""",
        ns=tenant.namespace,
    )
    assert {row["origin"] for row in rows} == {"ingestion"} == {row["modified"] for row in rows}
    assert all(row["sources"] == [body["source_id"]] for row in rows if row["version"] == 1)
    assert {row["memory_id"] for row in rows if row["kind"] != "reasoning"} == set(
        body["memory_ids"]
    )
    assert {row["memory_id"] for row in rows if row["kind"] == "reasoning"} == set(
        body["trace_ids"]
    )
    source = cypher(
        neo4j_driver, "MATCH (s:Source {namespace: $ns}) RETURN s {.*} AS s", ns=tenant.namespace
    )
    assert len(source) == 1
    s = source[0]["s"]
    assert (s["name"], s["size_bytes"], s["status"], s["unit_count"]) == (
        path.name,
        path.stat().st_size,
        "complete",
        len(units),
    )
    assert s["uid"] == body["source_id"]
    assert len(s["sha256"]) == 64
    assert {"valid_from", "system_from"} <= set(s)


def test_fever_transcript_500_episodes(tenant: Tenant, neo4j_driver: Driver) -> None:
    started = time.monotonic()
    r = ingest(tenant, "trajectories/react/FEVER_run_outputs.txt")
    elapsed = time.monotonic() - started
    assert r.status_code == 201, r.text
    body = r.json()
    print(f"\nFEVER: {len(body['units'])} units in {elapsed:.1f} s (server {body['elapsed_s']} s)")
    assert body["format"] == "react"
    assert body["size_bytes"] == FEVER.stat().st_size
    assert body["chunks"] == {"ok": 500, "failed": 0, "refused": 0}, [
        u for u in body["units"] if u["status"] != "ok"
    ]
    assert len(body["units"]) == 500 == len(body["quality"])
    assert all(u["trace_id"] and u["memory_ids"] for u in body["units"])
    # Two episodes of the run are the same reasoning word for word, yet two runs: each cites
    # its own observations (an observation's episode and position are part of it), so each is
    # a trace of its own (recall collapses such copies into one item).
    assert len(body["trace_ids"]) == len({u["trace_id"] for u in body["units"]}) == 500
    assert stored_steps(neo4j_driver, tenant.namespace) == expected_steps(
        "trajectories/react/FEVER_run_outputs.txt"
    )
    verdicts = Counter(q["verdict"] for q in body["quality"])
    assert sum(verdicts.values()) == 500
    # the notebook's own result line says how each episode ended: em=1 episodes produced an answer
    finished = [u for u in body["units"] if u["title"].startswith("Claim:")]
    assert len(finished) == 500


def test_large_function_calling_trajectory(tenant: Tenant, neo4j_driver: Driver) -> None:
    relative = MARSHMALLOW.relative_to(CORPUS).as_posix()
    body = ingest_ok(tenant, relative)
    assert body["chunks"] == {"ok": 1, "failed": 0, "refused": 0}
    assert body["size_bytes"] == MARSHMALLOW.stat().st_size > 380_000
    ((unit_key, steps),) = stored_steps(neo4j_driver, tenant.namespace).items()
    assert {unit_key: steps} == expected_steps(relative) == {MARSHMALLOW.stem: 40}
    trace = tenant.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
    assert [s["index"] for s in trace["steps"]] == list(range(40))
    assert trace["source_id"] == body["source_id"]


# --- lineage, re-ingest -------------------------------------------------------------------------


def test_lineage_of_an_ingested_decision(tenant: Tenant) -> None:
    relative = "trajectories/swe-agent/swe-agent__test-repo-i1.traj"
    body = ingest_ok(tenant, relative)
    trace = tenant.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
    decision = trace["produced"][0]
    assert decision["kind"] == "decision"
    assert decision["created_by"]["origin"] == "ingestion"
    lineage = tenant.get(f"/v1/memories/{decision['memory_id']}/lineage")
    assert lineage.status_code == 200, lineage.text
    (lt,) = lineage.json()["traces"]
    n = len(json.loads((CORPUS / relative).read_text())["trajectory"])
    assert [s["index"] for s in lt["steps"]] == list(range(3 * n + 1))
    assert [s["kind"] for s in lt["steps"][:3]] == ["thought", "action", "observation"]
    assert lt["created_by"]["origin"] == "ingestion"
    assert lt["created_by"]["actor"] == "tester"
    # each observation step cites the observation memory drawn from the same trajectory entry
    cited = [c["memory_id"] for s in lt["steps"] if s["kind"] == "observation" for c in s["cites"]]
    assert len(cited) == n
    assert set(cited) <= set(body["memory_ids"])
    for memory_id in set(cited):
        obs = tenant.get(f"/v1/memories/{memory_id}").json()
        assert obs["kind"] == "observation"
        assert obs["created_by"]["origin"] == "ingestion"


def test_reingest_is_a_no_op(tenant: Tenant, neo4j_driver: Driver) -> None:
    relative = "trajectories/react/hotpotqa_prompts_naive.json"
    first = ingest(tenant, relative)
    assert first.status_code == 201, first.text
    before = counts(neo4j_driver, tenant.namespace)
    again = ingest(tenant, relative)
    assert again.status_code == 200, again.text
    a, b = first.json(), again.json()
    assert b["new"] is False
    assert b["created"] == {}
    assert b["source_id"] == a["source_id"]
    assert set(b["memory_ids"]) == set(a["memory_ids"])
    assert b["trace_ids"] == a["trace_ids"]
    assert [
        (u["key"], u["status"], u["trace_id"], sorted(u["memory_ids"])) for u in b["units"]
    ] == [(u["key"], u["status"], u["trace_id"], sorted(u["memory_ids"])) for u in a["units"]]
    assert [(q["unit"], q["verdict"], q["score"], q["issues"]) for q in b["quality"]] == [
        (q["unit"], q["verdict"], q["score"], q["issues"]) for q in a["quality"]
    ]
    assert counts(neo4j_driver, tenant.namespace) == before
    # a different declared format does not split the source: the stored format is used
    third = tenant.post(
        "/v1/ingest",
        json={
            "format": "text",
            "content": (CORPUS / relative).read_text(),
            "source_name": "other.json",
        },
    )
    assert third.status_code == 200
    assert third.json()["format"] == "react"
    assert third.json()["source_id"] == a["source_id"]
    assert counts(neo4j_driver, tenant.namespace) == before


UNDATED_DEPRECATED_ADR = """# ADR 9: Use Redis cache

## Status

Deprecated

## Context

Sessions were kept in the application servers' memory and were lost on every deploy.

## Decision

We will keep sessions in a Redis cache shared by the application servers.
"""


@pytest.mark.parametrize(
    ("fmt", "content"),
    [
        ("adr", UNDATED_DEPRECATED_ADR),  # its decision is closed at ingestion: no duplicate check
        ("swe-agent", (CORPUS / "trajectories/swe-agent/swe-agent__test-repo-i1.traj").read_text()),
    ],
    ids=["undated-deprecated-adr", "swe-agent-trajectory"],
)
def test_the_same_content_under_another_name_writes_nothing(
    tenant: Tenant, neo4j_driver: Driver, fmt: str, content: str
) -> None:
    # A fresh-user trial: units are keyed by the file's stem, so the second name made new units
    # and wrote the decision, its observation and its trace again (200, new: false).
    first = tenant.post(
        "/v1/ingest", json={"format": fmt, "content": content, "source_name": "first.md"}
    )
    assert first.status_code == 201, first.text
    before = counts(neo4j_driver, tenant.namespace)
    again = tenant.post(
        "/v1/ingest", json={"format": "auto", "content": content, "source_name": "renamed.txt"}
    )
    assert again.status_code == 200, again.text
    a, b = first.json(), again.json()
    assert (b["new"], b["created"], b["source_id"]) == (False, {}, a["source_id"])
    assert b["trace_ids"] == a["trace_ids"]
    assert set(b["memory_ids"]) == set(a["memory_ids"])  # read back, not in write order
    assert b["source_name"] == "first.md"
    assert [u["key"] for u in b["units"]] == [u["key"] for u in a["units"]]
    assert [q["unit"] for q in b["quality"]] == [q["unit"] for q in a["quality"]]
    assert counts(neo4j_driver, tenant.namespace) == before


@pytest.mark.parametrize(
    ("path", "copy"),
    [
        (ADRS / "jabref/0035-generate-embeddings-online.md", lambda t: t.replace("\n", "\r\n")),
        (SESSIONS / "codex-rollout-jsonl/codemie-synthetic-turn-2.jsonl", lambda t: t + "\r\n"),
        (TRAJ / "openhands/basic.json", lambda t: "\ufeff" + t.rstrip() + "  \n\n"),
        (SESSIONS / "claude-code-jsonl" / CCVIEWER_NAME, lambda t: "\n\n" + t),
    ],
    ids=[
        "adr-crlf",
        "codex-final-newline",
        "openhands-bom-and-trailing-space",
        "claude-code-leading-blank-lines",
    ],
)
def test_the_same_text_in_other_bytes_under_another_name_writes_nothing(
    tenant: Tenant, neo4j_driver: Driver, path: Path, copy: Any
) -> None:
    """Trial 13: renamed, and with CRLF line endings or a final newline added, the copy was a
    new source (other bytes) whose units sat in another episode (its name): every trace again."""
    content = path.read_text(encoding="utf-8")
    first = tenant.post(
        "/v1/ingest", json={"format": "auto", "content": content, "source_name": path.name}
    )
    assert first.status_code == 201, first.text
    before = counts(neo4j_driver, tenant.namespace)
    again = tenant.post(
        "/v1/ingest",
        json={"format": "auto", "content": copy(content), "source_name": "mirror/" + path.name},
    )
    assert again.status_code == 200, again.text
    a, b = first.json(), again.json()
    assert (b["new"], b["created"], b["source_id"]) == (False, {}, a["source_id"])
    assert b["trace_ids"] == a["trace_ids"]
    assert counts(neo4j_driver, tenant.namespace) == before


# --- ADR supersession ---------------------------------------------------------------------------


@pytest.mark.parametrize("newer_first", [False, True], ids=["older-first", "newer-first"])
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_adr_supersession_across_requests(
    tenant: Tenant, neo4j_driver: Driver, pair: str, newer_first: bool
) -> None:
    older_file, newer_file = PAIRS[pair]
    order = [newer_file, older_file] if newer_first else [older_file, newer_file]
    bodies = {f: ingest_ok(tenant, f) for f in order}
    second = bodies[order[1]]
    older_id = tenant.get(f"/v1/reasoning/{bodies[older_file]['trace_ids'][0]}").json()["produced"][
        0
    ]["memory_id"]
    newer_id = tenant.get(f"/v1/reasoning/{bodies[newer_file]['trace_ids'][0]}").json()["produced"][
        0
    ]["memory_id"]
    assert second["supersedes"] == [
        {"memory_id": newer_id, "supersedes_memory_id": older_id, "unit": Path(order[1]).stem}
    ]
    assert bodies[order[0]]["supersedes"] == []

    newer = tenant.get(f"/v1/memories/{newer_id}").json()
    assert newer["valid_to"] is None
    assert newer["system_to"] is None
    assert newer["status"] == "active"
    assert newer["metadata"]["adr_name"] in ("57", "20201016", "14", "114")
    history = tenant.get(f"/v1/memories/{older_id}/history").json()["items"]
    # An older record that says itself it is superseded is closed when it is ingested, at that
    # time (it does not say since when); its successor, ingested later, closes it again at its
    # own earlier date (log4brains: dated records) -- a third version. Why it ended: metadata.
    says_itself = pair in SELF_SUPERSEDED and not newer_first
    corrected = says_itself and pair == "log4brains"
    assert [v["version"] for v in history] == ([1, 2, 3] if corrected else [1, 2])
    closed = history[-1]
    assert closed["system_to"] is None
    assert closed["valid_to"] is not None
    assert closed["status"] == "active"  # a status says how a decision stands while it holds
    assert closed["metadata"]["adr_closed"] == {
        "because": "superseded",
        "by": "its own status"
        if says_itself and not corrected
        else f"ADR {newer['metadata']['adr_name']}",
    }
    assert closed["created_by"]["origin"] == "ingestion"
    assert closed["last_modified_by"]["origin"] == "ingestion"
    if pair == "log4brains":
        assert closed["valid_from"].startswith("2020-09-26")
        assert closed["valid_to"].startswith("2020-10-16")
        assert closed["valid_to"] == newer["valid_from"]
    else:
        assert closed["valid_to"] > closed["valid_from"]
    # valid today: the newer one, not the older one
    assert (
        tenant.get(f"/v1/memories/{older_id}", params={"as_of": "2099-01-01T00:00:00Z"}).status_code
        == 404
    )
    assert (
        tenant.get(f"/v1/memories/{newer_id}", params={"as_of": "2099-01-01T00:00:00Z"}).status_code
        == 200
    )

    links = cypher(
        neo4j_driver,
        """MATCH (n:Decision {namespace: $ns})-[s:SUPERSEDES]->(o:Decision {namespace: $ns})
           WHERE n.memory_id <> o.memory_id
           RETURN n.memory_id AS newer, o.memory_id AS older, o.uid AS old_uid, s.origin AS origin""",
        ns=tenant.namespace,
    )
    assert [(x["newer"], x["older"], x["old_uid"], x["origin"]) for x in links] == [
        (newer_id, older_id, closed["uid"], "ingestion")
    ]

    # idempotent: repeating both ingests changes nothing
    before = counts(neo4j_driver, tenant.namespace)
    for f in order:
        assert ingest(tenant, f).status_code == 200
    assert counts(neo4j_driver, tenant.namespace) == before


def test_adr_chain_lineage_read_back(tenant: Tenant) -> None:
    older, newer = PAIRS["backstage"]
    bodies = {f: ingest_ok(tenant, f) for f in (older, newer)}
    trace = tenant.get(f"/v1/reasoning/{bodies[older]['trace_ids'][0]}").json()
    older_id = trace["produced"][0]["memory_id"]
    lineage = tenant.get(f"/v1/memories/{older_id}/lineage").json()
    assert [v["version"] for v in lineage["versions"]] == [1, 2]
    assert lineage["versions"][-1]["valid_to"] is not None
    assert [t["trace_id"] for t in lineage["traces"]] == bodies[older]["trace_ids"]
    assert lineage["traces"][0]["steps"][-1]["kind"] == "conclusion"
    assert bodies[newer]["supersedes"][0]["supersedes_memory_id"] == older_id


def test_adr_builds_on_is_an_amends_link(tenant: Tenant, neo4j_driver: Driver) -> None:
    base, builds_on = (
        "adrs/apalache/013adr-configuration.md",
        "adrs/apalache/022adr-unification-of-configs-and-options.md",
    )
    bodies = {f: ingest_ok(tenant, f) for f in (builds_on, base)}

    def decision(f: str) -> str:
        trace = tenant.get(f"/v1/reasoning/{bodies[f]['trace_ids'][0]}").json()
        memory_id: str = trace["produced"][0]["memory_id"]
        return memory_id

    # the weaker AMENDS link: reported once (when the base came second), nothing closed
    assert bodies[builds_on]["amends"] == []
    assert bodies[base]["amends"] == [
        {
            "memory_id": decision(builds_on),
            "amends_memory_id": decision(base),
            "unit": "013adr-configuration",
        }
    ]
    assert bodies[base]["supersedes"] == bodies[builds_on]["supersedes"] == []
    rows = cypher(
        neo4j_driver,
        """MATCH (n:Decision {namespace: $ns})-[a:AMENDS]->(o:Decision {namespace: $ns})
           RETURN n.memory_id AS newer, o.memory_id AS older, o.valid_to AS valid_to, a.origin AS origin""",
        ns=tenant.namespace,
    )
    assert [(r["newer"], r["older"], r["valid_to"], r["origin"]) for r in rows] == [
        (decision(builds_on), decision(base), None, "ingestion")
    ]
    history = tenant.get(f"/v1/memories/{decision(base)}/history").json()["items"]
    assert [v["version"] for v in history] == [1]
    before = counts(neo4j_driver, tenant.namespace)
    for f in (builds_on, base):
        assert ingest(tenant, f).status_code == 200
    assert counts(neo4j_driver, tenant.namespace) == before


def test_a_planted_secret_never_reaches_neo4j(
    tenant: Tenant, neo4j_driver: Driver, tmp_path: Path
) -> None:
    secrets = {
        "api_key": "sk-proj-" + "Q7vX2mN9pL4kR8sT1wY6zA3bC5dE0fG",
        "github_token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "aws_access_key": "AKIA" + "QWERTYUIOPASDFGH",
        "assignment": "hunter2" + "Secret99",
    }
    source = SESSIONS / "claude-code-jsonl" / "ccviewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if '"type":"assistant"' in line.replace(" ", ""))
    record = json.loads(lines[first])
    planted = (
        f"export OPENAI_API_KEY={secrets['api_key']} GH={secrets['github_token']} "
        f"AWS={secrets['aws_access_key']} and password={secrets['assignment']}\n"
    )
    record["message"]["content"] = [
        {"type": "text", "text": planted},
        *record["message"]["content"],
    ]
    lines[first] = json.dumps(record)
    copy = tmp_path / f"{source.stem}-with-secrets.jsonl"
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")

    r = tenant.post(
        "/v1/ingest",
        json={
            "format": "auto",
            "content": copy.read_text(encoding="utf-8"),
            "source_name": copy.name,
        },
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["format"] == "claude-code"
    assert body["redacted"] == dict.fromkeys(secrets, 1)
    assert body["redacted_total"] == 4
    found = cypher(
        neo4j_driver,
        """MATCH (n {namespace: $ns})
           WITH n, [k IN keys(n) WHERE any(s IN $secrets WHERE any(
               v IN (CASE WHEN n[k] IS :: LIST<ANY> THEN n[k] ELSE [n[k]] END)
               WHERE toString(v) CONTAINS s))] AS hits
           WHERE size(hits) > 0
           RETURN labels(n) AS labels, hits""",
        ns=tenant.namespace,
        secrets=list(secrets.values()),
    )
    assert found == []
    stored = cypher(
        neo4j_driver,
        "MATCH (n {namespace: $ns}) WHERE n.content CONTAINS '[REDACTED:' RETURN count(n) AS n",
        ns=tenant.namespace,
    )
    assert stored[0]["n"] >= 1  # the redacted text itself was stored


# --- limits and malformed input -----------------------------------------------------------------


def test_over_the_limit_is_refused_before_parsing(
    tenant: Tenant, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = tenant.client.app.state.services.settings  # type: ignore[attr-defined]
    monkeypatch.setattr(settings, "max_ingest_bytes", 100)
    # 60 characters but 120 UTF-8 bytes: the limit is in bytes; the content is not even valid JSON
    r = tenant.post(
        "/v1/ingest", json={"format": "swe-agent", "content": "é" * 60, "source_name": "x.traj"}
    )
    assert r.status_code == 413, r.text
    assert r.json()["code"] == "input.too_large"
    assert "100" in r.json()["detail"]
    ok = tenant.post(
        "/v1/ingest", json={"format": "text", "content": "a" * 100, "source_name": "fits.txt"}
    )
    assert ok.status_code == 201, ok.text
    monkeypatch.undo()
    assert cypher(
        neo4j_driver, "MATCH (s:Source {namespace: $ns}) RETURN s.name AS name", ns=tenant.namespace
    ) == [{"name": "fits.txt"}]


@pytest.mark.parametrize(
    ("fmt", "content", "name", "message"),
    [
        ("auto", '{"trajectory": [', "broken.traj", "not valid JSON"),
        ("swe-agent", "{not json", "broken.traj", "swe-agent: not valid JSON"),
        ("auto", '{"foo": 1}', "data.json", "matches no known format"),
        ("swe-agent", '{"info": {}}', "run.traj", "'trajectory' is missing"),
        ("adr", "# Title\n\nNo decision here.\n", "0001-x.md", "adr:"),
        ("claude-code", '{"type":"user"}\n{bad', "s.jsonl", "claude-code:"),
        ("terminal", "garbage", "t.md", "terminal:"),
        ("aider", "garbage", "h.md", "aider:"),
    ],
)
def test_malformed_material_is_422_and_writes_nothing(
    tenant: Tenant, neo4j_driver: Driver, fmt: str, content: str, name: str, message: str
) -> None:
    r = tenant.post("/v1/ingest", json={"format": fmt, "content": content, "source_name": name})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid_format"
    assert message in r.json()["detail"]
    assert counts(neo4j_driver, tenant.namespace) == (0, 0)


def test_unknown_format_is_422(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/ingest", json={"format": "yaml", "content": "a: 1", "source_name": "x.yaml"}
    )
    assert r.status_code == 422
    assert r.json()["code"] == "input.invalid"


def test_ingest_needs_the_ingest_scope(tenant: Tenant) -> None:
    key = tenant.key_with(["read", "write"])
    r = tenant.client.post(
        "/v1/ingest",
        json={"format": "text", "content": "hello", "source_name": "x.txt"},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert r.status_code == 403
    assert r.json()["code"] == "auth.forbidden"


# --- failures: reported per unit, never wedging, retried on re-ingest --------------------------

EPISODES = """Question: What is the capital of France?
Thought 1: I should look up France.
Action 1: Search[France]
Observation 1: France is a country in Western Europe whose capital is Paris.
Thought 2: The capital of France is Paris.
Action 2: Finish[Paris]
Observation 2: Episode finished, reward = 1

Question: What is the capital of Italy?
Thought 1: I should look up Italy {bad}.
Action 1: Search[Italy]
Observation 1: Italy is a country in Southern Europe whose capital is Rome.
Thought 2: The capital of Italy is Rome.
Action 2: Finish[Rome]
Observation 2: Episode finished, reward = 1

Question: What is the capital of Spain?
Thought 1: I should look up Spain.
Action 1: Search[Spain]
Observation 1: Spain is a country in Southern Europe whose capital is Madrid.
Thought 2: The capital of Spain is Madrid.
Action 2: Finish[Madrid]
Observation 2: Episode finished, reward = 1
"""


def test_a_failed_unit_is_reported_and_does_not_wedge(tenant: Tenant, neo4j_driver: Driver) -> None:
    # Episode 2 has a 40 000-character thought: over max_content_chars, so that unit fails alone.
    body = {
        "format": "react",
        "content": EPISODES.replace("{bad}", "word " * 8000),
        "source_name": "capitals.txt",
    }
    r = tenant.post("/v1/ingest", json=body)
    assert r.status_code == 201, r.text
    report = r.json()
    assert report["status"] == "partial"
    assert report["chunks"] == {"ok": 2, "failed": 1, "refused": 0}
    assert [u["status"] for u in report["units"]] == ["ok", "failed", "ok"]
    failed = report["units"][1]
    assert failed["key"] == "episode-2"
    assert failed["memory_ids"] == []
    assert failed["trace_id"] is None
    assert failed["error"].startswith("input.too_large:")
    assert "32768" in failed["error"]
    assert len(report["trace_ids"]) == 2

    # the service is not wedged: a small write right after works
    assert memory(tenant, "Written right after a failed unit")["created"] is True

    # re-ingest retries only the failed unit (it fails again): nothing duplicated
    before = counts(neo4j_driver, tenant.namespace)
    again = tenant.post("/v1/ingest", json=body)
    assert again.status_code == 200, again.text
    assert again.json()["new"] is False
    assert again.json()["created"] == {}
    assert [u["status"] for u in again.json()["units"]] == ["ok", "failed", "ok"]
    assert counts(neo4j_driver, tenant.namespace) == before
    source = cypher(
        neo4j_driver, "MATCH (s:Source {namespace: $ns}) RETURN s {.*} AS s", ns=tenant.namespace
    )[0]["s"]
    assert source["status"] == "partial"
    assert source["units_failed"] == ["episode-2"]
    assert source["attempts"] == 2


def test_reingest_retries_exactly_the_failed_units(
    tenant: Tenant, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = EPISODES.replace(" {bad}", "").replace(
        "Observation 2: Episode finished, reward = 1\n\nQuestion: What is the capital of Spain?",
        "Observation 2: Episode finished, reward = 1\nThought 3: Rome has been the capital since 1871.\n"
        "Action 3: Finish[Rome]\nObservation 3: Episode finished, reward = 1\n\nQuestion: What is the capital of Spain?",
    )
    body = {"format": "react", "content": content, "source_name": "capitals.txt"}
    reasoning = tenant.client.app.state.services.reasoning  # type: ignore[attr-defined]
    # Episode 2 has 7 steps (its "Episode finished" markers are no steps): it fails this time.
    monkeypatch.setattr(reasoning, "max_steps", 6)
    first = tenant.post("/v1/ingest", json=body)
    assert first.status_code == 201, first.text
    assert [u["status"] for u in first.json()["units"]] == ["ok", "failed", "ok"]
    assert "steps" in first.json()["units"][1]["error"]
    assert "input.too_large" in first.json()["units"][1]["error"]
    monkeypatch.undo()

    second = tenant.post("/v1/ingest", json=body)
    assert second.status_code == 200, second.text
    b = second.json()
    assert b["new"] is False
    assert b["status"] == "complete"
    assert [u["status"] for u in b["units"]] == ["ok", "ok", "ok"]
    assert b["created"]["reasoning"] == 1  # only episode 2 was written now
    a_units = first.json()["units"]
    assert [b["units"][i]["trace_id"] for i in (0, 2)] == [a_units[i]["trace_id"] for i in (0, 2)]
    assert stored_steps(neo4j_driver, tenant.namespace) == {
        "episode-1": 5,
        "episode-2": 7,
        "episode-3": 5,
    }
    source = cypher(
        neo4j_driver, "MATCH (s:Source {namespace: $ns}) RETURN s {.*} AS s", ns=tenant.namespace
    )[0]["s"]
    assert source["status"] == "complete"
    assert source["units_failed"] == []
    assert source["completed_at"] is not None


# --- the quality policy -------------------------------------------------------------------------

UNSUPPORTED = """Claim: The moon is made of cheese.
Thought 1: Everybody knows this.
Action 1: Finish[SUPPORTS]
Observation 1: Episode finished, reward = 0

Claim: Paris is the capital of France.
Thought 1: I should search Paris.
Action 1: Search[Paris]
Observation 1: Paris is the capital and largest city of France.
Thought 2: The observation says Paris is the capital of France, so the claim is supported.
Action 2: Finish[SUPPORTS]
Observation 2: Episode finished, reward = 1
"""


def test_poor_traces_are_annotated_and_kept_by_default(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/ingest", json={"format": "react", "content": UNSUPPORTED, "source_name": "claims.txt"}
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert [u["status"] for u in body["units"]] == ["ok", "ok"]
    first = body["quality"][0]
    assert first["unit"] == "episode-1"
    assert first["verdict"] == "rejected"
    assert "unsupported_conclusion" in first["issues"]
    trace = tenant.get(f"/v1/reasoning/{first['trace_id']}").json()
    assert trace["quality"]["verdict"] == "rejected"  # stored with its assessment, flagged, kept


def test_refuse_policy_refuses_the_unit_and_reports_it(
    tenant: Tenant, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = tenant.client.app.state.services.settings  # type: ignore[attr-defined]
    monkeypatch.setattr(settings, "ingestion_quality_policy", "refuse")
    body = {"format": "react", "content": UNSUPPORTED, "source_name": "claims.txt"}
    r = tenant.post("/v1/ingest", json=body)
    assert r.status_code == 201, r.text
    report = r.json()
    assert report["status"] == "complete"
    assert report["chunks"] == {
        "ok": 1,
        "failed": 0,
        "refused": 1,
    }
    refused = report["units"][0]
    assert refused["status"] == "refused"
    assert refused["trace_id"] is None
    assert refused["memory_ids"] == []
    assert "quality gate" in refused["error"]
    assert report["quality"][0]["unit"] == "episode-1"
    assert report["quality"][0]["trace_id"] is None
    assert "unsupported_conclusion" in report["quality"][0]["issues"]
    # nothing of the refused unit was written
    traces = cypher(
        neo4j_driver,
        "MATCH (t:ReasoningTrace {namespace: $ns}) RETURN t.task_text AS task",
        ns=tenant.namespace,
    )
    assert traces == [{"task": "Paris is the capital of France."}]
    # still refused on re-ingest while the policy holds, and nothing is written
    before = counts(neo4j_driver, tenant.namespace)
    again = tenant.post("/v1/ingest", json=body).json()
    assert [u["status"] for u in again["units"]] == ["refused", "ok"]
    assert again["quality"][0]["verdict"] == "rejected"
    assert counts(neo4j_driver, tenant.namespace) == before
