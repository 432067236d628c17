"""Header inputs a new user got wrong: an empty Idempotency-Key, If-Match 0 or -1, HEAD probes."""

from __future__ import annotations

import pytest
from neo4j import Driver

from tests.conftest import Tenant


def _count(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=namespace
    )
    return int(records[0]["n"])


def test_an_empty_idempotency_key_is_refused_and_writes_nothing(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    r = tenant.post(
        "/v1/memories",
        json={"kind": "fact", "content": "The cache lives in Redis"},
        headers={"Idempotency-Key": ""},
    )
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    assert "1 to 200 characters" in r.json()["detail"]
    assert _count(neo4j_driver, tenant.namespace) == 0


@pytest.mark.parametrize("version", ["0", "-1", '"-3"'])
def test_if_match_below_1_is_invalid_input_not_a_conflict(tenant: Tenant, version: str) -> None:
    created = tenant.post("/v1/memories", json={"kind": "fact", "content": "Rack A"}).json()
    r = tenant.patch(
        f"/v1/memories/{created['memory_id']}",
        json={"content": "Rack B"},
        headers={"If-Match": version},
    )
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    assert tenant.get(f"/v1/memories/{created['memory_id']}").json()["content"] == "Rack A"


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_head_probes_answer_as_get_without_a_body(tenant: Tenant, path: str) -> None:
    get = tenant.client.get(path)
    head = tenant.client.head(path)
    assert head.status_code == get.status_code == 200, head.text
    assert head.content == b""
