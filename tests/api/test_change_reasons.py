"""The reasons given to challenge, invalidate and retract are read back (trial 17: none was)."""

from __future__ import annotations

from tests.conftest import Tenant
from tests.factories import memory


def test_history_says_why_each_version_was_written_and_why_one_was_retracted(
    tenant: Tenant,
) -> None:
    decision = memory(tenant, "Serve the docs from the CDN", kind="decision")
    path = f"/v1/memories/{decision['memory_id']}"
    r = tenant.post(f"{path}/challenge", json={"reason": "log re-read"})
    assert r.status_code == 200, r.text
    current = tenant.get(path).json()
    assert current["change_reason"] == "challenged: log re-read"
    r = tenant.post(f"{path}/invalidate", json={"reason": "the CDN contract ended"})
    assert r.status_code == 200, r.text
    history = tenant.get(f"{path}/history").json()["items"]
    assert [(v["version"], v["change_reason"]) for v in history] == [
        (1, None),
        (2, "challenged: log re-read"),
        (3, "invalidated: the CDN contract ended"),
    ]
    assert all(v["retracted_reason"] is None for v in history)
    r = tenant.post(f"{path}/retract", json={"reason": "recorded in the wrong project"})
    assert r.status_code == 200, r.text
    history = tenant.get(f"{path}/history").json()["items"]
    assert history[-1]["retracted_reason"] == "recorded in the wrong project"
    lineage = tenant.get(f"{path}/lineage")
    assert lineage.status_code == 404  # retracted: gone from reads, its history kept


def test_a_keyed_values_versions_say_what_replaced_them(tenant: Tenant) -> None:
    first = memory(tenant, "Lives in Paris", kind="fact", subject="ann", attribute="home")
    memory(
        tenant,
        "Lives in Lyon",
        kind="fact",
        subject="ann",
        attribute="home",
        valid_from="2031-01-01T00:00:00Z",
    )
    history = tenant.get(f"/v1/memories/{first['memory_id']}/history").json()["items"]
    assert [v["change_reason"] for v in history] == [None, "keyed value replaced"]
