"""`/browser/*` answers Neo4j Browser (another origin) with CORS headers, refusals included."""

from __future__ import annotations

import pytest

from service.api.errors import BROWSER_CORS as CORS
from tests.conftest import Tenant

BROWSER = {"Origin": "http://localhost:7474"}


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        ("/browser/guide", {"namespace": "team-a"}, 200),
        ("/browser/guide", {}, 200),
        ("/browser/rationale.grass", {}, 200),
        # A fresh-user trial: the refusal had no Access-Control-Allow-Origin, so the Browser
        # showed a network error instead of the detail.
        ("/browser/guide", {"namespace": "bad ns"}, 422),
        ("/browser/guide", {"namespace": "x" * 65}, 422),
        ("/browser/guide", {"namespace": ["a", "b.c"]}, 422),
        # Trial 13: a parameter the route does not take was ignored (200), as on no /v1 route.
        ("/browser/guide", {"namespace": "team-a", "x": "1"}, 422),
        ("/browser/rationale.grass", {"y": "2"}, 422),
    ],
)
def test_browser_answers_carry_cors_headers_refusals_too(
    tenant: Tenant, path: str, params: dict[str, str | list[str]], status: int
) -> None:
    r = tenant.client.get(path, params=params, headers=BROWSER)
    assert r.status_code == status, r.text
    for name, value in CORS.items():
        assert r.headers.get(name) == value, (name, r.headers)
    if status == 422:
        assert r.json()["code"] == "input.invalid", r.text


def test_the_preflight_carries_cors_headers(tenant: Tenant) -> None:
    r = tenant.client.options(
        "/browser/guide",
        headers={**BROWSER, "Access-Control-Request-Method": "GET"},
    )
    assert r.status_code == 204, r.text
    for name, value in CORS.items():
        assert r.headers.get(name) == value, (name, r.headers)
    grass = tenant.client.options("/browser/rationale.grass", headers=BROWSER)
    assert grass.status_code == 204, grass.text


def test_a_browser_path_that_does_not_exist_is_not_found(tenant: Tenant) -> None:
    """Trial 12: the preflight route took every name, so GET /browser/x was 405 Allow: OPTIONS."""
    r = tenant.client.get("/browser/nonexistent", headers=BROWSER)
    assert r.status_code == 404, r.text
    assert tenant.client.options("/browser/nonexistent", headers=BROWSER).status_code == 404
    # Trial 13: with CORS, or the Browser shows a network error instead of the 404.
    for path in ("/browser/nonexistent", "/browser/guide/", "/browser"):
        for method in ("GET", "OPTIONS"):
            r = tenant.client.request(method, path, headers=BROWSER)
            assert r.status_code == 404, (method, path, r.text)
            assert r.json()["code"] == "not_found"
            for name, value in CORS.items():
                assert r.headers.get(name) == value, (method, path, name, r.headers)
    # Elsewhere a 404 carries none.
    assert "Access-Control-Allow-Origin" not in tenant.client.get("/browsers").headers


@pytest.mark.parametrize(
    ("method", "path"), [("POST", "/browser/guide"), ("DELETE", "/browser/rationale.grass")]
)
def test_a_method_the_browser_routes_do_not_take_is_refused_with_cors(
    tenant: Tenant, method: str, path: str
) -> None:
    """Trial 12: a 405 from `/browser` carried no CORS, so the Browser showed a network error."""
    r = tenant.client.request(method, path, headers=BROWSER)
    assert r.status_code == 405, r.text
    assert r.json()["code"] == "method_not_allowed"
    assert "GET" in r.headers["Allow"]
    for name, value in CORS.items():
        assert r.headers.get(name) == value, (name, r.headers)
