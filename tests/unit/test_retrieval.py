"""Pure parts of retrieval: Lucene escaping, reciprocal-rank fusion, quality weights (no Neo4j)."""

from __future__ import annotations

import pytest

from service.domain.retrieval import lucene_query, quality_factor, rrf
from service.domain.retrieval.candidates import namespace_query
from service.domain.text.lexical import NAMESPACE_ALPHABET, namespace_token, search_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("why does test_upload fail", "test_upload fail"),
        ("a:b (c) [d] AND OR \\ ~*?", "a\\:b \\(c\\) \\[d\\] \\\\ \\~\\*\\?"),
        ("NOT this && that || !x", "not \\&\\& \\|\\| \\!x"),
        ("AND OR NOT", "not"),
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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "What is Caroline excited about in the adoption process?",
            "Caroline excited adoption process\\?",
        ),
        ("When did Melanie paint a sunrise?", "Melanie paint sunrise\\?"),
        ("Would Caroline likely pursue writing as a career?", "Caroline pursue writing career\\?"),
        ("what is it", "what is it"),  # nothing would be left: the words stay
    ],
)
def test_lucene_query_drops_question_and_stop_words(text: str, expected: str) -> None:
    assert lucene_query(text) == expected


def test_namespace_tokens_are_distinct_and_single_terms() -> None:
    names = ["a", "A", "a-b", "a_b", "ab", "b", "x" * 64, "deep", "test_0a1b"]
    tokens = [namespace_token(n) for n in names]
    assert len(set(tokens)) == len(names)
    assert all(t.startswith("ns") and t[2:].isdigit() for t in tokens)
    assert namespace_token("deep") == "ns29303041"
    assert namespace_token(NAMESPACE_ALPHABET[-1]) == "ns63"


def test_namespace_query_requires_the_namespace_and_scores_only_the_text() -> None:
    assert namespace_query("deep", "adoption") == "+search_ns:ns29303041^0 +search_text:(adoption)"


def test_search_text_puts_the_context_first() -> None:
    assert search_text(None, "turn") == "turn"
    assert search_text("previous turn", "turn") == "previous turn\nturn"
