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


def test_head_of_a_v1_resource_is_its_get_without_a_body(tenant: Tenant) -> None:
    """RFC 9110 §9.1: GET and HEAD. `HEAD /v1/memories/{id}` was a 405 (trial 6)."""
    created = tenant.post("/v1/memories", json={"kind": "fact", "content": "Rack A"}).json()
    path = f"/v1/memories/{created['memory_id']}"
    get = tenant.client.get(path, headers=tenant.headers)
    head = tenant.client.head(path, headers=tenant.headers)
    assert head.status_code == get.status_code == 200, head.text
    assert head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.headers["content-length"] == get.headers["content-length"]
    # The same checks as the GET: a missing memory, a missing key.
    missing = tenant.client.head("/v1/memories/no-such-memory", headers=tenant.headers)
    assert missing.status_code == 404 and missing.content == b""
    assert tenant.client.head(path).status_code == 401


@pytest.mark.parametrize(
    ("path", "allowed"), [("/v1/recall", "POST"), ("/v1/memories/batch", "POST")]
)
def test_head_of_a_resource_without_get_stays_a_405(
    tenant: Tenant, path: str, allowed: str
) -> None:
    r = tenant.client.head(path, headers=tenant.headers)
    assert r.status_code == 405 and r.headers["allow"] == allowed


def test_head_of_the_mcp_endpoint_opens_no_stream(tenant: Tenant) -> None:
    """`/mcp` answers POST only: a HEAD is not run as the GET that opens an event stream."""
    r = tenant.client.head("/mcp", headers=tenant.headers)
    assert r.status_code == 405 and r.content == b""


def test_two_if_match_headers_are_refused_and_write_nothing(tenant: Tenant) -> None:
    """Trial 17: `If-Match: 1` and `If-Match: 2` wrote against the first; RFC 9110 reads them
    as one list ("1, 2"), which is refused: a write names the one version it read."""
    created = tenant.post("/v1/memories", json={"kind": "fact", "content": "Rack A"}).json()
    path = f"/v1/memories/{created['memory_id']}"
    headers = [*tenant.headers.items(), ("If-Match", "1"), ("If-Match", "2")]
    r = tenant.client.patch(path, json={"content": "Rack B"}, headers=headers)
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    assert "got 2 headers" in r.json()["detail"]
    assert tenant.get(path).json()["content"] == "Rack A"


def test_a_memory_answer_tags_its_version_for_if_match(tenant: Tenant) -> None:
    """Trial 19: the version was in the body only; `ETag` carries it for `If-Match`."""
    created = tenant.post("/v1/memories", json={"kind": "fact", "content": "Rack A"}).json()
    path = f"/v1/memories/{created['memory_id']}"
    read = tenant.get(path)
    assert read.headers["etag"] == '"1"'
    updated = tenant.patch(
        path, json={"content": "Rack B"}, headers={"If-Match": read.headers["etag"]}
    )
    assert updated.status_code == 200 and updated.headers["etag"] == '"2"', updated.text
    assert tenant.get(path).headers["etag"] == '"2"'
    spec = tenant.client.get("/openapi.json").json()["paths"]["/v1/memories/{memory_id}"]
    for method in ("get", "patch"):
        ok = spec[method]["responses"]["200"]
        assert "ETag" in ok["headers"] and "$ref" in str(ok["content"]), (method, ok)
