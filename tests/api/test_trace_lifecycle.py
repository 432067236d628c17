"""A reasoning trace is immutable: every lifecycle door refuses it, and readers survive old extra versions."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from tests.conftest import Tenant
from tests.factories import flaky_test_story

IMMUTABLE = "a reasoning trace is immutable: record a new trace"


def graph_state(driver: Driver, namespace: str) -> tuple[int, int]:
    """Return (node count, relationship count) of the namespace."""
    with driver.session() as s:
        record = s.run(
            "MATCH (n {namespace: $ns}) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, "
            "count(r) AS r",
            ns=namespace,
        ).single()
        assert record is not None
        return int(record["n"]), int(record["r"])


def assert_readers_answer(tenant: Tenant, story: dict[str, Any]) -> None:
    """Trace, lineage, challenge, precedents and evidence drift all answer 200 with the trace."""
    trace_id = story["trace"]["trace_id"]
    decision_id = story["trace"]["produced"][0]["memory_id"]
    got = tenant.get(f"/v1/reasoning/{trace_id}")
    assert got.status_code == 200, got.text
    assert len(got.json()["steps"]) == len(story["trace"]["steps"])
    lineage = tenant.get(f"/v1/memories/{decision_id}/lineage")
    assert lineage.status_code == 200, lineage.text
    assert [t["trace_id"] for t in lineage.json()["traces"]] == [trace_id]
    assert len(lineage.json()["traces"][0]["steps"]) == len(story["trace"]["steps"])
    challenge = tenant.post(f"/v1/memories/{decision_id}/challenge", json={"reason": "re-check"})
    assert challenge.status_code == 200, challenge.text
    precedents = tenant.post(
        "/v1/precedents", json={"situation": "test_upload fails intermittently in CI"}
    )
    assert precedents.status_code == 200, precedents.text
    drift = tenant.post("/v1/maintenance/run", json={"job": "evidence-drift"})
    assert drift.status_code == 200, drift.text


def test_every_lifecycle_write_on_a_trace_is_refused(tenant: Tenant, neo4j_driver: Driver) -> None:
    story = flaky_test_story(tenant)
    trace_id = story["trace"]["trace_id"]
    before = graph_state(neo4j_driver, tenant.namespace)
    calls = [
        ("invalidate", tenant.post(f"/v1/memories/{trace_id}/invalidate", json={"reason": "x"})),
        (
            "invalidate at",
            tenant.post(
                f"/v1/memories/{trace_id}/invalidate",
                json={"reason": "x", "valid_to": "2999-01-01T00:00:00Z"},
            ),
        ),
        ("retract", tenant.post(f"/v1/memories/{trace_id}/retract", json={"reason": "x"})),
        (
            "patch",
            tenant.patch(
                f"/v1/memories/{trace_id}", json={"content": "new"}, headers={"If-Match": "1"}
            ),
        ),
    ]
    for name, r in calls:
        assert r.status_code == 422, (name, r.text)
        assert (r.json()["code"], r.json()["detail"]) == ("input.invalid", IMMUTABLE), name
    assert graph_state(neo4j_driver, tenant.namespace) == before
    # challenging a trace reads its lineage and writes nothing (only a decision is marked)
    r = tenant.post(f"/v1/memories/{trace_id}/challenge", json={"reason": "x"})
    assert r.status_code == 200, r.text
    assert graph_state(neo4j_driver, tenant.namespace) == before
    with neo4j_driver.session() as s:
        versions = s.run(
            "MATCH (t:ReasoningTrace {namespace: $ns, memory_id: $id}) "
            "RETURN collect([t.version, t.system_to]) AS v",
            ns=tenant.namespace,
            id=trace_id,
        ).single()
    assert versions is not None and versions["v"] == [[1, None]]
    assert tenant.get(f"/v1/memories/{trace_id}").status_code == 200
    assert_readers_answer(tenant, story)


def test_readers_survive_a_second_trace_version_left_by_an_old_bug(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    story = flaky_test_story(tenant)
    trace_id = story["trace"]["trace_id"]
    # What an invalidate of a trace wrote before it was refused: version 2, version 1 closed.
    with neo4j_driver.session() as s:
        s.run(
            "MATCH (old:ReasoningTrace {namespace: $ns, memory_id: $id, version: 1}) "
            "SET old.system_to = datetime(), old.current = false "
            "CREATE (new:Memory:ReasoningTrace) "
            "SET new = old {.*, uid: randomUUID(), version: 2, system_from: old.system_to, "
            "system_to: null, current: true, valid_to: datetime()} "
            "CREATE (new)-[:SUPERSEDES {reason: 'invalidated: x', origin: 'user', actor: 'a', "
            "at: old.system_to}]->(old)",
            ns=tenant.namespace,
            id=trace_id,
        ).consume()
    got = tenant.get(f"/v1/reasoning/{trace_id}")
    assert got.status_code == 200, got.text
    assert [s["content"] for s in got.json()["steps"]] == [
        s["content"] for s in story["trace"]["steps"]
    ]
    assert_readers_answer(tenant, story)


def test_a_trace_shows_how_what_it_produced_stands_now(tenant: Tenant) -> None:
    # A fresh-user trial: a trace (in recall, GET, lineage) showed only the version it produced
    # (active, confidence 0.8) while the decision was challenged since: superseded advice.
    story = flaky_test_story(tenant)
    trace_id = story["trace"]["trace_id"]
    did = story["trace"]["produced"][0]["memory_id"]
    (before,) = tenant.get(f"/v1/reasoning/{trace_id}").json()["produced"]
    assert (before["version"], before["system_to"]) == (1, None)
    r = tenant.post(f"/v1/memories/{did}/challenge", json={"reason": "the lock did not help"})
    assert r.status_code == 200, r.text
    now = tenant.get(f"/v1/memories/{did}").json()
    for produced in (
        tenant.get(f"/v1/reasoning/{trace_id}").json()["produced"],
        next(
            i
            for i in tenant.post(
                "/v1/recall", json={"query": story["trace"]["task"], "kinds": ["reasoning"]}
            ).json()["items"]
            if i["memory_id"] == trace_id
        )["produced"],
        tenant.get(f"/v1/memories/{did}/lineage").json()["traces"][0]["produced"],
    ):
        assert [(m["memory_id"], m["version"]) for m in produced] == [
            (did, 1),
            (did, now["version"]),
        ]
        assert produced[0]["system_to"] is not None  # what it produced, closed since
        assert produced[-1]["status"] == "challenged" and produced[-1]["system_to"] is None
