"""A compressed request body is a 415 naming the coding, not a 422 about broken JSON."""

from __future__ import annotations

import gzip
import json

import pytest
from neo4j import Driver

from tests.conftest import Tenant

BODY = json.dumps({"kind": "fact", "content": "The pump runs at night"}).encode()


def _count(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=namespace
    )
    return int(records[0]["n"])


@pytest.mark.parametrize("coding", ["gzip", "br", "identity, gzip", "GZIP"])
def test_a_compressed_body_is_refused_and_stores_nothing(
    tenant: Tenant, neo4j_driver: Driver, coding: str
) -> None:
    r = tenant.client.post(
        "/v1/memories",
        content=gzip.compress(BODY),
        headers={**tenant.headers, "Content-Type": "application/json", "Content-Encoding": coding},
    )
    assert r.status_code == 415, r.text
    assert r.json()["code"] == "input.unsupported_media_type"
    assert coding.lower() in r.json()["detail"]
    assert r.headers["Accept-Encoding"] == "identity"
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_identity_is_plain_json(tenant: Tenant) -> None:
    r = tenant.client.post(
        "/v1/memories",
        content=BODY,
        headers={
            **tenant.headers,
            "Content-Type": "application/json",
            "Content-Encoding": "identity",
        },
    )
    assert r.status_code == 201, r.text


def test_without_a_key_the_answer_is_still_401(tenant: Tenant) -> None:
    r = tenant.client.post(
        "/v1/memories",
        content=gzip.compress(BODY),
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )
    assert r.status_code == 401, r.text


def test_a_request_without_a_body_passes_whatever_it_declares(tenant: Tenant) -> None:
    created = tenant.post("/v1/memories", json={"kind": "fact", "content": "The fan is quiet"})
    assert created.status_code == 201, created.text
    r = tenant.client.get(
        f"/v1/memories/{created.json()['memory_id']}",
        headers={**tenant.headers, "Content-Encoding": "gzip"},
    )
    assert r.status_code == 200, r.text


def test_a_key_without_the_scope_is_403_before_the_coding(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    # The scope is checked before anything about the body: a read-only key learns nothing of
    # what a write operation accepts (was a 415 first: the coding was refused before routing).
    read_only = tenant.key_with(["read"])
    r = tenant.client.post(
        "/v1/memories",
        content=gzip.compress(BODY),
        headers={
            "Authorization": f"Bearer {read_only}",
            "Content-Type": "application/json",
            "Content-Encoding": "gzip",
        },
    )
    assert r.status_code == 403, r.text
    assert r.json()["code"] == "auth.forbidden"
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_a_coded_body_to_a_read_operation_is_415_for_a_read_only_key(tenant: Tenant) -> None:
    read_only = tenant.key_with(["read"])
    r = tenant.client.post(
        "/v1/recall",
        content=gzip.compress(json.dumps({"query": "pump"}).encode()),
        headers={
            "Authorization": f"Bearer {read_only}",
            "Content-Type": "application/json",
            "Content-Encoding": "gzip",
        },
    )
    assert r.status_code == 415, r.text
    assert r.json()["code"] == "input.unsupported_media_type"
