"""The bi-temporal memory store over HTTP, against the real Neo4j (issue 3)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from neo4j import Driver

from tests.conftest import Tenant

T0 = "2024-01-01T00:00:00Z"


def create(t: Tenant, **body: object) -> dict[str, Any]:
    r = t.post("/v1/memories", json={"kind": "fact", **body})
    assert r.status_code in (200, 201), r.text
    created: dict[str, Any] = r.json()
    return created


def test_create_and_read_back(tenant: Tenant) -> None:
    m = create(
        tenant, content="The build uses Python 3.11", confidence=0.9, metadata={"source": "ci"}
    )
    assert m["created"] is True and m["version"] == 1
    assert m["created_by"] == {"origin": "user", "actor": "tester"}
    assert m["last_modified_by"] == m["created_by"]
    got = tenant.get(f"/v1/memories/{m['memory_id']}").json()
    assert got["content"] == "The build uses Python 3.11"
    assert got["metadata"] == {"source": "ci"}
    assert got["system_to"] is None and got["valid_to"] is None


def test_origin_comes_from_the_door_not_the_payload(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/memories",
        json={"kind": "fact", "content": "x is 1", "created_by": {"origin": "maintenance"}},
    )
    assert r.status_code == 422  # unknown field refused, never trusted
    m = create(tenant, content="x is 1", actor="agent:alpha")
    assert m["created_by"] == {"origin": "user", "actor": "agent:alpha"}


def test_offsets_are_normalised_to_utc(tenant: Tenant) -> None:
    m = create(tenant, content="meeting moved", valid_from="2024-03-01T10:00:00+02:00")
    assert m["valid_from"].startswith("2024-03-01T08:00:00")
    assert m["valid_from"].endswith(("Z", "+00:00"))


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({"kind": "fact", "content": "a", "valid_from": "2024-01-01T00:00:00"}, 422, "timezone"),
        (
            {
                "kind": "fact",
                "content": "a",
                "valid_from": "2024-02-01T00:00:00Z",
                "valid_to": "2024-01-01T00:00:00Z",
            },
            422,
            "valid_to",
        ),
        ({"kind": "rumour", "content": "a"}, 422, "kind"),
        ({"kind": "reasoning", "content": "a"}, 422, "kind"),
        ({"kind": "fact", "content": "   "}, 422, "empty"),
        ({"kind": "fact", "content": "\u200b\ufeff \u2060"}, 422, "empty"),
        ({"kind": "fact", "content": "\u0001\u0002\u0003\x7f"}, 422, "control"),
        ({"kind": "fact", "content": "a", "subject": "alice"}, 422, "both"),
        ({"kind": "fact", "content": "x" * 40_000}, 413, "limit"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    tenant: Tenant, body: dict[str, Any], status: int, needle: str
) -> None:
    r = tenant.post("/v1/memories", json=body)
    assert r.status_code == status, r.text
    assert needle in json.dumps(r.json()).lower()
    assert "code" in r.json()
    if status == 413:
        assert r.json()["code"] == "input.too_large"


def test_an_empty_period_names_both_times_and_a_defaulted_start(tenant: Tenant) -> None:
    # A fresh-user trial: "valid_to must be after valid_from" when no valid_from was given.
    r = tenant.post(
        "/v1/memories",
        json={"kind": "observation", "content": "x", "valid_to": "2020-01-01T00:00:00Z"},
    )
    assert (r.status_code, r.json()["code"]) == (422, "input.invalid"), r.text
    detail = r.json()["detail"]
    assert detail.startswith(
        "valid_to (2020-01-01T00:00:00Z) must be after valid_from (not given: now, "
    ), detail
    assert detail.endswith("Z)"), detail
    r = tenant.post(
        "/v1/memories",
        json={
            "kind": "observation",
            "content": "x",
            "valid_from": "2024-02-01T00:00:00Z",
            "valid_to": "2024-01-01T00:00:00Z",
        },
    )
    assert r.json()["detail"] == (
        "valid_to (2024-01-01T00:00:00Z) must be after valid_from (2024-02-01T00:00:00Z)"
    )


def test_malformed_json_and_lone_surrogates(tenant: Tenant) -> None:
    r = tenant.client.post(
        "/v1/memories",
        content=b'{"kind": "fact", "content": ',
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert r.status_code == 422
    r = tenant.client.post(
        "/v1/memories",
        content=b'{"kind": "fact", "content": "bad \\ud800 text"}',
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["code"] == "input.invalid"
    assert "surrogate" in r.text.lower() or "unicode" in r.text.lower()
    r = tenant.client.post(
        "/v1/memories",
        content=b'{"kind": "fact", "content": "\xff\xfe"}',
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert r.status_code == 422


def test_a_422_does_not_echo_an_overlong_field_whole(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/memories", json={"kind": "fact", "content": "The pump", "key": "k" * 200_000}
    )
    assert r.status_code == 422 and r.json()["code"] == "input.invalid"
    echoed = r.json()["detail"][0]["input"]
    assert echoed.startswith("k" * 1000) and len(echoed) < 1100
    assert "more characters" in echoed
    assert len(r.content) < 5000


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity"])
def test_a_number_that_is_not_finite_is_named_as_such(
    tenant: Tenant, neo4j_driver: Driver, number: bytes
) -> None:
    r = tenant.client.post(
        "/v1/memories",
        content=b'{"kind": "fact", "content": "The pump is fine", "confidence": ' + number + b"}",
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["code"] == "input.invalid"
    assert "finite" in r.json()["detail"][0]["msg"], r.text
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=tenant.namespace
    )
    assert records[0]["n"] == 0


@pytest.mark.parametrize(
    "text",
    [
        "Η Αθήνα είναι η πρωτεύουσα",
        "北京是中国的首都",
        "deploy went fine 🚀🔥",
        "Cafe\u0301 au lait",
        "\U0001f468\u200d\U0001f469\u200d\U0001f467 family",
    ],
)
def test_text_round_trips_after_nfc(tenant: Tenant, text: str) -> None:
    m = create(tenant, content=text)
    got = tenant.get(f"/v1/memories/{m['memory_id']}").json()
    assert got["content"] == unicodedata.normalize("NFC", text)


def test_same_fact_twice_is_one_memory(tenant: Tenant) -> None:
    a = create(tenant, content="The cache is warm")
    r = tenant.post("/v1/memories", json={"kind": "fact", "content": "  the CACHE   is warm "})
    assert r.status_code == 200
    assert r.json()["created"] is False and r.json()["memory_id"] == a["memory_id"]
    # another kind is another memory
    b = create(tenant, content="The cache is warm", **{"kind": "observation"})
    assert b["memory_id"] != a["memory_id"]


def test_a_look_alike_with_invisible_characters_is_the_same_memory(tenant: Tenant) -> None:
    """A zero-width space, a soft hyphen or a BOM shows nothing: "Rack A" with one is the same."""
    a = create(tenant, content="Rack A holds the build cache")
    for look_alike in (
        "Rack\u200b A holds the build cache",
        "\ufeffRack A holds the bu\u00adild cache",
    ):
        r = tenant.post("/v1/memories", json={"kind": "fact", "content": look_alike})
        assert r.status_code == 200, r.text
        assert r.json()["created"] is False and r.json()["memory_id"] == a["memory_id"]


def test_the_same_words_at_another_turn_are_another_memory(tenant: Tenant) -> None:
    """A turn's place in its material is part of it: "(no output)" in two sessions is two."""
    turn = {"kind": "observation", "content": "(no output)", "episode": "sess-a", "position": 3}
    first = create(tenant, **turn)
    again = tenant.post("/v1/memories", json=turn)  # a retry: the same place
    assert again.status_code == 200 and again.json()["memory_id"] == first["memory_id"]
    elsewhere = [
        create(tenant, **{**turn, "episode": "sess-b"}),
        create(tenant, **{**turn, "position": 7}),
        create(tenant, kind="observation", content="(no output)"),
    ]
    assert len({m["memory_id"] for m in [first, *elsewhere]}) == 4
    assert all(m["created"] for m in elsewhere)
    assert [(m["episode"], m["position"]) for m in elsewhere] == [
        ("sess-b", 3),
        ("sess-a", 7),
        (None, None),
    ]
    # A keyed fact is equal by its key and value, wherever it was stated.
    fact = {"kind": "fact", "content": "Alice lives in Paris", "subject": "alice"}
    stated = create(tenant, **fact, attribute="city", episode="sess-a", position=1)
    restated = tenant.post(
        "/v1/memories", json={**fact, "attribute": "city", "episode": "sess-b", "position": 9}
    )
    assert restated.json()["created"] is False
    assert restated.json()["memory_id"] == stated["memory_id"]


def test_keyed_fact_district_story(tenant: Tenant) -> None:
    d1 = create(
        tenant,
        content="Lives in District 1",
        subject="alice",
        attribute="home",
        valid_from="2024-01-01T00:00:00Z",
    )
    d2 = create(
        tenant,
        content="Lives in District 2",
        subject="alice",
        attribute="home",
        valid_from="2024-06-01T00:00:00Z",
    )
    assert d2["memory_id"] != d1["memory_id"]
    # now: District 2 is current and valid; District 1's memory ended when District 2 began
    now1 = tenant.get(f"/v1/memories/{d1['memory_id']}").json()
    assert now1["valid_to"].startswith("2024-06-01")
    assert tenant.get(f"/v1/memories/{d2['memory_id']}").json()["valid_to"] is None
    # as of March: District 1 was true
    r = tenant.get(f"/v1/memories/{d1['memory_id']}", params={"as_of": "2024-03-01T00:00:00Z"})
    assert r.status_code == 200 and r.json()["content"] == "Lives in District 1"
    r = tenant.get(f"/v1/memories/{d2['memory_id']}", params={"as_of": "2024-03-01T00:00:00Z"})
    assert r.status_code == 404
    # both kept in history
    hist = tenant.get(f"/v1/memories/{d1['memory_id']}/history").json()
    assert (
        hist["count"] == 2
        and hist["items"][0]["valid_to"] is None
        and hist["items"][1]["valid_to"] is not None
    )


def test_a_value_corrected_from_its_own_start_names_its_replacement(tenant: Tenant) -> None:
    # Trial 4, F4: a new value of the same key with the same valid_from closes the old one in
    # system time (it was wrong from the start); its 404 said "retracted", naming nobody.
    old = create(
        tenant,
        content="Rack A",
        subject="srv1",
        attribute="rack",
        valid_from="2024-01-01T00:00:00Z",
    )
    new = create(
        tenant,
        content="Rack B",
        subject="srv1",
        attribute="rack",
        valid_from="2024-01-01T00:00:00Z",
    )
    r = tenant.get(f"/v1/memories/{old['memory_id']}")
    body = r.json()
    assert r.status_code == 404 and body["code"] == "memory.not_found"
    assert body["replaced_by"] == new["memory_id"]
    assert "corrected at" in body["detail"] and new["memory_id"] in body["detail"]
    assert "retracted" not in body["detail"]
    assert tenant.get(f"/v1/memories/{new['memory_id']}").json()["content"] == "Rack B"
    # A retraction still says so, and names no replacement.
    tenant.post(f"/v1/memories/{new['memory_id']}/retract", json={"reason": "wrong server"})
    gone = tenant.get(f"/v1/memories/{new['memory_id']}").json()
    assert "retracted" in gone["detail"] and "replaced_by" not in gone


def test_keyed_loves_then_hates_has_exactly_one_current(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    create(tenant, content="Loves jazz", subject="bob", attribute="jazz")
    create(tenant, content="Hates jazz", subject="bob", attribute="jazz")
    with neo4j_driver.session() as s:
        rows = s.run(
            "MATCH (m:Fact {namespace: $ns, subject: 'bob', attribute: 'jazz'}) "
            "WHERE m.system_to IS NULL AND (m.valid_to IS NULL OR m.valid_to > datetime()) RETURN m.content AS c",
            ns=tenant.namespace,
        ).data()
    assert [r["c"] for r in rows] == ["Hates jazz"]


def test_as_of_and_known_at_table(tenant: Tenant) -> None:
    """Both axes: before, during and after a valid period; before and after a correction."""
    m = create(
        tenant,
        content="Server in rack A",
        valid_from="2024-01-01T00:00:00Z",
        valid_to="2024-12-31T00:00:00Z",
    )
    mid = m["memory_id"]
    recorded = m["system_from"]
    r = tenant.patch(
        f"/v1/memories/{mid}", json={"content": "Server in rack B"}, headers={"If-Match": "1"}
    )
    assert r.status_code == 200, r.text
    corrected = r.json()["system_from"]
    cases = [
        # (as_of, known_at, expected content or None for 404)
        ("2023-06-01T00:00:00Z", None, None),  # before the valid period
        ("2024-06-01T00:00:00Z", None, "Server in rack B"),  # during, as we believe now
        ("2025-06-01T00:00:00Z", None, None),  # after
        (
            "2024-06-01T00:00:00Z",
            recorded,
            "Server in rack A",
        ),  # during, as we believed before the correction
        ("2024-06-01T00:00:00Z", corrected, "Server in rack B"),  # after the correction
        (None, "2020-01-01T00:00:00Z", None),  # before we knew anything
    ]
    for as_of, known_at, expected in cases:
        params = {k: v for k, v in {"as_of": as_of, "known_at": known_at}.items() if v}
        r = tenant.get(f"/v1/memories/{mid}", params=params)
        if expected is None:
            assert r.status_code == 404, (params, r.text)
            assert r.json()["code"] == "memory.not_found"
        else:
            assert r.status_code == 200, (params, r.text)
            assert r.json()["content"] == expected, params


def test_patch_needs_if_match_and_refuses_stale(tenant: Tenant) -> None:
    m = create(tenant, content="Deploys on Fridays", **{"kind": "procedure"}, trigger="friday")
    mid = m["memory_id"]
    assert tenant.patch(f"/v1/memories/{mid}", json={"content": "x"}).status_code == 422
    r = tenant.patch(
        f"/v1/memories/{mid}", json={"content": "Deploys on Thursdays"}, headers={"If-Match": "1"}
    )
    assert r.status_code == 200 and r.json()["version"] == 2
    r = tenant.patch(
        f"/v1/memories/{mid}", json={"content": "Deploys never"}, headers={"If-Match": "1"}
    )
    assert r.status_code == 409 and r.json()["code"] == "memory.version_conflict"
    hist = tenant.get(f"/v1/memories/{mid}/history").json()["items"]
    assert [h["content"] for h in hist] == ["Deploys on Fridays", "Deploys on Thursdays"]
    assert hist[0]["system_to"] is not None and hist[1]["system_to"] is None
    assert hist[1]["trigger"] == "friday"  # copied, not lost


@pytest.mark.parametrize(
    "header", ["+1", "1_0", "1.0", "0x1", "1 2", '"1', "W/", "W/1", 'W/"1', "9" * 5000]
)
def test_if_match_is_a_version_number_in_ascii_digits(tenant: Tenant, header: str) -> None:
    """`int` would read `+1` as 1 and `1_0` as 10; these are refused and change nothing."""
    m = create(tenant, content="Backups run at noon", **{"kind": "procedure"}, trigger="noon")
    r = tenant.patch(
        f"/v1/memories/{m['memory_id']}", json={"content": "x"}, headers={"If-Match": header}
    )
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    assert tenant.get(f"/v1/memories/{m['memory_id']}").json()["version"] == 1


@pytest.mark.parametrize("header", ["1", ' "1" ', 'W/"1"'])
def test_if_match_takes_the_version_bare_quoted_or_weak(tenant: Tenant, header: str) -> None:
    m = create(tenant, content="Backups run at dawn", **{"kind": "procedure"}, trigger="dawn")
    r = tenant.patch(
        f"/v1/memories/{m['memory_id']}",
        json={"content": "Backups run at dusk"},
        headers={"If-Match": header},
    )
    assert r.status_code == 200, r.text
    assert r.json()["version"] == 2


def test_two_concurrent_patches_one_wins(tenant: Tenant) -> None:
    mid = create(tenant, content="Shared doc", metadata={"a": 1})["memory_id"]

    def patch(i: int) -> int:
        return tenant.patch(
            f"/v1/memories/{mid}", json={"metadata": {"writer": i}}, headers={"If-Match": "1"}
        ).status_code

    for _ in range(3):
        with ThreadPoolExecutor(2) as pool:
            codes = sorted(pool.map(patch, [1, 2]))
        if codes == [200, 409]:
            break
        # both may not have raced; a sequential pair still must be 200 then 409
        assert codes == [200, 409], codes
    hist = tenant.get(f"/v1/memories/{mid}/history").json()
    assert hist["count"] == 2


def test_two_writers_in_turn_never_lose_metadata(tenant: Tenant) -> None:
    mid = create(tenant, content="Config note", metadata={"owner": "a"})["memory_id"]
    v = tenant.get(f"/v1/memories/{mid}").json()
    r1 = tenant.patch(
        f"/v1/memories/{mid}",
        json={"metadata": {**v["metadata"], "reviewed": True}},
        headers={"If-Match": str(v["version"])},
    )
    assert r1.status_code == 200
    # writer 2 read version 1 too: refused, rereads, merges
    r2 = tenant.patch(
        f"/v1/memories/{mid}",
        json={"metadata": {**v["metadata"], "tag": "x"}},
        headers={"If-Match": str(v["version"])},
    )
    assert r2.status_code == 409
    v2 = tenant.get(f"/v1/memories/{mid}").json()
    r3 = tenant.patch(
        f"/v1/memories/{mid}",
        json={"metadata": {**v2["metadata"], "tag": "x"}},
        headers={"If-Match": str(v2["version"])},
    )
    assert r3.json()["metadata"] == {"owner": "a", "reviewed": True, "tag": "x"}


def test_sixty_concurrent_creates_across_two_namespaces(
    tenant: Tenant, other_tenant: Tenant, neo4j_driver: Driver
) -> None:
    def make(i: int) -> tuple[int, str]:
        t = tenant if i % 2 else other_tenant
        r = t.post(
            "/v1/memories",
            json={"kind": "observation", "content": f"event number {i} in {t.namespace}"},
        )
        return r.status_code, r.json()["memory_id"]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(make, range(60)))
    assert all(code == 201 for code, _ in results)
    for t in (tenant, other_tenant):
        with neo4j_driver.session() as s:
            rows = s.run(
                "MATCH (m:Memory {namespace: $ns}) RETURN m.content AS c", ns=t.namespace
            ).data()
        assert len(rows) == 30
        assert all(t.namespace in r["c"] for r in rows)


def test_invalidate_and_retract(tenant: Tenant) -> None:
    mid = create(tenant, content="Feature flag X is on", valid_from=T0)["memory_id"]
    r = tenant.post(
        f"/v1/memories/{mid}/invalidate",
        json={"valid_to": "2024-05-01T00:00:00Z", "reason": "flag removed"},
    )
    assert (
        r.status_code == 200
        and r.json()["version"] == 2
        and r.json()["valid_to"].startswith("2024-05-01")
    )
    assert (
        tenant.post(
            f"/v1/memories/{mid}/invalidate",
            json={"valid_to": "2023-01-01T00:00:00Z", "reason": "x"},
        ).status_code
        == 422
    )
    r = tenant.post(f"/v1/memories/{mid}/retract", json={"reason": "never true"})
    assert r.status_code == 200 and r.json()["system_to"] is not None
    r = tenant.get(f"/v1/memories/{mid}")
    assert r.status_code == 404 and "retracted" in r.json()["detail"]
    hist = tenant.get(f"/v1/memories/{mid}/history").json()
    assert hist["count"] == 2 and all(h["system_to"] is not None for h in hist["items"])
    assert tenant.post(f"/v1/memories/{mid}/retract", json={"reason": "again"}).status_code == 404


def test_another_namespace_is_404_and_scopes_are_403(tenant: Tenant, other_tenant: Tenant) -> None:
    mid = create(tenant, content="Tenant A secret")["memory_id"]
    for path in (f"/v1/memories/{mid}", f"/v1/memories/{mid}/history"):
        r = other_tenant.get(path)
        assert r.status_code == 404 and r.json()["code"] == "memory.not_found"
    r = other_tenant.patch(
        f"/v1/memories/{mid}", json={"content": "hijack"}, headers={"If-Match": "1"}
    )
    assert r.status_code == 404
    read_only = tenant.key_with(["read"])
    r = tenant.client.post(
        "/v1/memories",
        json={"kind": "fact", "content": "nope"},
        headers={"Authorization": f"Bearer {read_only}"},
    )
    assert r.status_code == 403 and r.json()["code"] == "auth.forbidden"
    assert (
        tenant.client.get(
            f"/v1/memories/{mid}", headers={"Authorization": f"Bearer {read_only}"}
        ).status_code
        == 200
    )


def test_bad_keys_get_401(tenant: Tenant) -> None:
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}):
        r = tenant.client.get("/v1/memories/x", headers=headers)
        assert r.status_code == 401 and r.json()["code"] == "auth.invalid_key"


def test_idempotency_key_makes_a_post_safe_to_retry(tenant: Tenant) -> None:
    body = {"kind": "observation", "content": "Run 42 passed"}
    a = tenant.post("/v1/memories", json=body, headers={"Idempotency-Key": "abc-1"})
    b = tenant.post("/v1/memories", json=body, headers={"Idempotency-Key": "abc-1"})
    assert a.status_code == b.status_code == 201
    assert (
        a.json()["memory_id"] == b.json()["memory_id"]
        and b.headers.get("Idempotent-Replay") == "true"
    )
    c = tenant.post(
        "/v1/memories", json={**body, "content": "other"}, headers={"Idempotency-Key": "abc-1"}
    )
    assert c.status_code == 422


def test_an_idempotency_key_is_each_callers_own(tenant: Tenant) -> None:
    # Two clients of one namespace (each its API key) may pick the same key: neither gets the
    # other's answer or a 422 for the other's request (a fresh-user trial).
    body = {"kind": "observation", "content": "Run 43 passed"}
    other = {"Authorization": f"Bearer {tenant.key_with(['read', 'write'])}"}
    mine = tenant.post("/v1/memories", json=body, headers={"Idempotency-Key": "run-43"})
    theirs = tenant.client.post(
        "/v1/memories",
        json={**body, "content": "Run 43 failed"},
        headers={**other, "Idempotency-Key": "run-43"},
    )
    assert mine.status_code == theirs.status_code == 201, theirs.text
    assert theirs.json()["memory_id"] != mine.json()["memory_id"]
    assert theirs.json()["created_by"]["actor"] != mine.json()["created_by"]["actor"]
    again = tenant.client.post(
        "/v1/memories",
        json={**body, "content": "Run 43 failed"},
        headers={**other, "Idempotency-Key": "run-43"},
    )
    assert again.headers.get("Idempotent-Replay") == "true"
    assert again.json()["memory_id"] == theirs.json()["memory_id"]


def test_long_content_is_stored_and_deduplicated(tenant: Tenant) -> None:
    text = "Stack trace line\n" * 1500  # ~25 KB: over the range index's key limit once normalised
    a = tenant.post("/v1/memories", json={"kind": "observation", "content": text})
    assert a.status_code == 201, a.text
    b = tenant.post("/v1/memories", json={"kind": "observation", "content": text.upper()})
    assert b.status_code == 200 and b.json()["memory_id"] == a.json()["memory_id"]
    assert tenant.get(f"/v1/memories/{a.json()['memory_id']}").json()["content"] == text


def test_bodies_over_the_limit_are_refused_declared_or_streamed(tenant: Tenant) -> None:
    limit = tenant.client.app.state.services.settings.max_body_bytes  # type: ignore[attr-defined]
    big = b'{"kind": "observation", "content": "' + b"x" * (limit + 10) + b'"}'

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(big), 1 << 20):
            yield big[i : i + (1 << 20)]

    r = tenant.client.post(
        "/v1/memories",
        content=chunks(),
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["code"] == "input.too_large"
    r = tenant.client.post(
        "/v1/memories", content=big, headers={**tenant.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["code"] == "input.too_large"


def _not_json(name: str) -> object:
    raise AssertionError(f"the body holds {name}, which is not JSON")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"kind": "observation", "content": "m", "metadata": {"a": float("nan")}}, "nan"),
        ({"kind": "fact", "content": "m", "confidence": float("nan")}, "nan"),
        ({"kind": "fact", "content": "m", "confidence": float("inf")}, "inf"),
        ({"kind": "observation", "content": "m", "metadata": {"a": "\ud800"}}, "unicode"),
        ({"kind": "observation", "content": "m", "metadata": {"\udc00": 1}}, "unicode"),
        ({"kind": "fact", "content": "m", "valid_from": "0001-01-01T00:00:00+14:00"}, "range"),
        ({"kind": "fact", "content": "m", "valid_from": 0}, "iso 8601"),
        ({"kind": "observation", "content": "m", "status": "challenged"}, "decision"),
        ({"kind": "fact", "content": "m", "trigger": "on monday"}, "procedure"),
        ({"kind": "fact", "content": "m", "actor": "a\u0000b"}, "nul"),
    ],
)
def test_bad_nested_input_is_422_and_stores_nothing(
    tenant: Tenant, neo4j_driver: Driver, body: dict[str, Any], needle: str
) -> None:
    raw = json.dumps(body, allow_nan=True).encode()
    r = tenant.client.post(
        "/v1/memories", content=raw, headers={**tenant.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 422, r.text
    assert needle in r.text.lower()
    json.loads(r.text, parse_constant=_not_json)  # the error body is strict JSON (no NaN echoed)
    with neo4j_driver.session() as s:
        record = s.run(
            "MATCH (n {namespace: $ns}) RETURN count(n) AS c", ns=tenant.namespace
        ).single()
        assert record is not None and record["c"] == 0


def test_deep_metadata_is_refused(tenant: Tenant) -> None:
    deep: object = 1
    for _ in range(300):
        deep = [deep]
    r = tenant.post(
        "/v1/memories", json={"kind": "observation", "content": "deep", "metadata": {"a": deep}}
    )
    assert r.status_code == 422, r.text[:300]


def test_patch_cannot_null_required_fields_and_noop_patch_writes_nothing(tenant: Tenant) -> None:
    mid = create(tenant, content="Port is 8080", metadata={"a": 1})["memory_id"]
    for field in ("valid_from", "content"):
        r = tenant.patch(f"/v1/memories/{mid}", json={field: None}, headers={"If-Match": "1"})
        assert r.status_code == 422, r.text
    r = tenant.patch(
        f"/v1/memories/{mid}",
        json={"content": "Port is 8080", "metadata": {"a": 1}},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200 and r.json()["version"] == 1
    assert tenant.get(f"/v1/memories/{mid}/history").json()["count"] == 1


def test_keyed_value_inserted_between_two_never_overlaps(tenant: Tenant) -> None:
    a = create(
        tenant,
        content="Status A",
        subject="svc",
        attribute="state",
        valid_from="2024-01-01T00:00:00Z",
    )
    c = create(
        tenant,
        content="Status C",
        subject="svc",
        attribute="state",
        valid_from="2024-01-03T00:00:00Z",
    )
    b = create(
        tenant,
        content="Status B",
        subject="svc",
        attribute="state",
        valid_from="2024-01-02T00:00:00Z",
    )
    assert b["valid_to"].startswith("2024-01-03")
    for day, expected in (
        ("2024-01-01T12:00:00Z", a),
        ("2024-01-02T12:00:00Z", b),
        ("2024-01-03T12:00:00Z", c),
    ):
        valid = [
            m
            for m in (a, b, c)
            if tenant.get(f"/v1/memories/{m['memory_id']}", params={"as_of": day}).status_code
            == 200
        ]
        assert [m["memory_id"] for m in valid] == [expected["memory_id"]], day
    # the same start again is a correction, not a 422
    d = tenant.post(
        "/v1/memories",
        json={
            "kind": "fact",
            "content": "Status B, corrected",
            "subject": "svc",
            "attribute": "state",
            "valid_from": "2024-01-02T00:00:00Z",
        },
    )
    assert d.status_code == 201, d.text
    assert tenant.get(f"/v1/memories/{b['memory_id']}").status_code == 404
    assert (
        tenant.get(
            f"/v1/memories/{d.json()['memory_id']}", params={"as_of": "2024-01-02T12:00:00Z"}
        ).json()["content"]
        == "Status B, corrected"
    )


def recalled_ids(t: Tenant, query: str, as_of: str) -> list[str]:
    r = t.post("/v1/recall", json={"query": query, "limit": 10, "as_of": as_of})
    assert r.status_code == 200, r.text
    return [item["memory_id"] for item in r.json()["items"]]


def test_an_offset_time_superseded_is_found_exactly_at_its_bounds(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    # Periods are half-open: valid_from <= as_of < valid_to (and the same for system time).
    key = {"subject": "alice", "attribute": "home_district"}
    first = create(
        tenant, content="Alice lives in District 1", valid_from="2025-09-21T10:00:00+02:00", **key
    )
    second = create(
        tenant, content="Alice lives in District 7", valid_from="2025-09-21T14:00:00+02:00", **key
    )
    start, end = "2025-09-21T08:00:00Z", "2025-09-21T12:00:00Z"
    path = f"/v1/memories/{first['memory_id']}"
    at_start = tenant.get(path, params={"as_of": start})
    assert at_start.status_code == 200, at_start.text
    assert at_start.json()["valid_from"].startswith("2025-09-21T08:00:00")
    assert at_start.json()["valid_to"].startswith("2025-09-21T12:00:00")
    assert tenant.get(path, params={"as_of": "2025-09-21T10:00:00+02:00"}).status_code == 200
    assert tenant.get(path, params={"as_of": end}).status_code == 404
    assert tenant.get(path, params={"as_of": "2025-09-21T07:59:59.999999Z"}).status_code == 404
    assert (
        tenant.get(f"/v1/memories/{second['memory_id']}", params={"as_of": end}).status_code == 200
    )
    assert first["memory_id"] in recalled_ids(tenant, "Where does Alice live?", start)
    at_end = recalled_ids(tenant, "Where does Alice live?", end)
    assert first["memory_id"] not in at_end and second["memory_id"] in at_end
    # System time: version 1 is believed until exactly the moment version 2 was recorded.
    history = tenant.get(f"{path}/history").json()["items"]
    v1, v2 = history
    assert v1["system_to"] == v2["system_from"]
    known = tenant.get(path, params={"known_at": v2["system_from"]}).json()
    assert known["version"] == 2
    before = tenant.get(path, params={"known_at": v1["system_from"]}).json()
    assert before["version"] == 1
    # Every stored time has the one form: UTC with offset Z, no zone id.
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) UNWIND [k IN keys(m) WHERE m[k] IS :: ZONED DATETIME] AS k "
        "RETURN collect(DISTINCT m[k].timezone) AS zones",
        ns=tenant.namespace,
    )
    assert records[0]["zones"] == ["Z"]
