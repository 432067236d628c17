"""A step is to revisit when its evidence changed after the trace was recorded (system time).

Trial 24: evidence invalidated later with a `valid_to` before the trace was recorded ("we now
know the load test was wrong since Tuesday") was "Nothing to revisit", and evidence drift did
not count it: the check compared the invalidation's valid time with the trace's system time.
"""

from __future__ import annotations

from tests.conftest import Tenant
from tests.factories import memory


def test_evidence_invalidated_later_with_an_earlier_end_is_to_revisit(tenant: Tenant) -> None:
    load = memory(
        tenant, "The load test shows 400 rps at p95 120 ms", valid_from="2026-11-01T00:00:00Z"
    )
    ended = memory(
        tenant,
        "The old cluster served 300 rps",
        valid_from="2026-10-01T00:00:00Z",
        valid_to="2026-10-15T00:00:00Z",
    )
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "Can the new cluster take the launch traffic?",
            "steps": [
                {
                    "kind": "observation",
                    "content": "The load test shows 400 rps at p95 120 ms",
                    "cites": [load["memory_id"]],
                },
                {
                    "kind": "observation",
                    "content": "The old cluster served 300 rps",
                    "cites": [ended["memory_id"]],
                },
                {
                    "kind": "conclusion",
                    "content": "The new cluster can take the launch traffic of 400 rps",
                },
            ],
            "produced": {"kind": "decision", "content": "Launch on the new cluster"},
        },
    )
    assert r.status_code == 201, r.text
    decision = r.json()["produced"][0]["memory_id"]
    # Recorded after the trace, true only until before it: the load test was wrong all along.
    r = tenant.post(
        f"/v1/memories/{load['memory_id']}/invalidate",
        json={"valid_to": "2026-11-02T00:00:00Z", "reason": "the load generator was misconfigured"},
    )
    assert r.status_code == 200, r.text
    r = tenant.post(f"/v1/memories/{decision}/challenge", json={"reason": "load test re-run"})
    assert r.status_code == 200, r.text
    revisit = [(v["step"], v["memory_id"], v["change"]) for v in r.json()["revisit"]]
    # Step 1's evidence had ended before the trace was recorded: nothing changed since.
    assert revisit == [(0, load["memory_id"], "invalidated")]
    assert r.json()["revisit"][0]["changed_at"].startswith("2026-11-02T00:00:00")
