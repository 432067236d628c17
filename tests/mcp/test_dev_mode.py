"""Dev mode (no keys): `/mcp` answers without a key, but only to loopback Host and Origin headers."""

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
    ("headers", "status"),
    [
        ({"Host": "rebound.example"}, 421),
        ({"Origin": "http://rebound.example"}, 403),
    ],
)
def test_dev_mode_refuses_other_hosts_and_origins(
    dev_client: TestClient, headers: dict[str, str], status: int
) -> None:
    r = dev_client.post("/mcp", json=INIT, headers={**MCP_HEADERS, **headers})
    assert r.status_code == status, r.text
