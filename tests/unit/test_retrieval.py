"""Pure parts of retrieval: Lucene escaping, reciprocal-rank fusion, quality weights (no Neo4j)."""

from __future__ import annotations

import pytest

from service.domain.retrieval import lucene_query, quality_factor, rrf


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("why does test_upload fail", "why does test_upload fail"),
        ("a:b (c) [d] AND OR \\ ~*?", "a\\:b \\(c\\) \\[d\\] and or \\\\ \\~\\*\\?"),
        ("NOT this && that || !x", "not this \\&\\& that \\|\\| \\!x"),
        ('"quoted" {x} ^2 /re/ +y -z', '\\"quoted\\" \\{x\\} \\^2 \\/re\\/ \\+y \\-z'),
        ("AND", "and"),
        ("ANDROID", "ANDROID"),
        ("中国的首都", "中国的首都"),
        ("🚀", "🚀"),
    ],
)
def test_lucene_query_escapes_everything(text: str, expected: str) -> None:
    assert lucene_query(text) == expected


@pytest.mark.parametrize("text", ['"', "\\", "-", "(((", "&& || !", "  ", "...", "—"])
def test_lucene_query_skips_text_without_terms(text: str) -> None:
    assert lucene_query(text) is None


def test_lucene_query_is_cut_below_the_clause_limit() -> None:
    out = lucene_query("中国的首都" * 400)
    assert out is not None
    assert len(out) <= 400
    out = lucene_query(" ".join(["word"] * 1000))
    assert out is not None
    assert len(out.split()) <= 100


def test_rrf_sums_reciprocal_ranks() -> None:
    scores = rrf([["a", "b", "c"], ["b", "d"]], k=60)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert max(scores, key=scores.__getitem__) == "b"
    assert rrf([], k=60) == {}


def test_quality_factor_orders_verdicts() -> None:
    assert quality_factor("accepted", 0.9) == 1.0
    assert 0.25 <= quality_factor("poor", 0.0) < quality_factor("poor", 1.0) <= 0.5
    assert quality_factor("rejected", 0.9) < quality_factor("poor", 0.0)
    assert quality_factor(None, None) == quality_factor("poor", 0.0)
