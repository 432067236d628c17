"""Maintenance jobs: evidence drift, duplicate and contradiction proposals (issue 7), on real Neo4j."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver
from typer.testing import CliRunner

from service.cli import app as cli_app
from service.embeddings import Embedder
from service.main import create_app
from tests.conftest import Tenant, make_settings
from tests.factories import flaky_test_story, memory

MAINTENANCE = {"origin": "maintenance", "actor": "job:evidence-drift"}


def run_job(t: Tenant, job: str) -> dict[str, Any]:
    r = t.post("/v1/maintenance/run", json={"job": job})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def snapshot(driver: Driver, namespace: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every node (labels, all properties) and relationship of a namespace, by element id."""
    with driver.session() as s:
        nodes = {
            r["id"]: (sorted(r["labels"]), r["props"])
            for r in s.run(
                "MATCH (n {namespace: $ns}) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props",
                ns=namespace,
            )
        }
        rels = {
            r["id"]: (r["type"], r["a"], r["b"], r["props"])
            for r in s.run(
                "MATCH (a {namespace: $ns})-[r]->(b) RETURN elementId(r) AS id, type(r) AS type, "
                "elementId(a) AS a, elementId(b) AS b, properties(r) AS props",
                ns=namespace,
            )
        }
    return nodes, rels


def version_counts(nodes: dict[str, Any]) -> Counter[str]:
    return Counter(props["memory_id"] for labels, props in nodes.values() if "Memory" in labels)


def assert_only_proposals_added(before, after, job: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Nothing that existed changed; everything new is a maintenance trace of `job`, its steps or task."""
    (nodes0, rels0), (nodes1, rels1) = before, after
    assert {k: nodes1.get(k) for k in nodes0} == nodes0, "an existing node changed or vanished"
    assert {k: rels1.get(k) for k in rels0} == rels0, "an existing relationship changed or vanished"
    new = {k: v for k, v in nodes1.items() if k not in nodes0}
    traces = [k for k, (labels, _) in new.items() if "ReasoningTrace" in labels]
    for _k, (labels, props) in new.items():
        if "ReasoningTrace" in labels:
            assert (props["created_by_origin"], props["created_by_actor"]) == (
                "maintenance",
                f"job:{job}",
            )
            assert (props["last_modified_by_origin"], props["last_modified_by_actor"]) == (
                "maintenance",
                f"job:{job}",
            )
        else:
            assert labels in (["ReasoningStep"], ["Task"]), labels
    steps = {k for k, (labels, _) in new.items() if labels == ["ReasoningStep"]}
    owned = {b for (t, a, b, _) in rels1.values() if t == "HAS_STEP" and a in traces}
    assert steps == owned, "new steps must belong to the new maintenance traces"
    memories = {k for k, (labels, _) in nodes0.items() if "Memory" in labels}
    for rid, (t, a, b, _) in rels1.items():
        if rid not in rels0:
            assert a in new or b in new, "a new edge between existing nodes"
            assert not (b in memories and t in ("SUPERSEDES", "PRODUCED")), t
    assert version_counts(nodes0) == version_counts(
        {k: v for k, v in nodes1.items() if k in nodes0}
    )
    return [new[k][1]["memory_id"] for k in traces]


# -- the door --------------------------------------------------------------------------


def test_running_a_job_needs_the_maintenance_scope(tenant: Tenant) -> None:
    key = tenant.key_with(["read", "write"])
    r = tenant.client.post(
        "/v1/maintenance/run",
        json={"job": "evidence-drift"},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert r.status_code == 403, r.text
    assert r.json()["code"] == "auth.forbidden"


def test_unknown_job_is_a_422_naming_the_known_ones(tenant: Tenant) -> None:
    r = tenant.post("/v1/maintenance/run", json={"job": "defrag"})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "input.invalid"
    for name in (
        "evidence-drift",
        "duplicate-candidates",
        "contradiction-candidates",
        "outcome-confidence",
    ):
        assert name in body["detail"]
    assert body["known_jobs"] == [
        "evidence-drift",
        "duplicate-candidates",
        "contradiction-candidates",
        "outcome-confidence",
    ]
    assert tenant.post("/v1/maintenance/run", json={}).status_code == 422


def test_jobs_on_an_empty_namespace_do_nothing(tenant: Tenant) -> None:
    for job in (
        "evidence-drift",
        "duplicate-candidates",
        "contradiction-candidates",
        "outcome-confidence",
    ):
        assert run_job(tenant, job) == {
            "job": job,
            "examined": 0,
            "changed": 0,
            "memory_ids": [],
            "trace_ids": [],
        }


# -- evidence-drift --------------------------------------------------------------------


def test_evidence_drift_lowers_confidence_and_never_takes_over_authorship(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    decision = story["trace"]["produced"][0]
    decision_id, log_id = decision["memory_id"], story["log"]["memory_id"]

    # nothing changed yet: the decision is examined and left alone
    assert run_job(tenant, "evidence-drift") == {
        "job": "evidence-drift",
        "examined": 1,
        "changed": 0,
        "memory_ids": [],
        "trace_ids": [],
    }

    r = tenant.patch(
        f"/v1/memories/{log_id}",
        json={"content": "CI log: test_upload failed with a timeout during teardown"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200, r.text

    report = run_job(tenant, "evidence-drift")
    assert (report["examined"], report["changed"], report["memory_ids"]) == (1, 1, [decision_id])
    [trace_id] = report["trace_ids"]

    # documented rule: new = round(old * (1 - 0.5 * changed / cited), 3); 1 of 5 cited pieces changed
    now = tenant.get(f"/v1/memories/{decision_id}").json()
    assert now["confidence"] == round(0.9 * (1 - 0.5 * 1 / 5), 3) == 0.81
    assert now["version"] == 2
    assert now["system_to"] is None
    assert now["status"] == "active"
    assert now["content"] == decision["content"]
    assert now["created_by"] == decision["created_by"] == {"origin": "user", "actor": "tester"}
    assert now["last_modified_by"] == MAINTENANCE

    # lineage: the user's trace and the maintenance trace, origins labelled
    lin = tenant.get(f"/v1/memories/{decision_id}/lineage").json()
    assert [(t["trace_id"], t["created_by"]["origin"]) for t in lin["traces"]] == [
        (story["trace"]["trace_id"], "user"),
        (trace_id, "maintenance"),
    ]
    mt = lin["traces"][1]
    assert mt["created_by"] == MAINTENANCE
    assert [(p["memory_id"], p["version"]) for p in mt["produced"]] == [(decision_id, 2)]
    assert mt["quality"]["verdict"] != "rejected", mt["quality"]
    assert mt["steps"][-1]["kind"] == "conclusion"
    assert "0.81" in mt["conclusion"]
    # the step about the log cites the exact version the user's reasoning relied on, and what it is now
    [step] = [s for s in mt["steps"] if any(c["memory_id"] == log_id for c in s["cites"])]
    cites = {(c["memory_id"], c["version"]): c for c in step["cites"]}
    assert cites[(log_id, 1)]["still_valid"] is False
    assert cites[(log_id, 1)]["change"] == "superseded"
    assert cites[(log_id, 2)]["still_valid"] is True
    assert "superseded" in step["content"]
    assert "timeout during teardown" in step["content"]
    # the first step cites the reasoning the decision rests on
    assert [c["memory_id"] for c in mt["steps"][0]["cites"]] == [story["trace"]["trace_id"]]

    # a second run with nothing new changes nothing
    again = run_job(tenant, "evidence-drift")
    assert (again["changed"], again["trace_ids"]) == (0, [])
    assert tenant.get(f"/v1/memories/{decision_id}/history").json()["count"] == 2


def test_drift_counts_each_cited_version_once_even_across_later_versions(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    decision_id = story["trace"]["produced"][0]["memory_id"]
    log_id, tz_id = story["log"]["memory_id"], story["tz"]["memory_id"]
    tenant.patch(
        f"/v1/memories/{log_id}",
        json={"content": "CI log: timeout in teardown"},
        headers={"If-Match": "1"},
    )
    assert run_job(tenant, "evidence-drift")["changed"] == 1

    # the user edits the decision afterwards: its new version has no drift marker, nothing re-counts
    r = tenant.patch(
        f"/v1/memories/{decision_id}", json={"confidence": 0.95}, headers={"If-Match": "2"}
    )
    assert r.status_code == 200, r.text
    # the log changes again: the version the reasoning cited was already accounted for
    tenant.patch(
        f"/v1/memories/{log_id}",
        json={"content": "CI log: timeout in teardown, again"},
        headers={"If-Match": "2"},
    )
    assert run_job(tenant, "evidence-drift")["changed"] == 0

    # a retracted piece of evidence is new drift: cited by exact version, named in the step text
    assert (
        tenant.post(f"/v1/memories/{tz_id}/retract", json={"reason": "wrong clock"}).status_code
        == 200
    )
    report = run_job(tenant, "evidence-drift")
    assert report["changed"] == 1
    now = tenant.get(f"/v1/memories/{decision_id}").json()
    assert now["confidence"] == round(0.95 * (1 - 0.5 * 1 / 5), 3) == 0.855
    assert now["created_by"]["origin"] == "user"
    assert now["last_modified_by"] == MAINTENANCE
    trace = tenant.get(f"/v1/reasoning/{report['trace_ids'][0]}").json()
    [step] = [s for s in trace["steps"] if any(c["memory_id"] == tz_id for c in s["cites"])]
    assert [(c["version"], c["change"]) for c in step["cites"]] == [(1, "retracted")]
    assert "retracted" in step["content"]
    assert tz_id in step["content"]
    assert run_job(tenant, "evidence-drift")["changed"] == 0


def test_drift_ignores_decisions_without_changed_evidence_and_other_namespaces(
    tenant: Tenant, other_tenant: Tenant
) -> None:
    story = flaky_test_story(tenant)
    plain = memory(tenant, "Use Postgres for the ledger", kind="decision", confidence=0.7)
    tenant.patch(
        f"/v1/memories/{story['log']['memory_id']}",
        json={"content": "changed"},
        headers={"If-Match": "1"},
    )
    assert run_job(other_tenant, "evidence-drift")["examined"] == 0
    assert (
        tenant.get(f"/v1/memories/{story['trace']['produced'][0]['memory_id']}").json()["version"]
        == 1
    )
    report = run_job(tenant, "evidence-drift")
    assert report["examined"] == 1
    assert report["memory_ids"] == [story["trace"]["produced"][0]["memory_id"]]
    assert tenant.get(f"/v1/memories/{plain['memory_id']}").json()["version"] == 1


def test_recall_never_returns_the_maintenance_trace_but_search_does(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    decision_id = story["trace"]["produced"][0]["memory_id"]
    tenant.patch(
        f"/v1/memories/{story['log']['memory_id']}",
        json={"content": "CI log: timeout in teardown"},
        headers={"If-Match": "1"},
    )
    [trace_id] = run_job(tenant, "evidence-drift")["trace_ids"]
    query = "evidence drift: does the decision that the setup code has a race and the lock fixes it still hold?"

    recall = tenant.post("/v1/recall", json={"query": query, "limit": 50})
    assert recall.status_code == 200, recall.text
    recalled = {i["memory_id"] for i in recall.json()["items"]}
    assert trace_id not in recalled
    assert decision_id in recalled  # maintenance touched it, the user still owns it

    search = tenant.post("/v1/search", json={"query": query, "limit": 50})
    assert search.status_code == 200, search.text
    found = {i["memory_id"]: i for i in search.json()["items"]}
    assert trace_id in found
    assert found[trace_id]["created_by"]["origin"] == "maintenance"
    assert found[trace_id].get("origin", "maintenance") == "maintenance"


# -- duplicate-candidates --------------------------------------------------------------


def test_duplicate_candidates_propose_a_merge_and_change_nothing(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    a = memory(tenant, "Alice lives in Paris", kind="fact")
    b = memory(tenant, "alice lives in paris.", kind="fact")
    # negatives: other facts, an opposite pair (a contradiction, not a duplicate), a non-fact
    memory(tenant, "Bob lives in Berlin", kind="fact")
    memory(tenant, "The feature flag is enabled", kind="fact")
    memory(tenant, "The feature flag is not enabled", kind="fact")
    memory(tenant, "Alice lives in Paris", kind="observation")
    before = snapshot(neo4j_driver, tenant.namespace)

    report = run_job(tenant, "duplicate-candidates")
    assert report["examined"] == 5
    assert report["changed"] == 1
    assert report["memory_ids"] == sorted([a["memory_id"], b["memory_id"]])
    after = snapshot(neo4j_driver, tenant.namespace)
    assert assert_only_proposals_added(before, after, "duplicate-candidates") == report["trace_ids"]

    trace = tenant.get(f"/v1/reasoning/{report['trace_ids'][0]}").json()
    assert trace["created_by"] == {"origin": "maintenance", "actor": "job:duplicate-candidates"}
    assert trace["produced"] == []
    assert (
        sorted(c["memory_id"] for s in trace["steps"] for c in s["cites"]) == report["memory_ids"]
    )
    assert trace["steps"][-1]["kind"] == "conclusion"
    assert "Propose merging" in trace["conclusion"]
    assert "nothing was merged" in trace["conclusion"]
    assert trace["quality"]["verdict"] != "rejected", trace["quality"]
    for m in (a, b):
        assert tenant.get(f"/v1/memories/{m['memory_id']}/history").json()["count"] == 1

    # idempotent: nothing new, nothing written at all
    assert run_job(tenant, "duplicate-candidates")["changed"] == 0
    assert snapshot(neo4j_driver, tenant.namespace) == after


def test_duplicate_by_embedding_similarity_is_proposed_once_per_pair(tenant: Tenant) -> None:
    a = memory(tenant, "The billing service runs on Postgres 16", kind="fact")
    b = memory(tenant, "The billing service is running on Postgres 16", kind="fact")
    report = run_job(tenant, "duplicate-candidates")
    assert report["memory_ids"] == sorted([a["memory_id"], b["memory_id"]]), report
    thought = tenant.get(f"/v1/reasoning/{report['trace_ids'][0]}").json()["steps"][2]["content"]
    assert "cosine similarity" in thought
    # a third near-copy adds pairs with it, never the old pair again
    c = memory(tenant, "the billing service runs on postgres 16!", kind="fact")
    again = run_job(tenant, "duplicate-candidates")
    assert c["memory_id"] in again["memory_ids"]
    assert again["changed"] == 2


# -- contradiction-candidates ----------------------------------------------------------


def test_contradiction_candidates_propose_review_and_change_nothing(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    paris = memory(
        tenant, "Alice's home city is Paris", kind="fact", subject="alice", attribute="home_city"
    )
    lyon = memory(
        tenant, "Alice's home city is Lyon", kind="fact", subject="alice", attribute="home-city"
    )
    on = memory(
        tenant,
        "The feature flag is enabled",
        kind="fact",
        subject="checkout_flag",
        attribute="state",
    )
    off = memory(
        tenant,
        "The feature flag is not enabled",
        kind="fact",
        subject="checkout_flag",
        attribute="status",
    )
    # negatives: another attribute of the same subject; same subject without a cue; opposite
    # claims about different subjects; a keyless fact
    memory(tenant, "Alice works at Acme", kind="fact", subject="alice", attribute="employer")
    memory(
        tenant,
        "The feature flag was added in March",
        kind="fact",
        subject="checkout_flag",
        attribute="added",
    )
    memory(tenant, "Bob is not the team lead", kind="fact", subject="bob", attribute="role")
    memory(tenant, "Carol is the team lead", kind="fact", subject="carol", attribute="role")
    memory(tenant, "The feature flag is disabled", kind="fact")
    before = snapshot(neo4j_driver, tenant.namespace)

    report = run_job(tenant, "contradiction-candidates")
    assert (report["examined"], report["changed"]) == (9, 2), report
    assert report["memory_ids"] == sorted(m["memory_id"] for m in (paris, lyon, on, off))
    after = snapshot(neo4j_driver, tenant.namespace)
    assert sorted(assert_only_proposals_added(before, after, "contradiction-candidates")) == sorted(
        report["trace_ids"]
    )

    traces = [tenant.get(f"/v1/reasoning/{t}").json() for t in report["trace_ids"]]
    by_pair = {
        tuple(sorted(c["memory_id"] for s in t["steps"] for c in s["cites"])): t for t in traces
    }
    spelled = by_pair[tuple(sorted([paris["memory_id"], lyon["memory_id"]]))]
    opposite = by_pair[tuple(sorted([on["memory_id"], off["memory_id"]]))]
    assert "differ only in spelling" in spelled["steps"][2]["content"]
    assert "'not'" in opposite["steps"][2]["content"]
    assert "checkout_flag" in opposite["steps"][2]["content"]
    for t in traces:
        assert t["created_by"] == {"origin": "maintenance", "actor": "job:contradiction-candidates"}
        assert t["produced"] == []
        assert "nothing was changed" in t["conclusion"]
        assert t["quality"]["verdict"] != "rejected", t["quality"]

    assert run_job(tenant, "contradiction-candidates")["changed"] == 0
    assert snapshot(neo4j_driver, tenant.namespace) == after


# -- CLI and scheduler -----------------------------------------------------------------


def test_cli_runs_a_job_and_prints_the_report(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    tenant.patch(
        f"/v1/memories/{story['log']['memory_id']}",
        json={"content": "changed"},
        headers={"If-Match": "1"},
    )
    runner = CliRunner()
    result = runner.invoke(
        cli_app, ["maintenance", "run", "evidence-drift", "--namespace", tenant.namespace]
    )
    assert result.exit_code == 0, result.output
    assert "changed" in result.output
    assert story["trace"]["produced"][0]["memory_id"] in result.output
    assert (
        tenant.get(f"/v1/memories/{story['trace']['produced'][0]['memory_id']}").json()[
            "last_modified_by"
        ]
        == MAINTENANCE
    )
    bad = runner.invoke(cli_app, ["maintenance", "run", "defrag"])
    assert bad.exit_code == 2
    assert "evidence-drift" in bad.output


def test_lifespan_starts_and_stops_the_scheduler(embedder: Embedder, neo4j_driver: Driver) -> None:
    def alive() -> bool:
        return any(
            t.name == "rationale-maintenance" and t.is_alive() for t in threading.enumerate()
        )

    assert not alive()
    with TestClient(
        create_app(make_settings(RATIONALE_MAINTENANCE_SCHEDULE_S=3600), embedder=embedder)
    ):
        assert alive()
    assert not alive()
    with TestClient(create_app(make_settings(), embedder=embedder)):
        assert not alive()


@pytest.mark.parametrize("job", ["duplicate-candidates", "contradiction-candidates"])
def test_idempotency_key_replays_the_first_report(tenant: Tenant, job: str) -> None:
    memory(tenant, "Alice lives in Paris", kind="fact", subject="alice", attribute="home_city")
    # the same text is a duplicate, another city under a spelling-variant key a contradiction
    other = "alice lives in paris." if job == "duplicate-candidates" else "Alice lives in Lyon"
    memory(tenant, other, kind="fact", subject="Alice", attribute="home city")
    headers = {"Idempotency-Key": f"run-{job}"}
    first = tenant.post("/v1/maintenance/run", json={"job": job}, headers=headers)
    replay = tenant.post("/v1/maintenance/run", json={"job": job}, headers=headers)
    assert first.status_code == replay.status_code == 200
    assert replay.json() == first.json()
    assert first.json()["changed"] == 1
    assert replay.headers.get("Idempotent-Replay") == "true"


def test_concurrent_runs_write_one_version_and_one_proposal(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    decision_id = story["trace"]["produced"][0]["memory_id"]
    tenant.patch(
        f"/v1/memories/{story['log']['memory_id']}",
        json={"content": "changed"},
        headers={"If-Match": "1"},
    )
    memory(tenant, "Alice lives in Paris", kind="fact")
    memory(tenant, "alice lives in paris.", kind="fact")
    maintenance = tenant.client.app.state.services.maintenance  # type: ignore[attr-defined]

    for job in ("evidence-drift", "duplicate-candidates"):
        barrier = threading.Barrier(4)
        reports: list[Any] = []

        def run(
            job: str = job, barrier: threading.Barrier = barrier, reports: list[Any] = reports
        ) -> None:
            barrier.wait()
            reports.append(maintenance.run(job, tenant.namespace))

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(reports) == 4
        assert sum(r.changed for r in reports) == 1, (job, reports)

    assert tenant.get(f"/v1/memories/{decision_id}/history").json()["count"] == 2
    assert tenant.get(f"/v1/memories/{decision_id}").json()["confidence"] == 0.81


def test_scheduler_round_lists_namespaces_and_honours_stop(tenant: Tenant) -> None:
    memory(tenant, "Alice lives in Paris", kind="fact")
    maintenance = tenant.client.app.state.services.maintenance  # type: ignore[attr-defined]
    assert tenant.namespace in maintenance.namespaces()
    stop = threading.Event()
    stop.set()  # a full round would touch every namespace of the server: stop before the first job
    assert maintenance.run_everywhere(stop) == []
