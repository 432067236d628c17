"""Lineage read as the graph stood: `as_of` picks the version valid then, `known_at` what was known."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.conftest import Tenant
from tests.factories import flaky_test_story, memory


def lineage(t: Tenant, memory_id: str, **params: str) -> Any:
    return t.get(f"/v1/memories/{memory_id}/lineage", params=params)


def test_as_of_and_known_at_pick_the_version_like_get(tenant: Tenant) -> None:
    m = memory(
        tenant,
        "Server in rack A",
        kind="fact",
        valid_from="2024-01-01T00:00:00Z",
        valid_to="2024-12-31T00:00:00Z",
    )
    mid, recorded = m["memory_id"], m["system_from"]
    r = tenant.patch(
        f"/v1/memories/{mid}", json={"content": "Server in rack B"}, headers={"If-Match": "1"}
    )
    assert r.status_code == 200, r.text
    cases = [
        # (as_of, known_at, expected memory content or None for 404, versions listed)
        ("2024-06-01T00:00:00Z", None, "Server in rack B", 2),
        ("2024-06-01T00:00:00Z", recorded, "Server in rack A", 1),  # before the correction
        ("2023-06-01T00:00:00Z", None, None, 0),  # before the valid period
        ("2025-06-01T00:00:00Z", None, None, 0),  # after it
        ("2025-06-01T00:00:00Z", recorded, None, 0),
    ]
    for as_of, known_at, expected, versions in cases:
        params = {k: v for k, v in {"as_of": as_of, "known_at": known_at}.items() if v}
        r = lineage(tenant, mid, **params)
        got = tenant.get(f"/v1/memories/{mid}", params=params)
        assert r.status_code == got.status_code, (params, r.text, got.text)
        if expected is None:
            assert r.status_code == 404, (params, r.text)
            assert r.json() == got.json()  # the same `memory.not_found` and message
            assert "valid at" in r.json()["detail"]
        else:
            assert r.status_code == 200, (params, r.text)
            assert r.json()["memory"] == got.json(), params
            assert r.json()["memory"]["content"] == expected, params
            assert len(r.json()["versions"]) == versions, params
    # Without times: the current version and the whole history, as before.
    now = lineage(tenant, mid).json()
    assert (now["memory"]["content"], len(now["versions"])) == ("Server in rack B", 2)


def test_as_of_before_a_decision_was_true_is_404_and_now_keeps_its_trace(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    decision = story["trace"]["produced"][0]
    did = decision["memory_id"]
    before = lineage(tenant, did, as_of="2000-01-01T00:00:00Z")
    assert before.status_code == 404, before.text
    assert before.json()["code"] == "memory.not_found"
    during = lineage(tenant, did, as_of=decision["valid_from"])
    assert during.status_code == 200, during.text
    assert during.json()["memory"]["memory_id"] == did
    assert [t["trace_id"] for t in during.json()["traces"]] == [story["trace"]["trace_id"]]


def test_as_of_after_an_invalidation_is_404_but_before_it_reads_the_lineage(
    tenant: Tenant,
) -> None:
    story = flaky_test_story(tenant)
    did = story["trace"]["produced"][0]["memory_id"]
    r = tenant.post(
        f"/v1/memories/{did}/invalidate",
        json={"valid_to": "2099-01-01T00:00:00Z", "reason": "the lock was removed"},
    )
    assert r.status_code == 200, r.text
    assert lineage(tenant, did, as_of="2099-06-01T00:00:00Z").status_code == 404
    held = lineage(tenant, did, as_of="2098-06-01T00:00:00Z")
    assert held.status_code == 200, held.text
    assert held.json()["memory"]["valid_to"].startswith("2099-01-01")
    assert len(held.json()["traces"]) == 1


def test_a_retracted_memory_has_no_lineage_now_as_get_but_had_one_before(tenant: Tenant) -> None:
    # A fresh-user trial: lineage answered 200 with the closed last version (also at the very
    # instant of the retraction), where GET answered 404.
    story = flaky_test_story(tenant)
    did = story["trace"]["produced"][0]["memory_id"]
    r = tenant.post(f"/v1/memories/{did}/retract", json={"reason": "recorded in error"})
    assert r.status_code == 200, r.text
    retracted_at = r.json()["system_to"]
    for known_at in (None, retracted_at):
        got = tenant.get(f"/v1/memories/{did}", params={"known_at": known_at} if known_at else {})
        lin = lineage(tenant, did, **({"known_at": known_at} if known_at else {}))
        assert (got.status_code, lin.status_code) == (404, 404), (known_at, lin.text)
        assert lin.json()["code"] == "memory.not_found"
        assert "retracted" in lin.json()["detail"]
    before = lineage(tenant, did, known_at=story["trace"]["system_from"])
    assert before.status_code == 200, before.text
    assert before.json()["memory"]["memory_id"] == did
    assert [t["trace_id"] for t in before.json()["traces"]] == [story["trace"]["trace_id"]]
    r = tenant.post(f"/v1/memories/{did}/challenge", json={"reason": "still?"})
    assert r.status_code == 404 and "retracted" in r.json()["detail"], r.text


def test_known_at_before_a_memory_was_recorded_names_the_time_as_iso_utc(tenant: Tenant) -> None:
    # A fresh-user trial: lineage's 404 said "2026-12-05 05:41:48.728531+00:00" (str of a
    # datetime), where GET's says "2026-12-05T05:41:48.728531Z".
    m = memory(tenant, "The build host has 64 GB of memory")
    recorded = datetime.fromisoformat(m["system_from"])
    before = (recorded - timedelta(microseconds=1)).astimezone(UTC)
    known_at = before.isoformat().replace("+00:00", "Z")
    r = lineage(tenant, m["memory_id"], known_at=known_at)
    got = tenant.get(f"/v1/memories/{m['memory_id']}", params={"known_at": known_at})
    assert (r.status_code, got.status_code) == (404, 404), r.text
    assert r.json()["detail"].endswith(f"was not recorded yet at {known_at}"), r.text
    assert got.json()["detail"].endswith(f"as known at {known_at}"), got.text


def test_a_past_read_shows_versions_as_believed_then(tenant: Tenant) -> None:
    """Trial 22: lineage `known_at` v2's start said v2 was "no longer believed since" v3's time
    and showed v3 as how the decision stands "now": a later change leaked into a past view."""
    story = flaky_test_story(tenant)
    did = story["trace"]["produced"][0]["memory_id"]
    first = lineage(tenant, did).json()["memory"]
    r = tenant.patch(
        f"/v1/memories/{did}",
        json={"content": "The lock fixes the race"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200, r.text
    then = first["system_from"]
    past = lineage(tenant, did, known_at=then).json()
    assert past["memory"]["version"] == 1 and past["memory"]["system_to"] is None
    assert [v["system_to"] for v in past["versions"]] == [None]
    assert [[p["version"] for p in t["produced"]] for t in past["traces"]] == [[1]]
    assert tenant.get(f"/v1/memories/{did}", params={"known_at": then}).json() == past["memory"]
    items = tenant.post(
        "/v1/search",
        json={"query": "setup code race lock", "kinds": ["decision"], "known_at": then},
    ).json()["items"]
    assert [(i["version"], i["system_to"]) for i in items] == [(1, None)]
    # Now: v1 closed when v2 was written.
    now = lineage(tenant, did).json()
    assert now["versions"][0]["system_to"] == now["versions"][1]["system_from"]
