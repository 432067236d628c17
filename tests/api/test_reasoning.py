"""Reasoning traces: record through the gate, all-or-nothing, lineage, challenge, dependents (issue 4)."""

from __future__ import annotations

from neo4j import Driver

from service.domain.models import StepDraft, TraceDraft
from service.domain.reasoning.drafts import clean_draft
from tests.conftest import Tenant
from tests.factories import flaky_test_story, memory


def count_nodes(driver: Driver, namespace: str) -> int:
    with driver.session() as s:
        record = s.run("MATCH (n {namespace: $ns}) RETURN count(n) AS c", ns=namespace).single()
        assert record is not None
        return int(record["c"])


def test_flaky_test_story_end_to_end(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    trace = story["trace"]
    assert trace["quality"]["verdict"] in ("accepted", "poor")
    assert [s["index"] for s in trace["steps"]] == list(range(9))
    decision = trace["produced"][0]
    assert decision["kind"] == "decision" and decision["status"] == "active"

    # lineage: every step in order, hypotheses rejected and by which step
    lin = tenant.get(f"/v1/memories/{decision['memory_id']}/lineage").json()
    assert len(lin["traces"]) == 1
    steps = lin["traces"][0]["steps"]
    assert [s["index"] for s in steps] == list(range(9))
    assert (steps[1]["status"], steps[1]["rejected_by"]) == ("rejected", 3)
    assert (steps[2]["status"], steps[2]["rejected_by"]) == ("rejected", 4)
    assert steps[0]["cites"][0]["memory_id"] == story["log"]["memory_id"]
    assert all(c["still_valid"] for s in steps for c in s["cites"])
    assert lin["traces"][0]["created_by"]["origin"] == "user"

    # the log line is re-read and superseded
    log_id = story["log"]["memory_id"]
    r = tenant.patch(
        f"/v1/memories/{log_id}",
        json={"content": "CI log: test_upload failed with a timeout during teardown"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200

    # dependents of the log line include the decision
    deps = tenant.get(f"/v1/memories/{log_id}/dependents").json()
    assert decision["memory_id"] in [d["memory_id"] for d in deps["items"]]

    # challenging the decision names exactly the step that relied on it
    ch = tenant.post(
        f"/v1/memories/{decision['memory_id']}/challenge",
        json={"reason": "log re-read", "actor": "reviewer"},
    )
    assert ch.status_code == 200, ch.text
    body = ch.json()
    assert [(r["step"], r["memory_id"], r["change"]) for r in body["revisit"]] == [
        (0, log_id, "superseded")
    ]
    assert body["memory"]["status"] == "challenged" and body["memory"]["version"] == 2
    assert body["memory"]["last_modified_by"]["actor"] == "reviewer"
    assert body["memory"]["created_by"] == decision["created_by"]
    # The answer shows the state after the challenge, as GET .../history does: version 1
    # closed in system time, the challenged version the current one; its trace shows both.
    history = tenant.get(f"/v1/memories/{decision['memory_id']}/history").json()
    shown = [(v["version"], v["status"], v["system_to"]) for v in body["versions"]]
    assert shown == [(v["version"], v["status"], v["system_to"]) for v in history["items"]]
    assert shown[0][2] is not None and shown[1][1:] == ("challenged", None)
    produced = body["traces"][0]["produced"]
    assert [(p["version"], p["status"]) for p in produced] == [(1, "active"), (2, "challenged")]


def test_get_trace_returns_steps_in_order(tenant: Tenant) -> None:
    trace = flaky_test_story(tenant)["trace"]
    got = tenant.get(f"/v1/reasoning/{trace['trace_id']}").json()
    assert got == trace or [s["content"] for s in got["steps"]] == [
        s["content"] for s in trace["steps"]
    ]
    assert got["task"] == "Why does test_upload fail intermittently in CI?"
    assert tenant.get("/v1/reasoning/nope").status_code == 404


def test_missing_citation_refuses_everything(tenant: Tenant, neo4j_driver: Driver) -> None:
    ev = memory(tenant, "disk is 95% full")
    before = count_nodes(neo4j_driver, tenant.namespace)
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "Why did the build fail?",
            "steps": [
                {
                    "kind": "observation",
                    "content": "disk is 95% full",
                    "cites": [ev["memory_id"], "no-such-memory"],
                },
                {"kind": "conclusion", "content": "the disk being full broke the build"},
            ],
            "produced": {"kind": "decision", "content": "clean the disk"},
        },
    )
    assert r.status_code == 422 and "no-such-memory" in r.json()["detail"]
    assert r.json()["missing"] == ["no-such-memory"]
    assert count_nodes(neo4j_driver, tenant.namespace) == before


def test_citing_or_producing_a_retracted_memory_says_it_was_retracted(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    # A fresh-user trial: a retracted memory was said not to exist.
    gone = memory(tenant, "disk is 95% full on the build host")["memory_id"]
    decision = memory(tenant, "clean the build host's disk weekly", kind="decision")["memory_id"]
    ev = memory(tenant, "the build host's disk holds 2 TB of old artefacts")["memory_id"]
    for memory_id in (gone, decision):
        r = tenant.post(f"/v1/memories/{memory_id}/retract", json={"reason": "wrong host"})
        assert r.status_code == 200, r.text
    before = count_nodes(neo4j_driver, tenant.namespace)
    observed = {"kind": "observation", "content": "disk is 95% full"}
    concluded = {"kind": "conclusion", "content": "the disk being full broke the build"}
    steps = [{**observed, "cites": [gone, "no-such-memory"]}, concluded]
    r = tenant.post("/v1/reasoning", json={"task": "Why did the build fail?", "steps": steps})
    assert (r.status_code, r.json()["code"]) == (422, "reasoning.invalid_reference"), r.text
    assert r.json()["detail"] == (
        "cited memories do not exist: no-such-memory; cited memories were retracted "
        f"(no current version to cite): {gone}"
    )
    assert sorted(r.json()["missing"]) == sorted([gone, "no-such-memory"])
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "Why did the build fail?",
            "steps": [{**observed, "cites": [ev]}, concluded],
            "produced_memory_id": decision,
        },
    )
    assert (r.status_code, r.json()["code"]) == (422, "reasoning.invalid_reference"), r.text
    assert r.json()["detail"].startswith(f"produced_memory_id {decision} was retracted at 20")
    assert r.json()["missing"] == [decision]
    assert count_nodes(neo4j_driver, tenant.namespace) == before


def test_a_rejection_repeated_in_a_step_is_stored_once(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    # A fresh-user trial: `"rejects": [1, 1]` was stored as [1, 1] (repeated cites once) and,
    # differing from [1], made a second near-identical trace.
    log = memory(tenant, "Export job log: killed after 30 minutes")
    twice = _diagnosis([log["memory_id"], log["memory_id"]])
    twice["steps"][2]["rejects"] = [1, 1]  # type: ignore[index]
    first = tenant.post("/v1/reasoning", json=twice)
    assert first.status_code == 201, first.text
    assert first.json()["steps"][2]["rejects"] == [1]
    assert [c["memory_id"] for c in first.json()["steps"][0]["cites"]] == [log["memory_id"]]
    before = count_nodes(neo4j_driver, tenant.namespace)
    once = tenant.post("/v1/reasoning", json=_diagnosis([log["memory_id"]]))
    assert once.status_code == 200, once.text
    assert once.json()["trace_id"] == first.json()["trace_id"]
    assert count_nodes(neo4j_driver, tenant.namespace) == before


def test_clean_draft_keeps_each_rejection_once_in_order() -> None:
    steps = (
        StepDraft(kind="thought", content="maybe A", status="hypothesis"),
        StepDraft(kind="thought", content="maybe B", status="hypothesis"),
        StepDraft(kind="observation", content="neither", rejects=(1, 0, 1, 0)),
        StepDraft(kind="conclusion", content="C"),
    )
    cleaned = clean_draft(TraceDraft(task="t", steps=steps), max_steps=10, max_chars=100)
    assert cleaned.steps[2].rejects == (1, 0)


def test_rejects_must_point_to_an_earlier_step(tenant: Tenant, neo4j_driver: Driver) -> None:
    before = count_nodes(neo4j_driver, tenant.namespace)
    for bad in (1, 5, -1):
        r = tenant.post(
            "/v1/reasoning",
            json={
                "task": "t",
                "steps": [
                    {"kind": "thought", "content": "maybe A", "status": "hypothesis"},
                    {"kind": "observation", "content": "A is fine", "rejects": [bad]},
                    {"kind": "conclusion", "content": "not A"},
                ],
            },
        )
        assert r.status_code == 422, r.text
    assert count_nodes(neo4j_driver, tenant.namespace) == before


def test_gate_refusals(tenant: Tenant, neo4j_driver: Driver) -> None:
    ev = memory(tenant, "the service returned 500 errors after the deploy at 10:02")
    before = count_nodes(neo4j_driver, tenant.namespace)
    cases = {
        "missing_conclusion": {
            "task": "why 500s?",
            "steps": [
                {
                    "kind": "observation",
                    "content": "500 errors after the deploy",
                    "cites": [ev["memory_id"]],
                },
                {"kind": "thought", "content": "looking at the deploy diff next"},
            ],
        },
        "circular": {
            "task": "why 500s?",
            "steps": [
                {"kind": "thought", "content": "the deploy broke the service"},
                {"kind": "thought", "content": "so the deploy must be what broke it"},
                {"kind": "thought", "content": "the deploy broke the service"},
                {"kind": "conclusion", "content": "the deploy broke the service"},
            ],
            "produced": {"kind": "decision", "content": "the deploy broke the service"},
        },
        "unsupported_conclusion": {
            "task": "why 500s?",
            "steps": [
                {"kind": "thought", "content": "I have a feeling about this"},
                {"kind": "conclusion", "content": "roll back the database migration"},
            ],
            "produced": {"kind": "decision", "content": "roll back the database migration"},
        },
        "concludes_rejected": {
            "task": "why 500s?",
            "steps": [
                {
                    "kind": "thought",
                    "content": "maybe the cache layer is broken",
                    "status": "hypothesis",
                },
                {
                    "kind": "observation",
                    "content": "cache metrics are normal, cache layer is fine",
                    "cites": [ev["memory_id"]],
                    "rejects": [0],
                },
                {"kind": "conclusion", "content": "the cache layer is broken"},
            ],
            "produced": {"kind": "decision", "content": "the cache layer is broken"},
        },
    }
    for code, body in cases.items():
        r = tenant.post("/v1/reasoning", json=body)
        assert r.status_code == 422, (code, r.text)
        assert r.json()["code"] == "reasoning.rejected", code
        codes = [i["code"] for i in r.json()["quality"]["issues"]]
        assert code in codes, (code, codes)
    assert count_nodes(neo4j_driver, tenant.namespace) == before


def test_trace_can_produce_an_existing_memory(tenant: Tenant) -> None:
    decision = memory(tenant, "Use Postgres for the ledger", kind="decision")
    ev = memory(tenant, "Postgres benchmarks show 5k tx/s on our hardware, enough for the ledger")
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "Which database for the ledger?",
            "steps": [
                {
                    "kind": "observation",
                    "content": "Postgres handles 5k tx/s on our hardware",
                    "cites": [ev["memory_id"]],
                },
                {"kind": "conclusion", "content": "Postgres is enough for the ledger"},
            ],
            "produced_memory_id": decision["memory_id"],
        },
    )
    assert r.status_code == 201, r.text
    lin = tenant.get(f"/v1/memories/{decision['memory_id']}/lineage").json()
    assert [t["trace_id"] for t in lin["traces"]] == [r.json()["trace_id"]]
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "x",
            "steps": [{"kind": "conclusion", "content": "y"}],
            "produced_memory_id": "nope",
        },
    )
    assert r.status_code == 422


def test_another_namespace_sees_no_reasoning(tenant: Tenant, other_tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    decision_id = story["trace"]["produced"][0]["memory_id"]
    for path in (
        f"/v1/memories/{decision_id}/lineage",
        f"/v1/memories/{decision_id}/dependents",
        f"/v1/reasoning/{story['trace']['trace_id']}",
        f"/v1/memories/{story['log']['memory_id']}/dependents",
    ):
        assert other_tenant.get(path).status_code == 404, path
    # citing another namespace's memory is a missing reference
    r = other_tenant.post(
        "/v1/reasoning",
        json={
            "task": "t",
            "steps": [
                {"kind": "observation", "content": "x", "cites": [story["log"]["memory_id"]]},
                {"kind": "conclusion", "content": "x"},
            ],
        },
    )
    assert r.status_code == 422


def test_a_step_marked_rejected_needs_a_later_step_rejecting_it(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    ev = memory(tenant, "cron wrote no log line since Monday 03:00 and its pid file is gone")
    observe = {
        "kind": "observation",
        "content": "cron wrote no log line since Monday and its pid file is gone",
        "cites": [ev["memory_id"]],
    }
    guess = {"kind": "thought", "content": "the cron daemon may have stopped", "status": "rejected"}
    conclude = {"kind": "conclusion", "content": "the cron daemon stopped on Monday"}
    before = count_nodes(neo4j_driver, tenant.namespace)
    r = tenant.post(
        "/v1/reasoning", json={"task": "Why is cron silent?", "steps": [observe, guess, conclude]}
    )
    assert r.status_code == 422, r.text
    body = r.json()
    assert (body["code"], body["step"]) == ("input.invalid", 1)
    assert body["detail"].startswith("steps[1].status: ")
    assert count_nodes(neo4j_driver, tenant.namespace) == before
    # A later step listing it in `rejects` says by which step: accepted, stored as rejected by it.
    rejecter = {
        "kind": "observation",
        "content": "systemctl shows the cron daemon running since Friday",
        "rejects": [1],
    }
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "Why is cron silent?",
            "steps": [
                observe,
                guess,
                rejecter,
                {**conclude, "content": "cron runs but logs nowhere"},
            ],
        },
    )
    assert r.status_code == 201, r.text
    step = r.json()["steps"][1]
    assert (step["status"], step["rejected_by"]) == ("rejected", 2)


def test_a_trace_may_not_cite_the_memory_it_produces(tenant: Tenant, neo4j_driver: Driver) -> None:
    decision = memory(
        tenant, "Keep decision A: nightly backups to the second site", kind="decision"
    )
    ev = memory(tenant, "The second site restored last week's backup in 40 minutes")
    before = count_nodes(neo4j_driver, tenant.namespace)
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "Is decision A sound?",
            "steps": [
                {
                    "kind": "observation",
                    "content": "the second site restored a backup in 40 minutes",
                    "cites": [ev["memory_id"]],
                },
                {
                    "kind": "observation",
                    "content": "decision A keeps nightly backups to the second site",
                    "cites": [decision["memory_id"]],
                },
                {"kind": "conclusion", "content": "nightly backups to the second site are sound"},
            ],
            "produced_memory_id": decision["memory_id"],
        },
    )
    assert r.status_code == 422, r.text
    body = r.json()
    assert (body["code"], body["step"], body["cite"]) == ("input.invalid", 1, decision["memory_id"])
    assert body["detail"].startswith("steps[1].cites: ")
    assert count_nodes(neo4j_driver, tenant.namespace) == before
    assert tenant.get(f"/v1/memories/{decision['memory_id']}/lineage").json()["traces"] == []
    assert tenant.get(f"/v1/memories/{decision['memory_id']}/dependents").json()["count"] == 0


def _diagnosis(cites: list[str]) -> dict[str, object]:
    return {
        "task": "Why does the nightly export time out?",
        "steps": [
            {
                "kind": "observation",
                "content": "The export job hit the 30 min limit",
                "cites": cites,
            },
            {"kind": "thought", "content": "Maybe the disk is full", "status": "hypothesis"},
            {"kind": "observation", "content": "The disk is 40% full", "rejects": [1]},
            {"kind": "conclusion", "content": "The export scans an unindexed table"},
        ],
        "produced": {"kind": "decision", "content": "Index the export's lookup table"},
    }


def test_the_same_reasoning_recorded_again_is_one_trace(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    # A fresh-user trial: the same body posted twice (a retry without Idempotency-Key) made two
    # traces of one decision, and recall's top two were the twins.
    log = memory(tenant, "Export job log: killed after 30 minutes")
    first = tenant.post("/v1/reasoning", json=_diagnosis([log["memory_id"]]))
    assert first.status_code == 201, first.text
    assert first.json()["created"] is True
    before = count_nodes(neo4j_driver, tenant.namespace)
    again = tenant.post("/v1/reasoning", json=_diagnosis([log["memory_id"]]))
    assert again.status_code == 200, again.text
    assert again.json()["created"] is False
    assert again.json()["trace_id"] == first.json()["trace_id"]
    assert count_nodes(neo4j_driver, tenant.namespace) == before
    items = tenant.post(
        "/v1/recall", json={"query": "nightly export time out", "kinds": ["reasoning"]}
    ).json()["items"]
    assert [i["memory_id"] for i in items] == [first.json()["trace_id"]]
    # evidence changed since is other evidence: the same body now cites its new version
    r = tenant.patch(
        f"/v1/memories/{log['memory_id']}",
        json={"content": "Export job log: killed after 30 minutes (re-read)"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200, r.text
    fresh = tenant.post("/v1/reasoning", json=_diagnosis([log["memory_id"]]))
    assert fresh.status_code == 201, fresh.text
    assert fresh.json()["steps"][0]["cites"][0]["version"] == 2
    # other evidence is other reasoning
    other = memory(tenant, "Export job log: killed after 31 minutes")
    third = tenant.post("/v1/reasoning", json=_diagnosis([other["memory_id"]]))
    assert third.status_code == 201 and third.json()["trace_id"] != first.json()["trace_id"]


def test_material_ingested_again_under_another_name_adds_no_trace(tenant: Tenant) -> None:
    adr = (
        "# 7. Store chats in MVStore\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\n"
        "## Context\n\nChats must survive restarts and the app already embeds MVStore.\n\n"
        "## Decision\n\nWe store AI chats in MVStore.\n\n"
        "## Consequences\n\nNo second database to ship.\n"
    )
    first = tenant.post(
        "/v1/ingest", json={"format": "adr", "content": adr, "source_name": "0007-chats.md"}
    )
    assert first.status_code == 201, first.text
    assert first.json()["created"].get("reasoning") == 1, first.text
    for name, content in (("copy-of-0007.md", adr), ("0007-chats.md", adr + "\n")):
        again = tenant.post(
            "/v1/ingest", json={"format": "adr", "content": content, "source_name": name}
        )
        assert again.status_code in (200, 201), again.text
        assert again.json()["created"].get("reasoning", 0) == 0, again.text
        assert again.json()["trace_ids"] == first.json()["trace_ids"]
    items = tenant.post(
        "/v1/recall", json={"query": "where are chats stored", "kinds": ["reasoning"]}
    ).json()["items"]
    assert [i["memory_id"] for i in items] == first.json()["trace_ids"]
