"""A /v1 request without a known key is a 401 before its body is read (not a 415 or 422)."""

from __future__ import annotations

import pytest

from tests.conftest import Tenant


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "auth.invalid_key"),
        ({"Authorization": "Bearer not-a-key"}, "auth.invalid_key"),
        ({"Authorization": "Basic abc"}, "auth.invalid_key"),
    ],
)
@pytest.mark.parametrize(
    ("content", "media"),
    [
        (b'{"query": "x", ', "application/json"),  # invalid JSON: was 422 input.invalid
        (b"query=x", "text/plain"),  # not JSON at all: was 415
        (b'{"query": "x", "limit": "ten"}', "application/json"),  # schema error: 401 already
    ],
)
def test_no_known_key_is_401_whatever_the_body(
    tenant: Tenant, headers: dict[str, str], code: str, content: bytes, media: str
) -> None:
    r = tenant.client.post(
        "/v1/recall", content=content, headers={"Content-Type": media, **headers}
    )
    assert r.status_code == 401, r.text
    assert r.json()["code"] == code
    assert r.headers["WWW-Authenticate"] == "Bearer"


def test_a_known_key_still_gets_the_body_errors(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/recall", content=b'{"query": "x", ', headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text


@pytest.mark.parametrize(
    ("path", "content", "media"),
    [
        ("/v1/memories", b'{"kind": "fact", ', "application/json"),  # invalid JSON
        ("/v1/memories", b"kind=fact", "text/plain"),  # not JSON
        ("/v1/memories", b'{"kind": "fact", "confidence": "high"}', "application/json"),
        ("/v1/memories/batch", b'{"items": 3}', "application/json"),
        ("/v1/ingest", b"{", "application/json"),
        ("/v1/maintenance/run", b'{"job": 1}', "application/json"),
    ],
)
def test_a_key_without_the_scope_is_403_whatever_the_body(
    tenant: Tenant, path: str, content: bytes, media: str
) -> None:
    # A fresh-user trial: a read-only key got 422 for a malformed body on a write route, so it
    # learnt what the operation accepts; the scope decides first, as the key does.
    key = tenant.key_with(["read"])
    r = tenant.client.post(
        path,
        content=content,
        headers={"Authorization": f"Bearer {key}", "Content-Type": media},
    )
    assert r.status_code == 403, r.text
    assert r.json()["code"] == "auth.forbidden"
    assert "'" in r.json()["detail"]  # names the scope it lacks


def test_a_key_with_the_scope_still_gets_the_body_errors(tenant: Tenant) -> None:
    key = tenant.key_with(["write"])
    r = tenant.client.post(
        "/v1/memories",
        content=b'{"kind": "fact", ',
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    r = tenant.client.post(
        "/v1/recall",
        content=b'{"query": "x"}',
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    assert r.status_code == 403 and r.json()["code"] == "auth.forbidden", r.text


@pytest.mark.parametrize("path", ["/v1/memories", "/mcp"])
def test_two_authorization_headers_are_refused(
    tenant: Tenant, other_tenant: Tenant, path: str
) -> None:
    # A fresh-user trial: a request with two keys was written as the first key's caller.
    body: dict[str, object] = {"kind": "observation", "content": "written under which key?"}
    if path == "/mcp":
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    r = tenant.client.post(
        path,
        json=body,
        headers=[
            ("Authorization", f"Bearer {tenant.key}"),
            ("Authorization", f"Bearer {other_tenant.key}"),
            ("Accept", "application/json, text/event-stream"),
        ],
    )
    assert r.status_code == 401, r.text
    assert r.json()["code"] == "auth.invalid_key"
    assert "2 Authorization headers" in r.json()["detail"]
    for t in (tenant, other_tenant):
        assert t.post("/v1/recall", json={"query": "written under which key"}).json()["count"] == 0
