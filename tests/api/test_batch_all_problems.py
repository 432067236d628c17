"""A batch refusal names every invalid item; one turn per place (episode, position) (trial 24)."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver

from tests.conftest import Tenant


def _count(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=namespace
    )
    return int(records[0]["n"])


def _batch(t: Tenant, items: list[dict[str, Any]]) -> Any:
    return t.post("/v1/memories/batch", json={"items": items})


def _turn(position: int, content: str, episode: str = "chat-1") -> dict[str, Any]:
    return {"kind": "observation", "content": content, "episode": episode, "position": position}


def test_a_schema_issue_and_a_rule_broken_elsewhere_are_one_refusal(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    """Trial 24: a bad `position` at index 1 hid blank content at index 2."""
    items = [
        _turn(0, "Alice: hi"),
        _turn(-1, "Bob: hello"),
        {"kind": "fact", "content": "  \n "},
        {"kind": "fact", "content": "half a key", "subject": "alice"},
        {"kind": "fact", "content": "fine"},
    ]
    r = _batch(tenant, items)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "input.invalid" and body["index"] == 1
    assert [e["loc"][:3] for e in body["detail"]] == [["body", "items", 1]]  # FastAPI's list
    assert [(e["index"], e["code"]) for e in body["errors"]] == [
        (1, "input.invalid"),
        (2, "input.invalid"),
        (3, "input.invalid"),
    ]
    assert body["errors"][0]["detail"].startswith("position: ")
    assert body["errors"][0]["loc"] == ["position"]
    assert body["errors"][1]["detail"].startswith("content: must not be empty")
    assert "subject and attribute form a key" in body["errors"][2]["detail"]
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_rule_problems_of_several_items_are_one_refusal(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    items = [
        {"kind": "fact", "content": "fine"},
        {"kind": "fact", "content": "half a key", "subject": "alice"},
        {"kind": "fact", "content": "fine too"},
        {"kind": "decision", "content": "\t "},
    ]
    r = _batch(tenant, items)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "input.invalid" and body["index"] == 1
    assert body["detail"].startswith("items[1]: subject and attribute")
    assert "; items[3]: content: " in body["detail"]
    assert [e["index"] for e in body["errors"]] == [1, 3]
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_only_size_problems_stay_a_413_listing_each(tenant: Tenant, neo4j_driver: Driver) -> None:
    items = [
        {"kind": "observation", "content": "x" * 40_000},
        {"kind": "fact", "content": "fine"},
        {"kind": "observation", "content": "y" * 40_000},
    ]
    r = _batch(tenant, items)
    assert r.status_code == 413 and r.json()["code"] == "input.too_large", r.text
    assert [(e["index"], e["code"]) for e in r.json()["errors"]] == [
        (0, "input.too_large"),
        (2, "input.too_large"),
    ]
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_two_items_with_other_content_at_one_place_are_refused(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    items = [_turn(0, "Alice: hi"), _turn(1, "Bob: hello"), _turn(1, "Bob: good morning")]
    r = _batch(tenant, items)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "input.position_clash" and body["index"] == 2
    assert body["same_place_as"] == 1
    assert body["errors"] == [
        {
            "index": 2,
            "code": "input.position_clash",
            "same_place_as": 1,
            "detail": body["errors"][0]["detail"],
        }
    ]
    assert "episode 'chat-1' position 1 is items[1]'s place" in body["detail"]
    assert _count(neo4j_driver, tenant.namespace) == 0
    # The same turn twice (normalised content) is one memory, as before.
    same = _batch(tenant, [_turn(1, "Bob: hello"), _turn(1, "bob:  hello")])
    assert same.status_code == 201, same.text
    assert [i["created"] for i in same.json()["items"]] == [True, False]


def test_a_place_held_by_other_stored_content_is_a_409(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    first = _batch(tenant, [_turn(0, "Alice: hi"), _turn(1, "Bob: hello")])
    assert first.status_code == 201
    held = first.json()["items"][1]["memory"]["memory_id"]

    r = _batch(tenant, [_turn(2, "Alice: how are you?"), _turn(1, "Bob: good morning")])
    assert r.status_code == 409, r.text
    body = r.json()
    assert body["code"] == "memory.position_taken" and body["index"] == 1
    assert body["memory_id"] == held
    assert [(e["index"], e["memory_id"]) for e in body["errors"]] == [(1, held)]
    assert _count(neo4j_driver, tenant.namespace) == 2

    single = tenant.post("/v1/memories", json=_turn(1, "Bob: good morning"))
    assert single.status_code == 409 and single.json()["code"] == "memory.position_taken"
    assert single.json()["memory_id"] == held
    assert _count(neo4j_driver, tenant.namespace) == 2

    # An identical re-send stays idempotent, one by one and in a batch.
    again = tenant.post("/v1/memories", json=_turn(1, "Bob: hello"))
    assert again.status_code == 200 and again.json()["created"] is False
    resent = _batch(tenant, [_turn(0, "Alice: hi"), _turn(1, "Bob: hello")])
    assert resent.status_code == 200
    assert [i["created"] for i in resent.json()["items"]] == [False, False]

    # Another episode or another namespace is another place; a retracted turn frees its place.
    assert _batch(tenant, [_turn(1, "Bob: good morning", "chat-2")]).status_code == 201
    r = tenant.post(f"/v1/memories/{held}/retract", json={"reason": "mistyped turn"})
    assert r.status_code == 200
    assert tenant.post("/v1/memories", json=_turn(1, "Bob: good morning")).status_code == 201


def test_other_namespaces_do_not_hold_a_place(tenant: Tenant, other_tenant: Tenant) -> None:
    assert _batch(other_tenant, [_turn(0, "Alice: hi")]).status_code == 201
    assert _batch(tenant, [_turn(0, "Carol: hey")]).status_code == 201


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/v1/memories/batch", 409, "memory.position_taken"),
        ("/v1/memories/batch", 422, "input.position_clash"),
        ("/v1/memories", 409, "memory.position_taken"),
    ],
)
def test_openapi_declares_the_refusals(tenant: Tenant, path: str, status: int, code: str) -> None:
    spec = tenant.client.get("/openapi.json").json()
    answer = spec["paths"][path]["post"]["responses"][str(status)]
    assert f"`{code}`" in answer["description"]
    error_body = spec["components"]["schemas"]["ErrorBody"]["properties"]
    assert "errors" in error_body and "memory_id" in error_body
    invalid = spec["components"]["schemas"]["RequestInvalidBody"]["properties"]
    assert "errors" in invalid


def test_the_same_text_of_another_kind_at_one_place_is_no_repeat(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    """Trial 25: an observation, a fact and a decision "x is y2" at one place were three
    memories, each `created: true`."""
    kinds = [{**_turn(0, "x is y2"), "kind": k} for k in ("observation", "fact", "decision")]
    r = _batch(tenant, kinds)
    assert r.status_code == 422, r.text
    assert [(e["index"], e["code"]) for e in r.json()["errors"]] == [
        (1, "input.position_clash"),
        (2, "input.position_clash"),
    ]
    assert _batch(tenant, kinds[:1]).status_code == 201
    single = tenant.post("/v1/memories", json=kinds[2])
    assert single.status_code == 409 and single.json()["code"] == "memory.position_taken"
    again = tenant.post("/v1/memories", json=kinds[0])
    assert again.status_code == 200 and again.json()["created"] is False
    assert _count(neo4j_driver, tenant.namespace) == 1
