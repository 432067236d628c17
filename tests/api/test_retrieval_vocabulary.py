"""A small namespace's whole vocabulary stands in for its per-word counts (`StatisticsCache`)."""

from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest

from service.domain.retrieval import statistics
from service.domain.retrieval.candidates import lucene_query
from service.domain.retrieval.statistics import StatisticsCache
from tests.conftest import Tenant
from tests.factories import fulltext_candidates

WORDS = ["harbour", "lantern", "ferry", "tide", "gull", "anchor", "rope", "dock", "mast", "keel"]
QUERY = "harbour lantern ferry gulls anchors"


def _write(tenant: Tenant, count: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    items = [
        {"kind": "observation", "content": " ".join(rng.choices(WORDS, k=rng.randint(3, 9)))}
        for _ in range(count)
    ]
    r = tenant.post("/v1/memories/batch", json={"items": items})
    assert r.status_code in (200, 201), r.text


def test_the_vocabulary_gives_the_same_statistics_as_the_index_counts(tenant: Tenant) -> None:
    """Counted in the index word by word, or read off the vocabulary: the same statistics, so
    the same scores; and once the vocabulary is kept, no word of it is counted again."""
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    _write(tenant, 60)
    lucene = lucene_query(QUERY)
    assert lucene is not None
    counted = StatisticsCache(services.retrieval.config.fulltext_index)
    by_counts = counted.of(services.graph, tenant.namespace, lucene)
    cache = StatisticsCache(services.retrieval.config.fulltext_index)
    assert not cache.vocabulary_due(tenant.namespace)  # the size is not known yet
    cache.of(services.graph, tenant.namespace, "rope")  # counts the size
    assert cache.vocabulary_due(tenant.namespace)
    assert not cache.vocabulary_due(tenant.namespace)  # marked as being read
    vocabulary = cache.build_vocabulary(services.graph, tenant.namespace)
    assert vocabulary is not None and vocabulary.documents == 60
    assert not cache.vocabulary_due(tenant.namespace)  # read: due again after size_ttl_s
    from_vocabulary = cache.cached(tenant.namespace, lucene)  # no count asked
    # The mean length is summed in the database's row order, which differs between the two
    # reads: equal up to rounding (33.88333333333333 vs ...34 once).
    assert from_vocabulary is not None
    assert from_vocabulary.mean_chars == pytest.approx(by_counts.mean_chars, rel=1e-12)
    assert replace(from_vocabulary, mean_chars=by_counts.mean_chars) == by_counts
    assert by_counts.frequencies["harbour"] > 0 and by_counts.documents == 60


def test_a_word_written_after_the_vocabulary_was_read_is_counted(tenant: Tenant) -> None:
    """The vocabulary lacks a word only a newer memory holds: that word is counted in the
    index, so the newer memory is still found by it (a missing frequency would score it 0)."""
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    finder = services.retrieval.candidates
    finder.statistics = StatisticsCache(services.retrieval.config.fulltext_index)
    _write(tenant, 30)
    finder.statistics.of(services.graph, tenant.namespace, "rope")
    assert finder.statistics.vocabulary_due(tenant.namespace)
    assert finder.statistics.build_vocabulary(services.graph, tenant.namespace) is not None
    r = tenant.post("/v1/memories", json={"kind": "fact", "content": "the zephyrine buoy"})
    assert r.status_code == 201, r.text
    assert finder.statistics.cached(tenant.namespace, "zephyrine") is None  # to be counted
    found = fulltext_candidates(services, tenant.namespace, "zephyrine")
    assert [h.memory_id for h in found.hits] == [r.json()["memory_id"]]
    assert found.hits[0].score > 0


def test_a_namespace_over_the_limit_keeps_no_vocabulary(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over `VOCABULARY_MAX_DOCUMENTS` memories the read is dropped, not retried at once, and
    the words are counted one by one as before."""
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    _write(tenant, 30)
    cache = StatisticsCache(services.retrieval.config.fulltext_index)
    cache.of(services.graph, tenant.namespace, "rope")
    monkeypatch.setattr(statistics, "VOCABULARY_MAX_DOCUMENTS", 10)
    assert not cache.vocabulary_due(tenant.namespace)  # the size says so
    monkeypatch.setattr(statistics, "VOCABULARY_MAX_DOCUMENTS", 40)
    assert cache.vocabulary_due(tenant.namespace)
    monkeypatch.setattr(statistics, "VOCABULARY_MAX_DOCUMENTS", 10)  # grew past it meanwhile
    assert cache.build_vocabulary(services.graph, tenant.namespace) is None
    monkeypatch.setattr(statistics, "VOCABULARY_MAX_DOCUMENTS", 40)
    assert not cache.vocabulary_due(tenant.namespace)
    assert cache.cached(tenant.namespace, "harbour") is None  # counted per word


def test_recall_reads_the_vocabulary_of_a_small_namespace(tenant: Tenant) -> None:
    """Through the API: the first recall counts, a later one reads the vocabulary on a worker
    thread, and then a query of words never asked before needs no count."""
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    finder = services.retrieval.candidates
    finder.statistics = StatisticsCache(services.retrieval.config.fulltext_index)
    _write(tenant, 40)
    for query in ("rope", "dock"):
        r = tenant.post("/v1/recall", json={"query": query})
        assert r.status_code == 200, r.text
    deadline = time.monotonic() + 10
    while finder.statistics.cached(tenant.namespace, "mast keel") is None:
        assert time.monotonic() < deadline, "the vocabulary was never read"
        time.sleep(0.05)
    assert finder.statistics.cached(tenant.namespace, "mast keel").documents == 40
