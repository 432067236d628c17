"""`/docs` and `/redoc` work with no network: every asset they reference is served by the service."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from service.domain.maintenance import JOB_NAMES

ASSET = re.compile(r"""(?:src|href|spec-url)=['"]([^'"]+)['"]|url: ?['"]([^'"]+)['"]""")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_assets_come_from_the_service(app_client: TestClient, page: str) -> None:
    r = app_client.get(page)
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assets = [a or b for a, b in ASSET.findall(r.text)]
    assert assets, r.text
    assert "/openapi.json" in assets
    for asset in assets:
        assert asset.startswith("/"), f"{page} references {asset} outside the service"
        got = app_client.get(asset)
        assert got.status_code == 200, asset
        assert len(got.content) > 100, asset
    if page == "/docs":
        bundle = next(a for a in assets if a.endswith("swagger-ui-bundle.js"))
        # Swagger UI 5 renders OpenAPI 3.1 (FastAPI's version); 4.x shows an error instead.
        assert "isOAS31" in app_client.get(bundle).text
        assert app_client.get("/openapi.json").json()["openapi"].startswith("3.1")


#: The operations that honour `Idempotency-Key` (`service.api.idempotent.respond`).
IDEMPOTENT = [
    "/v1/memories",
    "/v1/memories/batch",
    "/v1/memories/{memory_id}/invalidate",
    "/v1/memories/{memory_id}/retract",
    "/v1/memories/{memory_id}/challenge",
    "/v1/reasoning",
    "/v1/ingest",
    "/v1/maintenance/run",
    "/v1/memories/{decision_id}/outcomes",
]


def test_idempotent_operations_declare_the_in_flight_conflict(app_client: TestClient) -> None:
    paths = app_client.get("/openapi.json").json()["paths"]
    for path in IDEMPOTENT:
        answer = paths[path]["post"]["responses"].get("409")
        assert answer is not None, path
        assert "idempotency.in_flight" in answer["description"], path
        assert "`conflict`" in answer["description"], path  # a write that collided


def test_every_operation_declares_the_internal_error(app_client: TestClient) -> None:
    # A fresh-user trial: the README lists 500 `internal`, no operation declared it.
    paths = app_client.get("/openapi.json").json()["paths"]
    operations = [(p, m, op) for p, ops in paths.items() for m, op in ops.items()]
    assert len(operations) > 20
    for path, method, operation in operations:
        answer = operation["responses"].get("500")
        assert answer is not None and "`internal`" in answer["description"], (method, path)
    patch = paths["/v1/memories/{memory_id}"]["patch"]["responses"]["409"]["description"]
    assert "`conflict`" in patch and "`memory.version_conflict`" in patch


def test_the_maintenance_job_field_names_every_job(app_client: TestClient) -> None:
    # A fresh-user trial: the description named three jobs, the service runs four.
    schemas = app_client.get("/openapi.json").json()["components"]["schemas"]
    described = schemas["MaintenanceRequest"]["properties"]["job"]["description"]
    for job in JOB_NAMES:
        assert job in described, job
