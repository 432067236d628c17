"""The fulltext side's browser query (memories without `search_ns`) runs only where it can find one."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import replace

import pytest
from neo4j import Driver

from service.domain.retrieval.typed import TypedCache
from tests.conftest import Tenant
from tests.factories import memory

RETRIEVAL_LOGGER = "service.domain.retrieval"
QUERY = "when does the backup job run"


def _warned(caplog: pytest.LogCaptureFixture, memory_id: str) -> bool:
    return any(
        memory_id in r.getMessage()
        for r in caplog.records
        if r.name == RETRIEVAL_LOGGER and r.levelno == logging.WARNING
    )


def _type_into_browser(driver: Driver, namespace: str) -> str:
    """Create a memory as a person would in Neo4j Browser: no origin, no search_ns, no embedding."""
    memory_id = str(uuid.uuid4())
    with driver.session() as s:
        s.run(
            "CREATE (:Memory:Fact {namespace: $ns, uid: randomUUID(), memory_id: $id, version: 1, "
            "kind: 'fact', content: 'The backup job runs at 04:00 UTC every night', "
            "valid_from: datetime(), system_from: datetime()})",
            ns=namespace,
            id=memory_id,
        ).consume()
    return memory_id


def _recall_ids(tenant: Tenant) -> list[str]:
    r = tenant.post("/v1/recall", json={"query": QUERY, "limit": 10})
    assert r.status_code == 200, r.text
    return [i["memory_id"] for i in r.json()["items"]]


def test_browser_query_is_skipped_in_a_clean_namespace_until_the_answer_expires(
    tenant: Tenant,
    neo4j_driver: Driver,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    finder = tenant.client.app.state.services.retrieval.candidates  # type: ignore[attr-defined]
    now = [1000.0]
    cache = TypedCache(ttl_s=30.0, clock=lambda: now[0])
    monkeypatch.setattr(finder, "typed", cache)
    visible = memory(tenant, "The backup job runs at 02:00 UTC every night", kind="fact")

    assert not cache.clean(tenant.namespace)
    assert _recall_ids(tenant) == [visible["memory_id"]]  # asks for the check beside it
    deadline = time.monotonic() + 10
    while not cache.clean(tenant.namespace):
        assert time.monotonic() < deadline, "the namespace was never checked"
        time.sleep(0.02)

    typed = _type_into_browser(neo4j_driver, tenant.namespace)
    with caplog.at_level(logging.WARNING, logger=RETRIEVAL_LOGGER):
        # Checked clean 0 s ago: the browser query is not asked, so it is not seen yet.
        assert _recall_ids(tenant) == [visible["memory_id"]]
        assert not _warned(caplog, typed)
        now[0] += 31  # the answer expired: this recall asks the browser query again
        assert _recall_ids(tenant) == [visible["memory_id"]]
        assert _warned(caplog, typed)
    deadline = time.monotonic() + 10
    while cache.answer(tenant.namespace) is None:
        assert time.monotonic() < deadline, "the namespace was never checked again"
        time.sleep(0.02)
    assert cache.answer(tenant.namespace) is True  # it holds a typed memory: the query stays on
    # /v1/diagnostics never depended on the cache.
    assert tenant.get("/v1/diagnostics").json()["unrecognized_origins"]["sample"] == [typed]


def test_a_namespace_with_a_typed_memory_keeps_the_browser_query(
    tenant: Tenant, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    finder = tenant.client.app.state.services.retrieval.candidates  # type: ignore[attr-defined]
    cache = TypedCache()
    monkeypatch.setattr(finder, "typed", cache)
    _type_into_browser(neo4j_driver, tenant.namespace)
    graph = tenant.client.app.state.services.graph  # type: ignore[attr-defined]
    assert cache.due(tenant.namespace)
    assert cache.check(graph, tenant.namespace) is True
    assert cache.answer(tenant.namespace) is True
    assert not cache.clean(tenant.namespace)
    assert not cache.due(tenant.namespace)  # fresh for ttl_s: not checked again


def test_the_word_lists_scoring_never_checks_for_typed_memories(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`word_lists` asks its browser list every time, so the namespace scan would be wasted."""
    finder = tenant.client.app.state.services.retrieval.candidates  # type: ignore[attr-defined]
    cache = TypedCache()
    monkeypatch.setattr(finder, "typed", cache)
    monkeypatch.setattr(finder, "config", replace(finder.config, lexical_scoring="word_lists"))
    visible = memory(tenant, "The backup job runs at 02:00 UTC every night", kind="fact")
    for _ in range(3):
        assert _recall_ids(tenant) == [visible["memory_id"]]
    time.sleep(0.2)  # a check submitted beside a recall would have answered by now
    assert cache.answer(tenant.namespace) is None
    assert cache.due(tenant.namespace)  # never marked as under way
