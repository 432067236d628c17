"""A JSON operation sent another media type answers 415 `input.unsupported_media_type`, writes nothing."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from tests.conftest import Tenant

FACT = {"kind": "fact", "content": "billing runs on Postgres 16"}


def count_nodes(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (n {namespace: $ns}) RETURN count(n) AS n", ns=namespace
    )
    return int(records[0]["n"])


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        None,  # a JSON body without Content-Type: refused as today (then 422), now saying why
    ],
)
def test_a_body_that_is_not_declared_json_is_415(
    tenant: Tenant, neo4j_driver: Driver, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    r = tenant.post("/v1/memories", content=json.dumps(FACT), headers=headers)
    assert r.status_code == 415, r.text
    assert r.json()["code"] == "input.unsupported_media_type"
    assert ("no Content-Type" if content_type is None else content_type) in r.json()["detail"]
    assert count_nodes(neo4j_driver, tenant.namespace) == 0


def test_form_fields_are_415(tenant: Tenant, neo4j_driver: Driver) -> None:
    r = tenant.client.post("/v1/memories", data=FACT, headers=tenant.headers)
    assert r.status_code == 415, r.text
    r = tenant.client.post(
        "/v1/ingest",
        files={"content": ("notes.txt", b"a note")},
        headers=tenant.headers,
    )
    assert r.status_code == 415, r.text
    assert count_nodes(neo4j_driver, tenant.namespace) == 0


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/vnd.rationale+json",
    ],
)
def test_json_and_structured_json_types_pass(tenant: Tenant, content_type: str) -> None:
    r = tenant.post(
        "/v1/memories",
        content=json.dumps({**FACT, "content": f"billing runs on Postgres ({content_type})"}),
        headers={"Content-Type": content_type},
    )
    assert r.status_code == 201, r.text


def test_patch_with_a_text_body_is_415_and_keeps_the_version(tenant: Tenant) -> None:
    memory = tenant.post("/v1/memories", json=FACT).json()
    r = tenant.patch(
        f"/v1/memories/{memory['memory_id']}",
        content=json.dumps({"content": "billing runs on MySQL"}),
        headers={"Content-Type": "text/plain", "If-Match": str(memory["version"])},
    )
    assert r.status_code == 415, r.text
    assert tenant.get(f"/v1/memories/{memory['memory_id']}").json()["version"] == memory["version"]


def test_an_empty_body_is_still_the_schemas_422(tenant: Tenant) -> None:
    for headers in ({}, {"Content-Type": "text/plain"}):
        r = tenant.post("/v1/recall", content=b"", headers=headers)
        assert r.status_code == 422, r.text
        assert r.json()["code"] == "input.invalid"


def test_operations_without_a_body_ignore_the_content_type(tenant: Tenant) -> None:
    r = tenant.client.request(
        "GET",
        "/v1/diagnostics",
        content=b"ignored",
        headers={**tenant.headers, "Content-Type": "text/plain"},
    )
    assert r.status_code == 200, r.text


def test_every_operation_with_a_json_body_declares_415(app_client: TestClient) -> None:
    paths = app_client.get("/openapi.json").json()["paths"]
    with_body = 0
    for path, operations in paths.items():
        for method, operation in operations.items():
            declared = "415" in operation["responses"]
            has_body = "requestBody" in operation
            assert declared == has_body, (method, path)
            if has_body:
                with_body += 1
                assert "application/json" in operation["requestBody"]["content"], (method, path)
                assert (
                    "input.unsupported_media_type" in operation["responses"]["415"]["description"]
                )
    assert with_body >= 13


@pytest.mark.parametrize(
    ("encoding", "charset"),
    [("latin-1", "latin-1"), ("utf-16", "utf-16"), ("utf-16-le", "utf-16"), ("utf-32", "utf-32")],
)
def test_a_body_that_is_not_utf8_says_so(
    tenant: Tenant, neo4j_driver: Driver, encoding: str, charset: str
) -> None:
    # Fresh-user trials: a latin-1 body got "There was an error parsing the body"; a UTF-16
    # one (trial 11) was read (RFC 8259 §8.1: JSON exchanged between systems MUST be UTF-8).
    before = count_nodes(neo4j_driver, tenant.namespace)
    r = tenant.client.post(
        "/v1/memories",
        content='{"kind": "fact", "content": "Zürich"}'.encode(encoding),
        headers={**tenant.headers, "Content-Type": f"application/json; charset={charset}"},
    )
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    assert "not UTF-8" in r.json()["detail"], r.text
    assert count_nodes(neo4j_driver, tenant.namespace) == before
