"""Shutdown: the app's lifespan stops the threads its services started (recall's fulltext pool)."""

from __future__ import annotations

import threading

from fastapi.testclient import TestClient

from service.embeddings import Embedder
from service.main import create_app
from tests.conftest import make_settings


def _fulltext_workers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("recall-fulltext")}


def test_lifespan_end_joins_the_recall_fulltext_workers(fake_embedder: Embedder) -> None:
    before = _fulltext_workers()
    with TestClient(create_app(make_settings(), embedder=fake_embedder)) as client:
        r = client.post(
            "/v1/recall",
            json={"query": "which database does billing use"},
            headers={"Authorization": "Bearer bootstrap-key"},
        )
        assert r.status_code == 200, r.text
        started = _fulltext_workers() - before
        assert started, "the recall ran no fulltext worker thread"
    assert not [t for t in started if t.is_alive()]
