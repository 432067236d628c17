"""Idempotent POSTs answer through their route's response model, fresh or replayed (no Neo4j)."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, cast

import pytest
from fastapi.exceptions import ResponseValidationError
from fastapi.routing import APIRoute
from starlette.requests import Request

from service.api import routes
from service.api.auth import Principal
from service.api.idempotent import conform, respond
from service.container import Services
from service.domain.idempotency import Claim, StoredAnswer
from service.schemas import MaintenanceReport, RevisitItem

REPORT: dict[str, Any] = {
    "job": "evidence-drift",
    "examined": 3,
    "changed": 1,
    "memory_ids": ["m1"],
    "trace_ids": ["t1"],
}


def test_conform_drops_a_key_the_model_does_not_declare() -> None:
    out = conform(MaintenanceReport, {**REPORT, "secret": "internal"})
    assert out == REPORT


def test_conform_refuses_a_wrong_type() -> None:
    with pytest.raises(ResponseValidationError) as info:
        conform(MaintenanceReport, {**REPORT, "examined": "three"})
    assert info.value.errors()[0]["loc"] == ("examined",)
    with pytest.raises(ResponseValidationError):
        conform(MaintenanceReport, {k: v for k, v in REPORT.items() if k != "trace_ids"})


def test_conform_renders_times_as_the_response_models_do() -> None:
    out = conform(
        RevisitItem,
        {
            "trace_id": "t",
            "step": 0,
            "memory_id": "m",
            "version": 1,
            "change": "invalidated",
            "changed_at": "2024-01-01T00:00:00.5+00:00",
        },
    )
    assert out["changed_at"] == "2024-01-01T00:00:00.500000Z"


class _Store:
    def __init__(self, stored: StoredAnswer | None) -> None:
        self.stored = stored
        self.remembered: list[tuple[int, Any]] = []

        self.released = 0

    def begin(self, namespace: str, key: str, digest: str) -> Claim | StoredAnswer:
        return self.stored or Claim(namespace=namespace, key=key, token="t")

    def finish(self, claim: Claim, status: int, body: Any) -> None:
        self.remembered.append((status, body))

    def release(self, claim: Claim) -> None:
        self.released += 1


class _Services:
    def __init__(self, store: _Store) -> None:
        self.idempotency = store


def _api_routes() -> list[APIRoute]:
    """Every route of every router under `service/api/routes/`."""
    out = []
    for info in pkgutil.iter_modules(routes.__path__):
        module = importlib.import_module(f"{routes.__name__}.{info.name}")
        out += [r for r in module.router.routes if isinstance(r, APIRoute)]
    return out


def _request(path: str, key: str | None) -> Request:
    route = next(r for r in _api_routes() if r.path == path)
    headers = [(b"idempotency-key", key.encode())] if key else []
    return Request(
        {"type": "http", "method": "POST", "path": path, "headers": headers, "route": route}
    )


PRINCIPAL = Principal(namespace="default", scopes=frozenset({"maintenance"}), actor="test")


def test_fresh_answers_are_validated_before_they_are_stored_and_sent() -> None:
    store = _Store(None)
    services = cast(Services, _Services(store))
    request = _request("/v1/maintenance/run", "key-1")
    response = respond(services, PRINCIPAL, request, None, lambda: (200, {**REPORT, "x": 1}))
    assert response.status_code == 200
    assert response.body == MaintenanceReport(**REPORT).model_dump_json().encode()
    assert store.remembered == [(200, REPORT)]
    with pytest.raises(ResponseValidationError):
        respond(services, PRINCIPAL, request, None, lambda: (200, {**REPORT, "changed": None}))
    assert len(store.remembered) == 1  # a refused answer is never stored
    assert store.released == 1  # and its claim is given up


def test_replayed_answers_are_validated_too() -> None:
    store = _Store(StoredAnswer(status=200, body={**REPORT, "stale_key": True}))
    services = cast(Services, _Services(store))
    request = _request("/v1/maintenance/run", "key-1")
    response = respond(services, PRINCIPAL, request, None, lambda: pytest.fail("not replayed"))
    assert response.headers["Idempotent-Replay"] == "true"
    assert response.body == MaintenanceReport(**REPORT).model_dump_json().encode()
    store.stored = StoredAnswer(status=200, body={**REPORT, "examined": [1]})
    with pytest.raises(ResponseValidationError):
        respond(services, PRINCIPAL, request, None, lambda: pytest.fail("not replayed"))


def test_every_post_route_declares_a_response_model() -> None:
    posts = [r for r in _api_routes() if "POST" in (r.methods or set())]
    assert (
        len(posts) == 12
    )  # nine idempotent POSTs (outcomes, batch too), recall, search, precedents
    missing = [r.path for r in posts if r.response_model is None]
    assert not missing, missing
