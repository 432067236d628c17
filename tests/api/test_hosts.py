"""The Host check (DNS rebinding): REST and /mcp answer only the hosts the service serves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver
from pydantic import ValidationError

from service.api.hosts import PROBE_PATHS, host_allowed, host_name
from service.embeddings import Embedder
from service.main import create_app
from service.settings import Settings
from tests.conftest import Tenant, make_settings

FACT = {"kind": "fact", "content": "billing runs on Postgres 16"}


def count_nodes(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (n {namespace: $ns}) RETURN count(n) AS n", ns=namespace
    )
    return int(records[0]["n"])


# -- the rule, without a server ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("api.example.com:8000", "api.example.com"),
        ("LOCALHOST", "localhost"),
        ("127.0.0.1:1", "127.0.0.1"),
        ("[::1]:8000", "[::1]"),
        ("[::1]", "[::1]"),
        ("", ""),
    ],
)
def test_host_name_drops_the_port(header: str, name: str) -> None:
    assert host_name(header) == name


def test_suffix_pattern_covers_subdomains_only() -> None:
    allowed = ("localhost", "*.example.com")
    assert host_allowed("api.example.com", allowed)
    assert not host_allowed("example.com", allowed)
    assert not host_allowed("evilexample.com", allowed)
    assert not host_allowed("", allowed)


def test_default_list_is_loopback_and_the_bind_address() -> None:
    assert Settings().host_allow_list == ("localhost", "127.0.0.1", "[::1]")
    assert Settings(RATIONALE_HOST="10.0.0.5").host_allow_list == (
        "localhost",
        "127.0.0.1",
        "[::1]",
        "10.0.0.5",
    )
    assert Settings(RATIONALE_HOST="0.0.0.0").host_allow_list == ("localhost", "127.0.0.1", "[::1]")
    assert Settings(RATIONALE_HOST="::").host_allow_list == ("localhost", "127.0.0.1", "[::1]")
    assert Settings(RATIONALE_ALLOWED_HOSTS=["API.example.com", "::1"]).host_allow_list == (
        "localhost",
        "127.0.0.1",
        "[::1]",
        "api.example.com",
    )
    assert Settings(RATIONALE_ALLOWED_HOSTS=["*"]).host_allow_list is None


def test_allowed_hosts_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATIONALE_ALLOWED_HOSTS", '["memory.example.com"]')
    assert Settings().host_allow_list == ("localhost", "127.0.0.1", "[::1]", "memory.example.com")


@pytest.mark.parametrize(
    "entry", ["http://memory.example.com", "memory.example.com:443", "a/b", ""]
)
def test_allowed_hosts_refuses_what_is_not_a_host_name(entry: str) -> None:
    with pytest.raises(ValidationError, match="without scheme"):
        Settings(RATIONALE_ALLOWED_HOSTS=[entry])


# -- the keyed service (the tests' app allows TestClient's `testserver` besides loopback) -----


def test_unknown_host_is_refused_and_writes_nothing(tenant: Tenant, neo4j_driver: Driver) -> None:
    r = tenant.post("/v1/memories", json=FACT, headers={"Host": "evil.example"})
    assert r.status_code == 421, r.text
    assert r.json()["code"] == "input.host_not_allowed"
    assert "evil.example" in r.json()["detail"]
    assert count_nodes(neo4j_driver, tenant.namespace) == 0
    for path in ("/v1/diagnostics", "/openapi.json", "/docs", "/v1/no-such-route"):
        assert tenant.get(path, headers={"Host": "evil.example:8000"}).status_code == 421, path


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8000", "localhost", "LocalHost:9", "[::1]:8000", "testserver"]
)
def test_loopback_hosts_pass(tenant: Tenant, host: str) -> None:
    r = tenant.get("/v1/diagnostics", headers={"Host": host})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_probes_answer_any_host(tenant: Tenant, path: str) -> None:
    assert tenant.get(path, headers={"Host": "10.244.0.17:8000"}).status_code == 200


# -- dev mode (no keys: nothing else guards it) and the `*` escape hatch ------------------------


@pytest.fixture(scope="module")
def dev_client(fake_embedder: Embedder) -> Iterator[TestClient]:
    settings = make_settings(
        RATIONALE_API_KEYS={},
        RATIONALE_HOST="10.0.0.5",
        RATIONALE_ALLOWED_HOSTS=["*.corp.example"],
    )
    with TestClient(create_app(settings, embedder=fake_embedder)) as client:
        yield client


def test_dev_mode_serves_loopback_bind_address_and_configured_names(dev_client: TestClient) -> None:
    for host in ("127.0.0.1:8000", "10.0.0.5:8000", "rationale.corp.example"):
        r = dev_client.get("/v1/diagnostics", headers={"Host": host})
        assert r.status_code == 200, (host, r.text)
    for host in ("testserver", "corp.example", "rebound.example:8000"):
        r = dev_client.get("/v1/diagnostics", headers={"Host": host})
        assert r.status_code == 421, (host, r.text)
        assert r.json()["code"] == "input.host_not_allowed"


def test_dev_mode_mcp_refuses_an_unknown_host_with_the_same_body(dev_client: TestClient) -> None:
    r = dev_client.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"Host": "rebound.example", "Accept": "application/json, text/event-stream"},
    )
    assert r.status_code == 421, r.text
    assert r.json()["code"] == "input.host_not_allowed"


def test_star_serves_any_host(fake_embedder: Embedder) -> None:
    settings = make_settings(RATIONALE_ALLOWED_HOSTS=["*"])
    with TestClient(create_app(settings, embedder=fake_embedder)) as client:
        r = client.get("/openapi.json", headers={"Host": "behind.a.proxy.example"})
    assert r.status_code == 200, r.text


def test_the_document_declares_421_where_the_host_is_checked(app_client: TestClient) -> None:
    """The probes answer any Host (`PROBE_PATHS`): they declared a 421 they never send (trial 9)."""
    paths = app_client.get("/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            declared = "421" in operation["responses"]
            assert declared is (path not in PROBE_PATHS), (method, path)
