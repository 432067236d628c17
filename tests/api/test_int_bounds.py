"""Integers outside Neo4j's signed 64-bit range are a 422 naming the field, never a 500."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver

from tests.conftest import Tenant

INT64_MAX = 2**63 - 1
TOO_BIG = [2**63, 10**23, -(2**63) - 1]


def _count(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (n {namespace: $ns}) RETURN count(n) AS n", ns=namespace
    )
    return int(records[0]["n"])


def _episodic(position: int) -> dict[str, Any]:
    return {"kind": "observation", "content": "x", "episode": "e", "position": position}


@pytest.mark.parametrize("value", TOO_BIG)
def test_a_position_beyond_int64_is_422(tenant: Tenant, neo4j_driver: Driver, value: int) -> None:
    r = tenant.post("/v1/memories", json=_episodic(value))
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    assert [e["loc"] for e in r.json()["detail"]] == [["body", "position"]]
    assert _count(neo4j_driver, tenant.namespace) == 0


@pytest.mark.parametrize("value", TOO_BIG)
def test_a_batch_item_beyond_int64_is_named_by_index(
    tenant: Tenant, neo4j_driver: Driver, value: int
) -> None:
    items = [_episodic(i) for i in range(3)]
    items.insert(2, _episodic(value))
    r = tenant.post("/v1/memories/batch", json={"items": items})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    assert [e["loc"] for e in r.json()["detail"]] == [["body", "items", 2, "position"]]
    assert _count(neo4j_driver, tenant.namespace) == 0


@pytest.mark.parametrize("value", TOO_BIG)
def test_an_integer_beyond_int64_in_metadata_is_422(
    tenant: Tenant, neo4j_driver: Driver, value: int
) -> None:
    body = {"kind": "fact", "content": "big numbers", "metadata": {"n": {"deep": [1, value]}}}
    r = tenant.post("/v1/memories", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    assert r.json()["detail"][0]["loc"] == ["body", "metadata"]
    assert "64-bit" in r.text
    batch = tenant.post(
        "/v1/memories/batch", json={"items": [{"kind": "fact", "content": "a"}, body]}
    )
    assert batch.status_code == 422, batch.text
    assert batch.json()["detail"][0]["loc"][:3] == ["body", "items", 1]
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_the_int64_bounds_themselves_are_accepted(tenant: Tenant) -> None:
    r = tenant.post("/v1/memories", json=_episodic(INT64_MAX))
    assert r.status_code == 201, r.text
    assert r.json()["position"] == INT64_MAX
    meta = {"max": INT64_MAX, "min": -(2**63)}
    m = tenant.post("/v1/memories", json={"kind": "fact", "content": "edges", "metadata": meta})
    assert m.status_code == 201, m.text
    assert tenant.get(f"/v1/memories/{m.json()['memory_id']}").json()["metadata"] == meta


@pytest.mark.parametrize("limit", [2**63, 1e20, 101.0])
@pytest.mark.parametrize("path", ["/v1/recall", "/v1/search"])
def test_a_huge_limit_is_422_naming_the_fields_own_bound(
    tenant: Tenant, path: str, limit: float
) -> None:
    """The error names the limit's own maximum (100), not the 64-bit one, for an int or a float."""
    r = tenant.post(path, json={"query": "x", "limit": limit})
    assert r.status_code == 422, r.text
    [error] = r.json()["detail"]
    assert error["loc"] == ["body", "limit"]
    assert error["type"] == "less_than_equal"
    assert error["msg"] == "Input should be less than or equal to 100"


def test_a_huge_float_position_names_the_64_bit_bound(tenant: Tenant, neo4j_driver: Driver) -> None:
    """1e20 is an integer beyond what Neo4j stores: the same 422 as 10**20, nothing written."""
    r = tenant.post("/v1/memories", json=_episodic(1e20))  # type: ignore[arg-type]
    assert r.status_code == 422, r.text
    [error] = r.json()["detail"]
    assert error["loc"] == ["body", "position"]
    assert error["msg"] == f"Input should be less than or equal to {INT64_MAX}"
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_a_huge_if_match_is_422(tenant: Tenant) -> None:
    m = tenant.post("/v1/memories", json={"kind": "fact", "content": "to patch"}).json()
    r = tenant.patch(
        f"/v1/memories/{m['memory_id']}",
        json={"content": "patched"},
        headers={"If-Match": str(2**63)},
    )
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    assert tenant.get(f"/v1/memories/{m['memory_id']}").json()["version"] == 1
