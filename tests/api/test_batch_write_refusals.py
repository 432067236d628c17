"""A batch item refused while the batch is written is named by its index; nothing is written."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from tests.conftest import Tenant

KEY = {"kind": "fact", "subject": "alice", "attribute": "home"}


def _memories(driver: Driver, namespace: str) -> list[str]:
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN m.content AS c ORDER BY c", ns=namespace
    )
    return [r["c"] for r in records]


def _refused(tenant: Tenant, items: list[dict[str, Any]], index: int) -> None:
    r = tenant.post("/v1/memories/batch", json={"items": items})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "input.invalid"
    assert body["index"] == index
    assert body["detail"].startswith(f"items[{index}]: valid_to runs into the next value")


def test_a_keyed_fact_running_into_a_stored_value_is_named(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    # A fresh-user trial: this 422 said what, not which item.
    stored = tenant.post(
        "/v1/memories",
        json={**KEY, "content": "Alice lives in District 2", "valid_from": "2025-06-01T00:00:00Z"},
    )
    assert stored.status_code == 201, stored.text
    items = [
        {"kind": "observation", "content": "The move was announced in spring"},
        {
            **KEY,
            "content": "Alice lives in District 1",
            "valid_from": "2025-01-01T00:00:00Z",
            "valid_to": "2025-12-01T00:00:00Z",  # past the stored value's start
        },
    ]
    _refused(tenant, items, 1)
    assert _memories(neo4j_driver, tenant.namespace) == ["Alice lives in District 2"]


def test_a_keyed_fact_running_into_an_earlier_item_is_named(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    items = [
        {**KEY, "content": "Alice lives in District 2", "valid_from": "2025-06-01T00:00:00Z"},
        {"kind": "observation", "content": "The move was announced in spring"},
        {
            "kind": "fact",
            "content": "Bob lives in District 3",
            "subject": "bob",
            "attribute": "home",
        },
        {
            **KEY,
            "content": "Alice lives in District 1",
            "valid_from": "2025-01-01T00:00:00Z",
            "valid_to": "2025-12-01T00:00:00Z",  # past item 0's start
        },
    ]
    _refused(tenant, items, 3)
    assert _memories(neo4j_driver, tenant.namespace) == []  # all or nothing, as before
