"""The headers `/openapi.json` declares are the ones the service reads: If-Match, Idempotency-Key."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.test_docs import IDEMPOTENT
from tests.conftest import Tenant


def _header(operation: dict[str, Any], name: str) -> dict[str, Any] | None:
    found = [
        p
        for p in operation.get("parameters", [])
        if p["in"] == "header" and p["name"].lower() == name.lower()
    ]
    assert len(found) <= 1, found  # declared once
    return found[0] if found else None


def test_patch_declares_if_match_required(app_client: TestClient) -> None:
    # A fresh-user trial: declared `required: false`, while a PATCH without it is a 422.
    patch = app_client.get("/openapi.json").json()["paths"]["/v1/memories/{memory_id}"]["patch"]
    if_match = _header(patch, "If-Match")
    assert if_match is not None
    assert if_match["required"] is True
    assert if_match["schema"]["type"] == "string"
    assert "version" in if_match["description"]


def test_patch_without_if_match_keeps_the_services_own_422(tenant: Tenant) -> None:
    created = tenant.post("/v1/memories", json={"kind": "fact", "content": "Rack A"}).json()
    r = tenant.patch(f"/v1/memories/{created['memory_id']}", json={"content": "Rack B"})
    assert r.status_code == 422, r.text
    assert r.json() == {"detail": "If-Match: <version> is required", "code": "input.invalid"}
    ok = tenant.patch(
        f"/v1/memories/{created['memory_id']}",
        json={"content": "Rack B"},
        headers={"If-Match": str(created["version"])},
    )
    assert ok.status_code == 200 and ok.json()["content"] == "Rack B", ok.text


def test_every_operation_honouring_idempotency_key_declares_it(app_client: TestClient) -> None:
    # A fresh-user trial: the README says a POST accepts `Idempotency-Key`; none declared it.
    paths = app_client.get("/openapi.json").json()["paths"]
    declaring = set()
    for path, operations in paths.items():
        for method, operation in operations.items():
            key = _header(operation, "Idempotency-Key")
            if key is None:
                continue
            declaring.add(path)
            assert method == "post", (method, path)
            assert key["required"] is False, path
            assert key["schema"]["type"] == "string", path
            assert (key["schema"]["minLength"], key["schema"]["maxLength"]) == (1, 200), path
            assert "replay" in key["description"], path
            assert "different request" in key["description"], path
    assert declaring == set(IDEMPOTENT)
    # ... the operations whose answers declare the key's own conflict (`respond`'s 409).
    in_flight = {
        path
        for path, operations in paths.items()
        for operation in operations.values()
        if "idempotency.in_flight" in operation["responses"].get("409", {}).get("description", "")
    }
    assert declaring == in_flight


def test_the_declared_idempotency_key_limits_are_the_enforced_ones(tenant: Tenant) -> None:
    body = {"kind": "observation", "content": "The nightly build took 41 minutes"}
    for bad in ("", "k" * 201):
        r = tenant.post("/v1/memories", json=body, headers={"Idempotency-Key": bad})
        assert r.status_code == 422, r.text
        assert r.json() == {
            "detail": "Idempotency-Key must be 1 to 200 characters",
            "code": "input.invalid",
        }
    first = tenant.post("/v1/memories", json=body, headers={"Idempotency-Key": "k" * 200})
    assert first.status_code == 201, first.text
    replay = tenant.post("/v1/memories", json=body, headers={"Idempotency-Key": "k" * 200})
    assert replay.status_code == 201 and replay.headers["Idempotent-Replay"] == "true"
    other = tenant.post(
        "/v1/memories", json={**body, "content": "other"}, headers={"Idempotency-Key": "k" * 200}
    )
    assert other.status_code == 422 and other.json()["code"] == "input.invalid", other.text
    assert "different request" in other.json()["detail"]


def test_every_v1_operation_declares_the_bearer_key(app_client: TestClient) -> None:
    """The key is a security scheme (Swagger UI's Authorize), not an optional header (trial 6)."""
    spec = app_client.get("/openapi.json").json()
    assert spec["components"]["securitySchemes"]["apiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": spec["components"]["securitySchemes"]["apiKey"]["description"],
    }
    operations = [
        (path, operation)
        for path, methods in spec["paths"].items()
        if path.startswith("/v1/")
        for operation in methods.values()
    ]
    assert len(operations) > 15
    for path, operation in operations:
        assert operation.get("security") == [{"apiKey": []}], path
        assert _header(operation, "authorization") is None, path
    # The service's own 401 still answers a request without a key.
    r = app_client.post("/v1/recall", json={"query": "anything"})
    assert r.status_code == 401 and r.json()["code"] == "auth.invalid_key", r.text


def test_every_idempotent_success_declares_the_replay_header(app_client: TestClient) -> None:
    """A replay carries `Idempotent-Replay: true`; the contract said nothing of it (trial 6)."""
    paths = app_client.get("/openapi.json").json()["paths"]
    declared = 0
    for path, operations in paths.items():
        for operation in operations.values():
            if _header(operation, "Idempotency-Key") is None:
                continue
            successes = {s: r for s, r in operation["responses"].items() if s.startswith("2")}
            assert successes, path
            for status, answer in successes.items():
                replay = answer.get("headers", {}).get("Idempotent-Replay")
                assert replay is not None, (path, status)
                assert replay["schema"] == {"type": "string", "enum": ["true"]}, (path, status)
                declared += 1
    assert declared >= len(IDEMPOTENT)


def test_every_operation_declares_the_body_limits_413(app_client: TestClient) -> None:
    """The body limit refuses an oversized body on any request: a GET's 413 was undeclared (trial 9)."""
    paths = app_client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            assert "input.too_large" in operation["responses"]["413"]["description"], (method, path)
    r = app_client.request(
        "GET", "/healthz", content=b"x" * 64, headers={"Content-Length": str(13 * 2**20)}
    )
    assert r.status_code == 413 and r.json()["code"] == "input.too_large", r.text


def test_every_declared_error_answer_is_json(app_client: TestClient) -> None:
    """Trial 13: the style's errors were declared `text/plain` (its route class's media type)
    while the service sends every error as JSON `ErrorBody`."""
    paths = app_client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            for status, answer in operation["responses"].items():
                if status.startswith(("4", "5")):
                    assert list(answer.get("content", {})) == ["application/json"], (
                        method,
                        path,
                        status,
                    )
    r = app_client.get("/browser/rationale.grass", headers={"Host": "evil.example"})
    assert r.status_code == 421 and r.headers["content-type"].startswith("application/json")


def test_every_503_and_401_declares_the_header_it_always_carries(app_client: TestClient) -> None:
    """Trial 19: every 503 carries `Retry-After` and every 401 `WWW-Authenticate`, which no
    operation declared."""
    spec = app_client.get("/openapi.json").json()
    seen = {503: 0, 401: 0}
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            for status, header in ((503, "Retry-After"), (401, "WWW-Authenticate")):
                answer = operation.get("responses", {}).get(str(status))
                if answer is not None:
                    assert header in answer.get("headers", {}), (method, path, status)
                    seen[status] += 1
    assert seen[503] > 10 and seen[401] > 10, seen
