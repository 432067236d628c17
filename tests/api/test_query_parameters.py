"""A query parameter the operation does not take, or one given twice, is a 422 (as a body's).

Trial 9: `GET /v1/reasoning/{id}?as_of=2020-...` answered today's trace as if read at 2020,
and `?as_of=A&as_of=B` answered at B; a body's unknown field was already `extra_forbidden`.
"""

from __future__ import annotations

from tests.conftest import Tenant


def _issues(r: object) -> list[dict[str, object]]:
    answer = r.json()  # type: ignore[attr-defined]
    assert r.status_code == 422 and answer["code"] == "input.invalid", answer  # type: ignore[attr-defined]
    detail: list[dict[str, object]] = answer["detail"]
    return detail


def test_an_unknown_query_parameter_is_refused(tenant: Tenant) -> None:
    created = tenant.post("/v1/memories", json={"kind": "fact", "content": "Rack A"}).json()
    memory = f"/v1/memories/{created['memory_id']}"
    for path in (
        f"{memory}/history?as_of=2020-01-01T00:00:00Z",
        f"{memory}?asof=2020-01-01T00:00:00Z",
    ):
        (issue,) = _issues(tenant.client.get(path, headers=tenant.headers))
        assert issue["type"] == "extra_forbidden" and issue["loc"][0] == "query", issue  # type: ignore[index]
    r = tenant.client.post("/v1/recall?limit=3", json={"query": "rack"}, headers=tenant.headers)
    (issue,) = _issues(r)
    assert issue["loc"] == ["query", "limit"], issue
    # The parameters an operation takes still answer.
    ok = tenant.client.get(f"{memory}?as_of=2030-01-01T00:00:00Z", headers=tenant.headers)
    assert ok.status_code == 200, ok.text


def test_a_query_parameter_given_twice_is_refused(tenant: Tenant) -> None:
    created = tenant.post("/v1/memories", json={"kind": "fact", "content": "Rack A"}).json()
    path = (
        f"/v1/memories/{created['memory_id']}?as_of=2020-01-01T00:00:00Z&as_of=2030-01-01T00:00:00Z"
    )
    (issue,) = _issues(tenant.client.get(path, headers=tenant.headers))
    assert issue["loc"] == ["query", "as_of"] and issue["type"] == "repeated", issue
    assert "2 times" in str(issue["msg"])


def test_an_infinite_or_nan_integer_says_so(tenant: Tenant) -> None:
    """`"limit": 1e400` read as inf was "a number with a fractional part" (trial 9)."""
    for raw in ("1e400", "-1e400", "NaN"):
        r = tenant.client.post(
            "/v1/recall",
            content='{"query": "rack", "limit": ' + raw + "}",
            headers={**tenant.headers, "Content-Type": "application/json"},
        )
        (issue,) = _issues(r)
        assert issue["type"] == "finite_number", issue
        assert "finite" in str(issue["msg"]), issue
