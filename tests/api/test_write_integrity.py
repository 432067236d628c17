"""Writes that must not break the model's invariants, real Neo4j (from fresh-user trials).

One value of a key at any valid time, also after a PATCH of a value's period; invalidate only
ends a memory earlier; equal concurrent writes make one memory; an equal memory of another
origin is not the writer's memory.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from neo4j import Driver

from tests.api.test_cite_visibility import set_origin
from tests.conftest import Tenant

KEY = {"subject": "srv1", "attribute": "rack"}


def create(t: Tenant, **body: Any) -> dict[str, Any]:
    r = t.post("/v1/memories", json={"kind": "fact", **body})
    assert r.status_code in (200, 201), r.text
    return r.json()  # type: ignore[no-any-return]


def two_values(t: Tenant) -> tuple[dict[str, Any], dict[str, Any]]:
    """Rack A from January, rack B from March (A's valid time then ends when B's begins)."""
    a = create(t, content="Rack A", valid_from="2024-01-01T00:00:00Z", **KEY)
    b = create(t, content="Rack B", valid_from="2024-03-01T00:00:00Z", **KEY)
    return t.get(f"/v1/memories/{a['memory_id']}").json(), b


def valid_values(driver: Driver, namespace: str, at: str) -> list[str]:
    with driver.session() as s:
        rows = s.run(
            "MATCH (m:Fact {namespace: $ns, subject: $subject, attribute: $attribute}) "
            "WHERE m.system_to IS NULL AND m.valid_from <= datetime($at) "
            "AND (m.valid_to IS NULL OR m.valid_to > datetime($at)) RETURN m.content AS c",
            ns=namespace,
            at=at,
            subject=KEY["subject"],
            attribute=KEY["attribute"],
        ).data()
    return sorted(r["c"] for r in rows)


@pytest.mark.parametrize(
    ("which", "change"),
    [
        ("b", {"valid_from": "2024-02-01T00:00:00Z"}),  # B starts inside A
        ("a", {"valid_to": None}),  # A never ends, so it runs through B
        ("a", {"valid_to": "2024-04-01T00:00:00Z"}),  # A ends inside B
        ("a", {"valid_from": "2024-03-15T00:00:00Z", "valid_to": "2024-03-20T00:00:00Z"}),
    ],
)
def test_a_period_patched_into_another_value_is_refused(
    tenant: Tenant, neo4j_driver: Driver, which: str, change: dict[str, Any]
) -> None:
    a, b = two_values(tenant)
    target = {"a": a, "b": b}[which]
    r = tenant.patch(
        f"/v1/memories/{target['memory_id']}",
        json=change,
        headers={"If-Match": str(target["version"])},
    )
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    other = b if which == "a" else a
    assert other["memory_id"] in r.json()["detail"]
    # nothing changed: each value at its version, one value valid at every time
    for m in (a, b):
        got = tenant.get(f"/v1/memories/{m['memory_id']}").json()
        assert got["version"] == m["version"]
    for at in ("2024-01-15T00:00:00Z", "2024-02-15T00:00:00Z", "2024-03-17T00:00:00Z"):
        assert len(valid_values(neo4j_driver, tenant.namespace, at)) == 1, at


def test_a_period_patched_within_its_gap_is_kept(tenant: Tenant, neo4j_driver: Driver) -> None:
    a, b = two_values(tenant)
    # A ends earlier (a gap before B), then B starts earlier into that gap (touching A's end)
    r = tenant.patch(
        f"/v1/memories/{a['memory_id']}",
        json={"valid_to": "2024-02-01T00:00:00Z"},
        headers={"If-Match": str(a["version"])},
    )
    assert r.status_code == 200, r.text
    r = tenant.patch(
        f"/v1/memories/{b['memory_id']}",
        json={"valid_from": "2024-02-01T00:00:00Z"},
        headers={"If-Match": str(b["version"])},
    )
    assert r.status_code == 200, r.text
    assert valid_values(neo4j_driver, tenant.namespace, "2024-01-31T23:59:59Z") == ["Rack A"]
    assert valid_values(neo4j_driver, tenant.namespace, "2024-02-01T00:00:00Z") == ["Rack B"]


def test_invalidate_only_ends_a_memory_earlier(tenant: Tenant, neo4j_driver: Driver) -> None:
    # A value that ends in the future (the next value is planned): invalidating it later than
    # that end would run it into the next value.
    a = create(tenant, content="Rack A", valid_from="2024-01-01T00:00:00Z", **KEY)
    create(tenant, content="Rack C", valid_from="2099-01-01T00:00:00Z", **KEY)
    path = f"/v1/memories/{a['memory_id']}/invalidate"
    r = tenant.post(path, json={"valid_to": "2100-01-01T00:00:00Z", "reason": "moved out"})
    assert r.status_code == 422, r.text
    assert "already stops being true at 2099-01-01" in r.json()["detail"]
    assert tenant.get(f"/v1/memories/{a['memory_id']}").json()["version"] == 2
    assert valid_values(neo4j_driver, tenant.namespace, "2099-06-01T00:00:00Z") == ["Rack C"]
    r = tenant.post(path, json={"valid_to": "2098-01-01T00:00:00Z", "reason": "moved out"})
    assert r.status_code == 200, r.text
    assert r.json()["valid_to"].startswith("2098-01-01") and r.json()["version"] == 3


def test_equal_writes_at_the_same_moment_make_one_memory(tenant: Tenant) -> None:
    body = {"kind": "observation", "content": "The nightly build took 41 minutes on runner 7"}
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: tenant.post("/v1/memories", json=body), range(8)))
    assert all(r.status_code in (200, 201) for r in answers), [r.text for r in answers]
    assert len({r.json()["memory_id"] for r in answers}) == 1
    assert sorted(r.status_code for r in answers) == [200] * 7 + [201]


def test_equal_batches_at_the_same_moment_make_one_memory_each(tenant: Tenant) -> None:
    items = [
        {"kind": "fact", "content": f"Service {i} listens on port {8000 + i}"} for i in range(6)
    ]

    def send(order: int) -> Any:
        ordered = items if order % 2 == 0 else items[::-1]
        r = tenant.post("/v1/memories/batch", json={"items": ordered})
        assert r.status_code in (200, 201), r.text
        return r.json()

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(send, range(4)))
    ids = {item["memory"]["memory_id"] for answer in answers for item in answer["items"]}
    assert len(ids) == len(items)


def test_an_equal_memory_of_another_origin_is_not_the_writers(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    content = "The staging database is restored from the Sunday snapshot"
    hidden = create(tenant, content=content)
    set_origin(neo4j_driver, tenant.namespace, hidden["memory_id"], "maintenance")
    mine = tenant.post("/v1/memories", json={"kind": "fact", "content": content})
    assert mine.status_code == 201 and mine.json()["created"] is True
    assert mine.json()["memory_id"] != hidden["memory_id"]
    assert mine.json()["created_by"]["origin"] == "user"
    batch = tenant.post(
        "/v1/memories/batch", json={"items": [{"kind": "fact", "content": content}]}
    ).json()
    assert batch["items"][0]["memory"]["memory_id"] == mine.json()["memory_id"]
    assert batch["items"][0]["created"] is False
    recalled = tenant.post("/v1/recall", json={"query": "staging database Sunday snapshot"})
    assert mine.json()["memory_id"] in [i["memory_id"] for i in recalled.json()["items"]]


def test_an_outcome_observed_before_its_decision_took_effect_is_refused(tenant: Tenant) -> None:
    decision = create(
        tenant,
        kind="decision",
        content="Pin the runner image to 24.04",
        valid_from="2024-06-01T00:00:00Z",
    )
    path = f"/v1/memories/{decision['memory_id']}/outcomes"
    body = {"result": "success", "content": "Builds stable on the pinned image"}
    r = tenant.post(path, json={**body, "observed_at": "2024-05-01T00:00:00Z"})
    assert (r.status_code, r.json()["code"]) == (422, "input.invalid")
    assert "2024-06-01" in r.json()["detail"]
    assert tenant.get(path).json()["count"] == 0
    r = tenant.post(path, json={**body, "observed_at": "2024-07-01T00:00:00Z"})
    assert r.status_code == 201, r.text
    # nor may the decision move its start past that outcome afterwards
    moved = f"/v1/memories/{decision['memory_id']}"
    r = tenant.patch(moved, json={"valid_from": "2024-08-01T00:00:00Z"}, headers={"If-Match": "1"})
    assert r.status_code == 422 and "2024-07-01" in r.json()["detail"], r.text
    r = tenant.patch(moved, json={"valid_from": "2024-06-15T00:00:00Z"}, headers={"If-Match": "1"})
    assert r.status_code == 200, r.text
    # without observed_at it is observed now: not of a decision in effect only from 2099
    later = create(
        tenant, kind="decision", content="Move to ARM", valid_from="2099-01-01T00:00:00Z"
    )
    r = tenant.post(f"/v1/memories/{later['memory_id']}/outcomes", json=body)
    assert (r.status_code, r.json()["code"]) == (422, "input.invalid"), r.text


def test_a_batch_answers_each_value_of_a_key_as_it_ends(tenant: Tenant) -> None:
    items = [
        {"kind": "fact", "content": "Rack A", "valid_from": "2024-01-01T00:00:00Z", **KEY},
        {"kind": "fact", "content": "Rack B", "valid_from": "2024-03-01T00:00:00Z", **KEY},
        {"kind": "fact", "content": "Rack C", "valid_from": "2024-03-01T00:00:00Z", **KEY},
    ]
    r = tenant.post("/v1/memories/batch", json={"items": items})
    assert r.status_code == 201, r.text
    a, b, c = (item["memory"] for item in r.json()["items"])
    # A ended when B began (its version 2); B was corrected by C from the same start
    assert (a["version"], a["valid_to"][:10], a["system_to"]) == (2, "2024-03-01", None)
    assert b["system_to"] is not None
    assert (c["version"], c["system_to"], c["valid_to"]) == (1, None, None)
    for m in (a, c):
        assert tenant.get(f"/v1/memories/{m['memory_id']}").json() | {"created": None} == m | {
            "created": None
        }


def test_a_key_can_return_to_an_earlier_value(tenant: Tenant) -> None:
    # A fresh-user trial: the third write was answered with the 2024 value (created false) and
    # the 2027 move was lost; as of 2028 the key still said Cairo.
    home = {"subject": "ana", "attribute": "home"}
    quito = create(tenant, content="Lives in Quito", valid_from="2024-01-01T00:00:00Z", **home)
    create(tenant, content="Lives in Cairo", valid_from="2026-01-01T00:00:00Z", **home)
    back = tenant.post(
        "/v1/memories",
        json={
            "kind": "fact",
            "content": "Lives in Quito",
            "valid_from": "2027-01-01T00:00:00Z",
            **home,
        },
    )
    assert back.status_code == 201 and back.json()["memory_id"] != quito["memory_id"], back.text
    for at, expected in (("2025-01-01", "Quito"), ("2026-06-01", "Cairo"), ("2028-01-01", "Quito")):
        r = tenant.post(
            "/v1/search",
            json={"query": "Lives in", "as_of": f"{at}T00:00:00Z", "limit": 5},
        )
        assert [i["content"] for i in r.json()["items"]] == [f"Lives in {expected}"], at
    # the same value again from a time it holds is the same memory
    again = tenant.post(
        "/v1/memories",
        json={
            "kind": "fact",
            "content": "Lives in Quito",
            "valid_from": "2029-01-01T00:00:00Z",
            **home,
        },
    )
    assert again.status_code == 200 and again.json()["memory_id"] == back.json()["memory_id"]
    # the same value from before it began is a value of its own, up to the next one
    before = tenant.post(
        "/v1/memories",
        json={
            "kind": "fact",
            "content": "Lives in Quito",
            "valid_from": "2020-01-01T00:00:00Z",
            **home,
        },
    )
    assert before.status_code == 201 and before.json()["valid_to"].startswith("2024-01-01")


def test_a_fact_true_again_after_it_was_invalidated_is_recorded(tenant: Tenant) -> None:
    first = create(tenant, content="The release branch is frozen")
    r = tenant.post(
        f"/v1/memories/{first['memory_id']}/invalidate", json={"reason": "freeze lifted"}
    )
    assert r.status_code == 200, r.text
    again = tenant.post(
        "/v1/memories", json={"kind": "fact", "content": "The release branch is frozen"}
    )
    assert again.status_code == 201 and again.json()["memory_id"] != first["memory_id"]
    items = tenant.post("/v1/recall", json={"query": "is the release branch frozen"}).json()
    assert again.json()["memory_id"] in [i["memory_id"] for i in items["items"]]


def test_invalidate_at_the_end_already_set_writes_nothing(tenant: Tenant) -> None:
    m = create(
        tenant,
        content="The beta programme runs until the end of 2099",
        valid_to="2100-01-01T00:00:00Z",
    )
    path = f"/v1/memories/{m['memory_id']}/invalidate"
    r = tenant.post(path, json={"valid_to": "2100-01-01T00:00:00Z", "reason": "same end"})
    assert r.status_code == 200 and r.json()["version"] == 1, r.text
    assert tenant.get(f"/v1/memories/{m['memory_id']}/history").json()["count"] == 1
    later = create(tenant, content="The office moves to Lisbon", valid_from="2099-01-01T00:00:00Z")
    r = tenant.post(
        f"/v1/memories/{later['memory_id']}/invalidate", json={"reason": "plans changed"}
    )
    assert r.status_code == 422 and "begins at 2099-01-01" in r.json()["detail"], r.text


def test_a_corrected_value_is_not_recalled_beside_its_correction(tenant: Tenant) -> None:
    # A fresh-user trial: for 10 s after a correction, recall and search at a time the
    # correction covers gave the corrected value too (its version closed by the next value,
    # read back as if an update were still committing).
    create(tenant, content="Rack A in hall 101", valid_from="2024-01-01T00:00:00Z", **KEY)
    create(tenant, content="Rack B in hall 202", valid_from="2026-01-01T00:00:00Z", **KEY)
    c = create(tenant, content="Rack C in hall 303", valid_from="2024-01-01T00:00:00Z", **KEY)
    for path in ("/v1/recall", "/v1/search"):
        r = tenant.post(path, json={"query": "rack in hall", "as_of": "2025-01-01T00:00:00Z"})
        assert [i["memory_id"] for i in r.json()["items"]] == [c["memory_id"]], r.text


def test_a_history_search_lists_each_value_of_a_key(tenant: Tenant) -> None:
    # A fresh-user trial: with include_superseded, "S lives in A/B/C" collapsed as
    # near-duplicates into one item led by a closed version.
    home = {"subject": "sam", "attribute": "home"}
    values = [
        create(
            tenant,
            content=f"Sam lives in the blue house by the old market square, flat {flat}",
            valid_from=f"{year}-01-01T00:00:00Z",
            **home,
        )
        for flat, year in (("A", 2020), ("B", 2022), ("C", 2024))
    ]
    # every value's first version was believed open-ended once: each is valid now in some version
    r = tenant.post("/v1/search", json={"query": "where does Sam live", "include_superseded": True})
    found = {i["memory_id"] for i in r.json()["items"]}
    assert {v["memory_id"] for v in values} <= found, r.text
    assert all(i.get("duplicates") is None for i in r.json()["items"]), r.text


def test_invalidating_an_invalidated_memory_is_a_409_and_changes_nothing(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    m = create(
        tenant,
        content="The staging cluster runs Kubernetes 1.29",
        valid_from="2024-01-01T00:00:00Z",
    )
    path = f"/v1/memories/{m['memory_id']}/invalidate"
    first = tenant.post(path, json={"valid_to": "2024-06-01T00:00:00Z", "reason": "upgraded"})
    assert first.status_code == 200, first.text

    def stored() -> list[dict[str, Any]]:
        with neo4j_driver.session() as s:
            return s.run(
                "MATCH (n {namespace: $ns}) RETURN properties(n) AS p ORDER BY n.uid",
                ns=tenant.namespace,
            ).data()

    before = stored()
    for body in (
        {"reason": "upgraded again"},  # default valid_to: now
        {"valid_to": "2024-03-01T00:00:00Z", "reason": "earlier after all"},
        {"valid_to": "2024-06-01T00:00:00Z", "reason": "the same end"},
    ):
        r = tenant.post(path, json=body)
        assert r.status_code == 409, (body, r.text)
        assert r.json() == {
            "detail": f"memory {m['memory_id']} was already invalidated: it stopped being true "
            "at 2024-06-01T00:00:00Z",
            "code": "conflict",
        }
    assert stored() == before
    history = tenant.get(f"/v1/memories/{m['memory_id']}/history").json()
    assert history["count"] == 2
    # A request that is invalid in itself stays a 422, already invalidated or not.
    r = tenant.post(path, json={"valid_to": "2023-01-01T00:00:00Z", "reason": "x"})
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    assert stored() == before


def test_invalidate_declares_the_state_conflict(tenant: Tenant) -> None:
    operation = tenant.client.get("/openapi.json").json()["paths"][
        "/v1/memories/{memory_id}/invalidate"
    ]["post"]
    assert "`conflict`" in operation["responses"]["409"]["description"]
