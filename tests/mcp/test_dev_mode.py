"""Dev mode (no keys): `/mcp` answers without a key, but only to served Host and Origin headers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from service.embeddings import Embedder
from service.main import create_app
from tests.conftest import make_settings
from tests.mcp.test_auth import INIT, MCP_HEADERS


@pytest.fixture(scope="module")
def dev_client(fake_embedder: Embedder) -> Iterator[TestClient]:
    app = create_app(make_settings(RATIONALE_API_KEYS={}), embedder=fake_embedder)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        yield client


def test_dev_mode_needs_no_key_on_loopback(dev_client: TestClient) -> None:
    r = dev_client.post("/mcp", json=INIT, headers=MCP_HEADERS)
    assert r.status_code == 200, r.text
    assert r.json()["result"]["serverInfo"]["name"] == "rationale"


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"Host": "rebound.example"}, 421, "input.host_not_allowed"),
        ({"Origin": "http://rebound.example"}, 403, "input.origin_not_allowed"),
        ({"Origin": "null"}, 403, "input.origin_not_allowed"),
    ],
)
def test_dev_mode_refuses_other_hosts_and_origins(
    dev_client: TestClient, headers: dict[str, str], status: int, code: str
) -> None:
    r = dev_client.post("/mcp", json=INIT, headers={**MCP_HEADERS, **headers})
    assert r.status_code == status, r.text
    assert r.json()["code"] == code


@pytest.mark.parametrize(
    "origin",
    ["http://localhost:6274", "http://127.0.0.1", "https://[::1]:8443", "http://testserver"],
)
def test_dev_mode_accepts_origins_of_served_hosts(dev_client: TestClient, origin: str) -> None:
    # `testserver` is served because the tests' settings allow it (RATIONALE_ALLOWED_HOSTS).
    r = dev_client.post("/mcp", json=INIT, headers={**MCP_HEADERS, "Origin": origin})
    assert r.status_code == 200, r.text
