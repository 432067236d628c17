"""Precedents: similar past decisions, reasoning in brief, outcome record, visibility (issue 14)."""

from __future__ import annotations

from typing import Any

from tests.conftest import Tenant
from tests.factories import flaky_test_story, memory


def trace(t: Tenant, task: str, obs: str, conclusion: str, decision: str) -> dict[str, Any]:
    ev = memory(t, obs)
    r = t.post(
        "/v1/reasoning",
        json={
            "task": task,
            "steps": [
                {"kind": "observation", "content": obs, "cites": [ev["memory_id"]]},
                {"kind": "thought", "content": "Maybe it is the network", "status": "hypothesis"},
                {
                    "kind": "observation",
                    "content": "The network graphs are flat during the incident",
                    "rejects": [1],
                },
                {"kind": "conclusion", "content": conclusion},
            ],
            "produced": {"kind": "decision", "content": decision, "confidence": 0.8},
        },
    )
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_ranks_the_similar_decision_first_with_its_reasoning(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    other = trace(
        tenant,
        "Why is the checkout page slow on Mondays?",
        "Checkout p95 latency doubles every Monday morning",
        "The weekly report job saturates the database on Monday mornings",
        "Move the weekly report job to Sunday night",
    )
    r = tenant.post(
        "/v1/precedents",
        json={"situation": "the invoice upload test is flaky in continuous integration"},
    )
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    assert items[0]["decision"]["memory_id"] == story["trace"]["produced"][0]["memory_id"]
    assert items[0]["outcome_record"]["summary"] == "no outcome"
    r = tenant.post(
        "/v1/precedents", json={"situation": "checkout latency is high every Monday", "limit": 1}
    )
    (item,) = r.json()["items"]
    assert item["decision"]["memory_id"] == other["produced"][0]["memory_id"]
    (brief,) = item["reasoning"]
    assert brief["conclusion"] == "The weekly report job saturates the database on Monday mornings"
    assert brief["hypotheses"] == [
        {
            "step": 1,
            "content": "Maybe it is the network",
            "status": "rejected",
            "rejected_by": 2,
            "rejected_because": "The network graphs are flat during the incident",
        }
    ]
    assert {m["via"] for m in item["matched"]} == {"decision", "reasoning"}


def test_other_namespaces_never_appear(tenant: Tenant, other_tenant: Tenant) -> None:
    flaky_test_story(other_tenant)
    r = tenant.post("/v1/precedents", json={"situation": "test_upload fails intermittently in CI"})
    assert r.status_code == 200 and r.json() == {"items": [], "count": 0}


def test_maintenance_traces_never_stand_for_a_precedent(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    did = story["trace"]["produced"][0]["memory_id"]
    r = tenant.post(
        f"/v1/memories/{did}/outcomes", json={"result": "failure", "content": "Failed again"}
    )
    assert r.status_code == 201
    job = tenant.post("/v1/maintenance/run", json={"job": "outcome-confidence"}).json()
    (job_trace,) = job["trace_ids"]
    r = tenant.post(
        "/v1/precedents",
        json={"situation": "outcome confidence: how far do the outcomes support the decision"},
    )
    for item in r.json()["items"]:
        assert job_trace not in [b["trace_id"] for b in item["reasoning"]]
        assert job_trace not in [m["memory_id"] for m in item["matched"]]
    r = tenant.post("/v1/precedents", json={"situation": "test_upload fails intermittently in CI"})
    first = r.json()["items"][0]
    assert first["decision"]["memory_id"] == did
    assert first["decision"]["last_modified_by"]["origin"] == "maintenance"


def test_a_decision_closed_in_valid_time_is_a_precedent_only_as_of_before_its_end(
    tenant: Tenant,
) -> None:
    # Found through its trace, a decision invalidated since came back as today's precedent
    # (read with no valid time), while the same decision found directly did not.
    story = flaky_test_story(tenant)
    did = story["trace"]["produced"][0]["memory_id"]
    situation = {"situation": "test_upload fails intermittently in CI"}
    before = tenant.post("/v1/precedents", json=situation).json()["items"]
    assert before[0]["decision"]["memory_id"] == did
    valid_from = before[0]["decision"]["valid_from"]
    r = tenant.post(f"/v1/memories/{did}/invalidate", json={"reason": "We dropped the lock"})
    assert r.status_code == 200, r.text
    now = tenant.post("/v1/precedents", json=situation).json()["items"]
    assert did not in [item["decision"]["memory_id"] for item in now]
    then = tenant.post("/v1/precedents", json={**situation, "as_of": valid_from}).json()["items"]
    assert then[0]["decision"]["memory_id"] == did


def test_bad_requests(tenant: Tenant) -> None:
    for body in (
        {"situation": ""},
        {"situation": "x", "limit": 0},
        {"situation": "x", "kinds": ["observation"]},
        {"situation": "x", "kinds": []},
        {"situation": "x", "known_at": "2024-01-01T00:00:00"},
        {"situation": "x", "extra": 1},
    ):
        r = tenant.post("/v1/precedents", json=body)
        assert (r.status_code, r.json()["code"]) == (422, "input.invalid"), body
