"""Ingestion findings of a fresh-user trial: invisible content, damaged JSON Lines, ADRs that say
they ended, chatter replies.

Real material from the shared corpus (read from ../shared, never copied), damaged in a temporary
copy where a finding needs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from tests.conftest import Tenant

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
SESSIONS = CORPUS / "sessions"
ADRS = CORPUS / "adrs"
CCVIEWER = SESSIONS / "claude-code-jsonl" / "ccviewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
CODEX = (
    SESSIONS
    / "codex-rollout-jsonl"
    / "codemie-rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
)


def post(t: Tenant, content: str, name: str, fmt: str = "auto") -> Any:
    return t.post("/v1/ingest", json={"format": fmt, "content": content, "source_name": name})


def ingest_ok(t: Tenant, content: str, name: str, fmt: str = "auto") -> dict[str, Any]:
    r = post(t, content, name, fmt)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def nodes(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (n {namespace: $ns}) RETURN count(n) AS c", {"ns": namespace}
    )
    return int(records[0]["c"])


def document_warnings(body: dict[str, Any]) -> list[str]:
    """The document's warnings as stated: `<code>` or `<code>: <detail>`."""
    warnings = [w for w in body["warnings"] if w["unit"] is None]
    assert all(": " not in w["code"] for w in warnings), warnings  # a bare code (trial 10)
    return [f"{w['code']}: {w['detail']}" if w["detail"] else w["code"] for w in warnings]


def decision_of(t: Tenant, body: dict[str, Any]) -> dict[str, Any]:
    trace = t.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
    memory_id = trace["produced"][0]["memory_id"]
    return t.get(f"/v1/memories/{memory_id}").json()  # type: ignore[no-any-return]


# --- 1. content that shows nothing -------------------------------------------------------------


@pytest.mark.parametrize(
    "content", ["\u200b\u200b\ufeff", " \u200b\n\u2060\t\ufeff ", "\u200d\u00ad\u200c"]
)
@pytest.mark.parametrize("fmt", ["auto", "text", "claude-code"])
def test_content_of_invisible_characters_is_empty(
    tenant: Tenant, neo4j_driver: Driver, content: str, fmt: str
) -> None:
    r = post(tenant, content, "blank.txt", fmt)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid_format"
    assert f"{fmt}: content is empty" in r.json()["detail"]
    assert nodes(neo4j_driver, tenant.namespace) == 0  # no :Source, nothing at all


def test_visible_text_among_invisible_characters_is_ingested(tenant: Tenant) -> None:
    body = ingest_ok(tenant, "\u200b\ufeffhello\u200b", "hello.txt")
    assert body["chunks"] == {"ok": 1, "failed": 0, "refused": 0}


# --- 2, 3. damaged JSON Lines sessions ---------------------------------------------------------


def test_a_corrupt_line_is_skipped_and_reported(tenant: Tenant) -> None:
    lines = CODEX.read_text(encoding="utf-8").splitlines()
    whole = ingest_ok(tenant, "\n".join(lines) + "\n", "clean.jsonl")
    damaged = list(lines)
    damaged[40] = damaged[40][: len(damaged[40]) // 2]  # a line cut mid-object, not the last
    damaged[41] = "this line is not JSON"
    body = ingest_ok(tenant, "\n".join(damaged) + "\n", CODEX.name)
    assert body["format"] == "codex"  # not ingest.fallback_to_text
    assert "ingest.fallback_to_text" not in document_warnings(body)
    (warning,) = document_warnings(body)
    assert warning.startswith("jsonl.lines_skipped: lines 41, 42 ")
    assert f"(2 of {len(lines)} lines)" in warning
    assert "corrupt lines skipped: 2" in body["detection"]["signals"]
    # still a session of traces, the same requests as the undamaged file
    assert [u["key"] for u in body["units"]] == [u["key"] for u in whole["units"]]
    assert len(body["trace_ids"]) == len(whole["trace_ids"]) == 2


def test_a_declared_session_skips_a_corrupt_line_too(tenant: Tenant) -> None:
    lines = CODEX.read_text(encoding="utf-8").splitlines()
    lines[10] = "{oops"
    body = ingest_ok(tenant, "\n".join(lines), CODEX.name, "codex")
    assert document_warnings(body) == [
        f"jsonl.lines_skipped: line 11 is not a valid JSON object and was skipped "
        f"(1 of {len(lines)} lines)"
    ]


def test_mostly_garbage_still_falls_back_to_text(tenant: Tenant) -> None:
    lines = CCVIEWER.read_text(encoding="utf-8").splitlines()
    garbage = [line if i % 3 else "{garbage " + str(i) for i, line in enumerate(lines)]
    body = ingest_ok(tenant, "\n".join(garbage), CCVIEWER.name)
    assert body["format"] == "text"
    assert document_warnings(body) == ["ingest.fallback_to_text"]
    declared = [line if i % 2 else "{garbage " + str(i) for i, line in enumerate(lines)]
    r = post(tenant, "\n".join(declared), "declared.jsonl", "claude-code")
    assert r.status_code == 422, r.text
    assert r.json()["detail"].startswith("claude-code: line 1 is not valid JSON")


def test_a_cut_off_last_line_is_reported(tenant: Tenant) -> None:
    lines = CCVIEWER.read_text(encoding="utf-8").splitlines()
    cut = "\n".join([*lines[:-1], lines[-1][: len(lines[-1]) // 2]])
    body = ingest_ok(tenant, cut, CCVIEWER.name)
    assert body["format"] == "claude-code"
    assert document_warnings(body) == [
        f"jsonl.truncated_last_line: line {len(lines)} is cut off (truncated mid-object); "
        "what it held is lost"
    ]
    assert f"line {len(lines)} cut off" in body["detection"]["signals"]
    assert body["chunks"]["ok"] == len(body["units"]) >= 1


# --- 4. ADRs that say they ended ---------------------------------------------------------------

MADR = """---
status: {status}
date: 2023-03-01
---
# Use Redis for the session cache

## Context and Problem Statement

Sessions are lost when the app restarts.

## Decision Outcome

Chosen option: "Redis", because it survives restarts and is shared by all instances.
"""


def recalled_decisions(t: Tenant, query: str) -> list[str]:
    r = t.post("/v1/recall", json={"query": query, "kinds": ["decision"]})
    assert r.status_code == 200, r.text
    return [i["memory_id"] for i in r.json()["items"]]


@pytest.mark.parametrize(
    ("status", "ended"),
    [
        ("superseded by ADR-0012", "superseded"),
        ("Deprecated", "deprecated"),
        ("rejected", "rejected"),
        ("accepted", None),
    ],
)
def test_an_adr_that_says_it_ended_is_closed_in_valid_time(
    tenant: Tenant, status: str, ended: str | None
) -> None:
    body = ingest_ok(tenant, MADR.format(status=status), "0007-use-redis.md")
    decision = decision_of(tenant, body)
    # `status` is how a decision stands while it holds (active, challenged); a deprecated
    # record states a failure outcome, which challenges it (service/domain/ingestion/outcomes.py)
    assert decision["status"] == ("challenged" if ended == "deprecated" else "active")
    assert decision["metadata"]["adr_status"] == status
    found = recalled_decisions(tenant, "session cache Redis survives restarts")
    if ended is None:
        assert decision["valid_to"] is None
        assert "adr_closed" not in decision["metadata"]
        assert decision["memory_id"] in found
        return
    assert decision["version"] == (3 if ended == "deprecated" else 2)
    assert decision["metadata"]["adr_closed"] == {"because": ended, "by": "its own status"}
    assert decision["valid_from"].startswith("2023-03-01")
    if ended == "rejected":  # it never held
        assert decision["valid_to"] == "2023-03-01T00:00:00.000001Z"
    else:  # it held until some time the record does not give: ingestion's time
        assert decision["valid_to"] > "2025"
    assert decision["memory_id"] not in found  # not a current decision
    then = tenant.get(
        f"/v1/memories/{decision['memory_id']}", params={"as_of": "2023-06-01T00:00:00Z"}
    )
    assert then.status_code == (404 if ended == "rejected" else 200)


def test_a_rejected_adr_supersedes_nothing_and_a_future_date_is_no_failure(tenant: Tenant) -> None:
    accepted = decision_of(
        tenant, ingest_ok(tenant, MADR.format(status="accepted"), "0007-use-redis.md")
    )
    proposal = MADR.format(status="rejected; supersedes ADR-0007").replace("Redis", "Memcached")
    rejected = decision_of(tenant, ingest_ok(tenant, proposal, "0008-use-memcached.md"))
    assert rejected["metadata"]["adr_closed"]["because"] == "rejected"
    assert tenant.get(f"/v1/memories/{accepted['memory_id']}").json()["valid_to"] is None
    future = MADR.format(status="superseded").replace("2023-03-01", "2999-01-01")
    future = future.replace("Redis", "Valkey")
    later = decision_of(tenant, ingest_ok(tenant, future, "0009-use-redis-later.md"))
    assert later["valid_from"].startswith("2999-01-01")
    assert later["valid_to"] == "2999-01-01T00:00:00.000001Z"


@pytest.mark.parametrize(("status", "result"), [("Deprecated", "failure"), ("superseded", "mixed")])
def test_an_outcome_the_material_dates_in_the_future_is_skipped_and_reported(
    tenant: Tenant, neo4j_driver: Driver, status: str, result: str
) -> None:
    # POST .../outcomes refuses an `observed_at` in the future (422); ingestion recorded the
    # outcome a record dated 2999 states, and a deprecated one challenged its decision now.
    future = MADR.format(status=status).replace("2023-03-01", "2999-01-01")
    body = ingest_ok(tenant, future, "0011-use-redis-in-2999.md")
    [unit] = body["units"]
    assert unit["status"] == "ok" and unit["error"] is None, unit
    assert body["chunks"] == {"ok": 1, "failed": 0, "refused": 0}
    [skipped] = [w for w in unit["warnings"] if w.startswith("ingest.outcome_in_future: ")]
    assert f"the {result} outcome the material states" in skipped
    assert "2999-01-01T00:00:00Z is in the future" in skipped
    code, detail = skipped.split(": ", 1)
    assert {"code": code, "detail": detail, "unit": unit["key"]} in body["warnings"]
    # the rest of the unit is written: its trace and its decision, closed as the record says
    decision = decision_of(tenant, body)
    assert decision["status"] == "active"  # not challenged by an outcome still to come
    assert decision["valid_from"].startswith("2999-01-01")
    assert decision["metadata"]["adr_closed"]["by"] == "its own status"
    assert tenant.get(f"/v1/memories/{decision['memory_id']}/outcomes").json()["count"] == 0
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (:Decision {namespace: $ns})-[r:HAD_OUTCOME]->() RETURN count(r) AS c",
        {"ns": tenant.namespace},
    )
    assert records[0]["c"] == 0
    assert set(body["memory_ids"]) == set(unit["memory_ids"])
    assert decision["memory_id"] in body["memory_ids"]


@pytest.mark.parametrize("newer_first", [False, True], ids=["older-first", "newer-first"])
def test_the_superseded_jabref_adr_is_no_current_decision(
    tenant: Tenant, newer_first: bool
) -> None:
    older, newer = (
        ADRS / "jabref" / "0045-use-input-flag-always-for-input-files.md",
        ADRS / "jabref" / "0057-allow-positional-input-file-argument.md",
    )
    order = [newer, older] if newer_first else [older, newer]
    bodies = {p: ingest_ok(tenant, p.read_text(encoding="utf-8"), p.name) for p in order}
    old = decision_of(tenant, bodies[older])
    new = decision_of(tenant, bodies[newer])
    assert old["valid_to"] is not None
    assert old["metadata"]["adr_closed"]["because"] == "superseded"
    assert old["metadata"]["adr_superseded_by"] == ["57"]
    assert new["valid_to"] is None
    assert "adr_closed" not in new["metadata"]
    found = recalled_decisions(tenant, "use the --input flag consistently for input files")
    assert old["memory_id"] not in found


# --- 5. chatter is no decision -----------------------------------------------------------------


def test_chatter_replies_are_no_decisions(tenant: Tenant, neo4j_driver: Driver) -> None:
    for path in (
        SESSIONS / "codex-rollout-jsonl" / "codemie-synthetic-turn-2.jsonl",
        SESSIONS / "aider-chat-history" / "aider-example-complex-change.md",
    ):
        body = ingest_ok(tenant, path.read_text(encoding="utf-8"), path.name)
        chatter = [u for u in body["units"] if "session.chatter_reply" in u["warnings"]]
        assert chatter, path.name
        for unit in chatter:  # kept as a trace, concluded by the reply, producing nothing
            assert unit["status"] == "ok"
            trace = tenant.get(f"/v1/reasoning/{unit['trace_id']}").json()
            assert trace["produced"] == []
            assert trace["steps"][-1]["kind"] == "conclusion"
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (d:Decision {namespace: $ns}) RETURN d.content AS content", {"ns": tenant.namespace}
    )
    contents = [r["content"] for r in records]
    assert contents  # the aider session's real decisions are kept
    for said in ("I'm glad the changes worked", "I am Codex", "I can work with many"):
        assert not any(c.startswith(said) for c in contents), said
    for query in ("I am Codex, an AI coding assistant", "glad the changes worked for you"):
        r = tenant.post("/v1/precedents", json={"situation": query})
        assert r.status_code == 200, r.text
        found = [i["decision"]["content"] for i in r.json()["items"]]
        assert not any(c.startswith(("I am Codex", "I'm glad", "I can work")) for c in found)
        assert not any(
            c.startswith(("I am Codex", "I'm glad", "I can work"))
            for c in (
                i.get("content") or ""
                for i in tenant.post(
                    "/v1/recall", json={"query": query, "kinds": ["decision"]}
                ).json()["items"]
            )
        )


def test_a_reply_with_technical_content_stays_a_decision(tenant: Tenant) -> None:
    turn = [
        {"type": "event_msg", "payload": {"type": "user_message", "message": "Why does CI fail?"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "text": "You're absolutely right! The fix is to pin `ruff==0.5.0`.",
                    }
                ],
            },
        },
    ]
    body = ingest_ok(tenant, "\n".join(json.dumps(r) for r in turn), "rollout.jsonl")
    assert body["format"] == "codex"
    decision = decision_of(tenant, body)
    assert decision["content"] == "You're absolutely right! The fix is to pin `ruff==0.5.0`."


def test_the_same_words_in_two_documents_are_two_memories_in_their_own_places(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    """An observation sits in its document (trial 6: one "(no output)" served three sessions)."""

    def episode(country: str, capital: str) -> str:
        return (
            f"Question: What is the capital of {country}?\n"
            "Thought 1: I should look it up.\nAction 1: Search[capital]\n"
            "Observation 1: Could not find [capital]. Similar: ['Capital city'].\n"
            f"Thought 2: I should look up {country}.\nAction 2: Search[{country}]\n"
            f"Observation 2: {country}'s capital is {capital}.\n"
            f"Thought 3: The capital of {country} is {capital}.\nAction 3: Finish[{capital}]\n"
            "Observation 3: Episode finished, reward = 1\n"
        )

    ingest_ok(tenant, episode("France", "Paris"), "run-a.txt", "react")
    ingest_ok(tenant, episode("Spain", "Madrid"), "run-b.txt", "react")
    # An edited copy of run-a ingested again (another source: a separator line added, not only
    # white space, which leaves the text as it was) finds its unchanged words.
    edited = ingest_ok(tenant, episode("France", "Paris") + "-----\n", "run-a.txt", "react")
    assert edited["created"].get("observation", 0) == 0, edited["created"]
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (m:Memory {namespace: $ns, content: $same}) "
        "WHERE m.system_to IS NULL RETURN m.episode AS episode ORDER BY episode",
        ns=tenant.namespace,
        same="Could not find [capital]. Similar: ['Capital city'].",
    )
    episodes = [r["episode"] for r in records]
    assert episodes == ["run-a.txt/episode-1", "run-b.txt/episode-1"], episodes
