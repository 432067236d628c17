"""Queries declared `// values: plain` hand their rows on as decoded: they must hold no driver type.

Every plain query a recall, a search and a history search run is watched while a namespace
with observations in an episode, a keyed fact and a trace with its decision is searched, under
both lexical scorings: the vector, history, fulltext and word-list queries must have run, and
so may the namespace statistics, vocabulary and typed check (on worker threads); each row must
equal its `to_native` conversion and hold only plain Python types.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from service.domain.retrieval import RetrievalRequest
from service.graph import repository
from service.graph.cypher import NamedQuery
from tests.conftest import Tenant
from tests.factories import flaky_test_story, memory

PLAIN_TYPES = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return type(value) in PLAIN_TYPES


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[dict[str, Any]]]:
    """Collect the rows of every plain query run, by query name."""
    seen: dict[str, list[dict[str, Any]]] = {}
    original = repository._rows

    def rows(query: NamedQuery, records: Any) -> list[dict[str, Any]]:
        out = original(query, records)
        if query.plain:
            seen.setdefault(query.name, []).extend(out)
        return out

    monkeypatch.setattr(repository, "_rows", rows)
    return seen


def test_plain_queries_return_only_plain_values(
    tenant: Tenant, watched: dict[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    flaky_test_story(tenant)
    for i, turn in enumerate(["We moved the upload test to its own worker", "The lock fixed it"]):
        memory(tenant, turn, episode="standup-1", position=i)
    memory(tenant, "CI runs on 2 workers", kind="fact", subject="ci", attribute="workers")
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    retrieval = services.retrieval
    for config in (retrieval.config, replace(retrieval.config, lexical_scoring="word_lists")):
        # monkeypatch puts the app's own config back after the test (the app is session-wide).
        monkeypatch.setattr(retrieval, "config", config)
        monkeypatch.setattr(retrieval.candidates, "config", config)
        for text in ("why did test_upload fail", "upload lock", "flaky upload test"):
            for kinds in (None, ["reasoning"]):
                request = RetrievalRequest(query=text, limit=5, kinds=kinds)
                assert retrieval.recall(tenant.namespace, request).items
                retrieval.search(tenant.namespace, request)
            history = RetrievalRequest(query=text, limit=5, include_superseded=True)
            retrieval.search(tenant.namespace, history)
    for name in (
        "retrieval/search_vector_in_namespace",
        "retrieval/search_vector_history",
        "retrieval/search_fulltext_in_namespace",
        "retrieval/search_fulltext_lists_in_namespace",
    ):
        assert watched.get(name), f"{name} was not run"
    for name, rows in watched.items():
        for row in rows:
            assert _plain(row), f"{name}: {row!r}"
            assert repository.to_native(row) == row, name
