"""Recall and precedents answer when Neo4j's vector index keeps failing its SEARCH (real Neo4j).

Neo4j 2026.09 fails a filtered vector `SEARCH` now and then while the index is written ("Index
N out of bounds for length 1"); a fresh-user trial's recall hit it through every retry and got a
500. The fault is injected on the two SEARCH statements only; everything else runs on Neo4j.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import neo4j.exceptions
import pytest

from service.graph import repository
from service.graph.query_names import QueryName
from tests.conftest import Tenant
from tests.factories import flaky_test_story

SEARCHES = {
    QueryName.RETRIEVAL_SEARCH_VECTOR_IN_NAMESPACE,
    QueryName.RETRIEVAL_SEARCH_VECTOR_HISTORY,
}


@pytest.fixture
def failing_search(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every vector SEARCH statement fail with Neo4j's fault; return the names it failed."""
    failed: list[str] = []
    run = repository.Tx.run

    def faulty(self: repository.Tx, name: Any, params: Mapping[str, Any]) -> list[Any]:
        if name in SEARCHES:
            failed.append(name)
            raise neo4j.exceptions.DatabaseError("Index 33554070 out of bounds for length 1")
        return run(self, name, params)

    monkeypatch.setattr(repository.Tx, "run", faulty)
    monkeypatch.setattr(repository, "SEARCH_FAULT_BACKOFF_S", (0.0, 0.0))
    return failed


def test_recall_ranks_exactly_when_the_vector_index_keeps_failing(
    tenant: Tenant, failing_search: list[str]
) -> None:
    wanted = tenant.post(
        "/v1/memories",
        json={"kind": "fact", "content": "The zephyrquill backup runs at 02:00 from the NAS"},
    ).json()
    tenant.post("/v1/memories", json={"kind": "fact", "content": "Lunch is at noon on Fridays"})
    question = "when does the zephyrquill backup run"
    for path, body in (
        ("/v1/recall", {"query": question, "limit": 5}),
        ("/v1/search", {"query": question, "include_superseded": True}),  # all versions
    ):
        r = tenant.post(path, json=body)
        assert r.status_code == 200, r.text
        assert r.json()["items"][0]["memory_id"] == wanted["memory_id"]
    assert len(failing_search) == 6  # 3 attempts each, then the exact scan
    # a question no word of which is stored: the vector side alone answers, exactly
    r = tenant.post("/v1/search", json={"query": "nightly copy of files", "limit": 2})
    assert r.status_code == 200 and r.json()["items"], r.text


def test_precedents_rank_exactly_when_the_vector_index_keeps_failing(
    tenant: Tenant, failing_search: list[str]
) -> None:
    story = flaky_test_story(tenant)
    decision = story["trace"]["produced"][0]["memory_id"]
    r = tenant.post("/v1/precedents", json={"situation": "test_upload fails intermittently in CI"})
    assert r.status_code == 200, r.text
    assert decision in [p["decision"]["memory_id"] for p in r.json()["items"]]
    assert failing_search


def test_a_trace_is_found_by_its_task_when_the_vector_index_keeps_failing(
    tenant: Tenant, failing_search: list[str]
) -> None:
    """The exact scan weighs a trace's task as the task index does (the full suite once fell
    back to it, and a trace came back without its task match)."""
    trace = flaky_test_story(tenant)["trace"]
    r = tenant.post(
        "/v1/recall",
        json={"query": trace["task"], "limit": 5, "kinds": ["reasoning"], "explain": True},
    )
    assert r.status_code == 200, r.text
    item = next(i for i in r.json()["items"] if i["trace_id"] == trace["trace_id"])
    assert item["explain"]["task"] is not None and item["explain"]["task"]["similarity"] > 0.99
    assert failing_search
