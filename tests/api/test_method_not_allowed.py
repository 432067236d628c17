"""A 405 names the methods its path allows (RFC 9110 §15.5.6), parametrised paths included."""

from __future__ import annotations

import pytest

from tests.conftest import Tenant


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        # A fresh-user trial: each of these answered `Allow: ` (empty).
        ("PUT", "/v1/memories/abc", "GET, HEAD, PATCH"),
        ("DELETE", "/v1/recall", "POST"),
        ("OPTIONS", "/v1/recall", "POST"),
        ("DELETE", "/v1/memories", "POST"),
        ("PUT", "/v1/memories/abc/invalidate", "POST"),
        ("DELETE", "/v1/memories/abc/outcomes", "GET, HEAD, POST"),  # two routes, one path
        # `/v1/memories/{memory_id}` matches too, but this path is the batch resource.
        ("PUT", "/v1/memories/batch", "POST"),
        ("OPTIONS", "/v1/memories/batch", "POST"),
        # These were a memory's routes with the id `batch`: 404 `memory.not_found` (trial 6).
        ("GET", "/v1/memories/batch", "POST"),
        ("PATCH", "/v1/memories/batch", "POST"),
        ("PATCH", "/v1/reasoning/t-1", "GET, HEAD"),
        ("POST", "/v1/diagnostics", "GET, HEAD"),
        # Outside /v1 and the schema: the probes and the document answer GET and HEAD.
        ("POST", "/healthz", "GET, HEAD"),
        ("DELETE", "/openapi.json", "GET, HEAD"),
    ],
)
def test_a_405_lists_the_paths_methods(
    tenant: Tenant, method: str, path: str, allowed: str
) -> None:
    r = tenant.client.request(method, path, headers=tenant.headers)
    assert r.status_code == 405, r.text
    assert r.json() == {"detail": "Method Not Allowed", "code": "method_not_allowed"}
    assert r.headers["allow"] == allowed
    # Every method named is one the path answers with something other than a 405.
    for listed in allowed.split(", "):
        answer = tenant.client.request(listed, path, headers=tenant.headers)
        assert answer.status_code != 405, (listed, path, answer.text)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/memories/{id}/"),
        ("POST", "/v1/memories/"),
        ("POST", "/v1/recall/"),
        ("GET", "/healthz/"),
    ],
)
def test_a_path_with_a_trailing_slash_is_no_route(tenant: Tenant, method: str, path: str) -> None:
    """Trial 13: a bare 307 (no body) to the path without the slash; the README's contract is
    that a path with no route is 404 `not_found`."""
    memory = tenant.post("/v1/memories", json={"kind": "fact", "content": "slash"}).json()
    r = tenant.client.request(
        method,
        path.format(id=memory["memory_id"]),
        json={},
        headers=tenant.headers,
        follow_redirects=False,
    )
    assert r.status_code == 404, (r.status_code, r.headers)
    assert r.json()["code"] == "not_found"
