"""A serving process freezes its start-up heap: full collections stop walking the model's objects."""

from __future__ import annotations

import gc
import sys
from typing import Any

import pytest

from service import container
from service.container import build_services, freeze_heap
from service.embeddings import FakeEmbedder
from tests.conftest import make_settings


def test_freeze_heap_exempts_every_live_object_from_collection() -> None:
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        freeze_heap()
        assert gc.get_freeze_count() > 1000  # this test process: pytest, neo4j, pydantic, ...
        assert gc.get_count()[2] == 0
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("serving", [True, False])
def test_build_services_freezes_the_heap_only_when_it_loads_the_model(
    serving: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen: list[bool] = []
    monkeypatch.setattr(container, "freeze_heap", lambda: frozen.append(True))
    # The model itself is not what is tested: the loading path is (and its process knobs).
    monkeypatch.setattr(container, "SentenceTransformerEmbedder", lambda *a, **k: FakeEmbedder(384))
    monkeypatch.setattr(container, "pin_mmap_threshold", lambda nbytes: True)
    monkeypatch.setattr(sys, "setswitchinterval", lambda interval: None)
    given: dict[str, Any] = {} if serving else {"embedder": FakeEmbedder(384)}
    services = build_services(make_settings(), **given)
    try:
        assert frozen == ([True] if serving else [])
    finally:
        services.close()
