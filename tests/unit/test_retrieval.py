"""Pure parts of retrieval: Lucene escaping, reciprocal-rank fusion, quality weights (no Neo4j)."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime

import pytest
import snowballstemmer

from service.domain.retrieval import fuse, lucene_query, quality_factor, rrf
from service.domain.retrieval import lexical as lexical_module
from service.domain.retrieval.fusion import task_blend
from service.domain.retrieval.lexical import (
    MAX_WORD_LISTS,
    analyse,
    local_bm25,
    namespace_bm25,
    word_lists,
)
from service.domain.retrieval.lucene import browser_query, namespace_lists, namespace_query
from service.domain.retrieval.models import Fusion, Hit
from service.domain.retrieval.statistics import NamespaceStatistics
from service.domain.text.lexical import (
    MAX_IDENTIFIER_PARTS,
    NAMESPACE_ALPHABET,
    identifier_parts,
    namespace_token,
    search_text,
)
from service.graph.records import with_instants


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
        # Frame words go from a query that asks (a question or a request) ...
        ("What is the name of Caroline's dog", "Caroline's dog"),
        ("what type of database does it use", "database use"),
        ("Name the pets Caroline has", "pets Caroline"),
        ("Tell me how many books Melanie read", "books Melanie read"),
        ("Describe the kind of art Melanie makes.", "art Melanie makes."),
        ("user name type?", "user"),
        # ... and stay in one that names what it looks for (trial 12: "user name" was "user").
        ("user name", "user name"),
        ("name user", "name user"),  # trial 14: read as asking ("name" first)
        ("column type mismatch in the orders table", "column type mismatch orders table"),
        ("getUserName returns the wrong kind", "getUserName returns wrong kind"),
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


def test_namespace_query_requires_the_namespace_token_and_scores_only_the_text() -> None:
    # No clause on the analysed raw namespace: "tenant-a" would match every "tenant-*".
    assert namespace_query("tenant-a", "adoption") == (
        "+search_ns:" + namespace_token("tenant-a") + "^0 +search_text:(adoption)"
    )
    assert browser_query("deep", "adoption") == (
        '+namespace:"deep"^0 -search_ns:ns29303041 +content:(adoption)'
    )


def test_namespace_lists_ask_one_list_per_word_and_one_for_browser_memories() -> None:
    lucene = lucene_query("Caroline's adoption: caroline a:b")
    assert lucene == "Caroline's adoption\\: caroline a\\:b"
    lucene += " the \\( \\-"  # words the analyzer keeps no term of
    assert namespace_lists("deep", lucene) == [
        "+search_ns:ns29303041^0 +search_text:(Caroline's)",
        "+search_ns:ns29303041^0 +search_text:(adoption\\:)",
        "+search_ns:ns29303041^0 +search_text:(a\\:b)",
        '+namespace:"deep"^0 -search_ns:ns29303041 +content:(' + lucene + ")",
    ]
    # Only stop words and punctuation: nothing the index keeps, no list.
    assert namespace_lists("deep", "the \\(a\\) \\-") == []


def test_word_lists_share_the_last_list_beyond_the_cap() -> None:
    words = [f"w{i}x" for i in range(MAX_WORD_LISTS + 5)]
    lists = word_lists(" ".join(words))
    assert len(lists) == MAX_WORD_LISTS
    assert lists[:-1] == words[: MAX_WORD_LISTS - 1]
    assert lists[-1] == " ".join(words[MAX_WORD_LISTS - 1 :])


def test_search_text_puts_the_context_first() -> None:
    assert search_text(None, "turn") == "turn"
    assert search_text("previous turn", "turn") == "previous turn\nturn"
    assert search_text("previous", "fix test_upload", "test upload") == (
        "previous\nfix test_upload\ntest upload"
    )
    assert search_text(None, "fix test_upload", "test upload") == "fix test_upload\ntest upload"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Why does test_upload fail in CI?", "test upload testupload"),
        ("getUserName calls HTTPServer", "get user name getuser username http server"),
        ("import os.path.join; os.path.exists", "os path join exists"),
        ("UPLOAD_TIMEOUT_MS=30 in settings", "upload timeout ms uploadtimeout timeoutms"),
        ("src/payments/retry_policy.py", "retry policy py retrypolicy"),
        ("IOError, JSONDecoder, ECMAScript", "io error json decoder ecma script"),
        # Trial 12: other scripts, and no junk of one letter.
        (
            "café_menu, naïveBayes, получить_данные",
            "café menu cafémenu naïve bayes получить данные получитьданные",
        ),
        # Joined neighbours (trial 12: "username", "graphql" found nothing), never across a dot.
        ("GraphQLSchema, user_id", "graph ql schema graphql qlschema user id userid"),
        ("e.g. 3.14, v2, U.S., __init__, _private, x_y", None),
        ("APIs, URLs, DAGs and IDs", None),  # an acronym's plural is one word
        ("at 2024-06-01T10:00:00Z, commit 9F3A2B7C1D", None),
        # Trial 15: a version's number, and its major and minor ("4.5.0" missed `v4.5.0`).
        ("released v1.2.3, pinned v0.38.x; node v20, ip 10.0.0.1", "1.2.3 1.2 0.38"),
        ("a sentence. Another sentence, no identifiers", None),
        ("", None),
    ],
)
def test_identifier_parts_split_compound_identifiers(text: str, expected: str | None) -> None:
    assert identifier_parts(text) == expected


def test_identifier_parts_are_bounded() -> None:
    text = " ".join(f"alpha{i:04d}_beta{i:04d}" for i in range(400))
    parts = identifier_parts(text)
    assert parts is not None
    assert len(parts.split()) == MAX_IDENTIFIER_PARTS


def test_a_question_in_words_meets_the_identifiers_parts() -> None:
    """The words find the identifier; the identifier is sent whole (its parts are the memory's)."""
    stored = analyse(search_text(None, "Fixed test_upload", identifier_parts("Fixed test_upload")))
    asked = lucene_query("why does the upload test fail")
    assert asked is not None
    assert set(analyse(asked)) <= set(stored) | {"fail"}
    assert lucene_query("test_upload flaky") == "test_upload flaky"


def test_analyse_follows_the_english_analyzer() -> None:
    assert analyse("Caroline's excited about the adoption process?") == [
        "carolin",
        "excit",
        "about",
        "adopt",
        "process",
    ]
    assert analyse("中国的首都 🚀 test_upload") == [
        "中",
        "国",
        "的",
        "首",
        "都",
        "🚀",
        "test_upload",
    ]


def test_local_bm25_uses_only_the_candidates_statistics() -> None:
    hits = [Hit(uid=u, memory_id=u, kind="observation", score=9.0) for u in ("a", "b", "c")]
    texts = ["the deploy failed", "deploy deploy registry timeout", "registry is slow"]
    scored = {h.uid: h.score for h in local_bm25("registry timeout", hits, texts)}
    assert scored["b"] > scored["c"] > scored["a"] == 0.0
    # The same candidates give the same scores, whatever Lucene said about them.
    again = [Hit(uid=h.uid, memory_id=h.uid, kind="observation", score=0.1) for h in hits]
    assert {h.uid: h.score for h in local_bm25("registry timeout", again, texts)} == scored


def test_weighted_fusion_normalises_each_list_and_smooths_over_neighbours() -> None:
    def hit(uid: str, score: float, position: int | None = None) -> Hit:
        return Hit(
            uid=uid,
            memory_id=uid,
            kind="observation",
            score=score,
            episode=None if position is None else "e",
            position=position,
        )

    vector = [hit("a", 0.9, 0), hit("b", 0.8, 1), hit("c", 0.7)]
    fulltext = [hit("b", 12.0, 1), hit("c", 2.0)]
    fusion = Fusion(lexical_weight=0.6, vector_weight=0.4, neighbour_weight=0.5)
    ranked = {r.hit.uid: r for r in fuse(vector, fulltext, 10, 60, fusion)}
    # BM25 is divided by the list's best (the weakest candidate does not set a zero); vector
    # similarities are min-max normalised.
    assert ranked["b"].lexical_norm == 1.0 and ranked["c"].lexical_norm == pytest.approx(2 / 12)
    assert ranked["a"].vector_norm == 1.0 and ranked["c"].vector_norm == 0.0
    base_a, base_b = 0.4 * 1.0, 0.6 * 1.0 + 0.4 * 0.5
    assert ranked["a"].score == pytest.approx(base_a + 0.5 * base_b / 2)
    assert ranked["b"].score == pytest.approx(base_b + 0.5 * base_a / 2)
    assert ranked["c"].score == pytest.approx(0.6 * 2 / 12) and ranked["c"].neighbours is None
    rrf_ranked = fuse(vector, fulltext, 10, 60, Fusion(method="rrf"))
    assert rrf_ranked[0].hit.uid == "b"
    assert [r.hit.uid for r in fuse(vector, fulltext, 10, 60)] == [r.hit.uid for r in rrf_ranked]


def test_a_traces_task_match_counts_only_for_traces() -> None:
    """`task_blend`: the trace whose task the query restates leads; nothing else moves."""

    def hit(uid: str, score: float, kind: str = "reasoning", task: float | None = None) -> Hit:
        return Hit(
            uid=uid,
            memory_id=uid,
            kind=kind,
            score=score,
            quality_verdict="accepted" if kind == "reasoning" else None,
            task_score=task,
        )

    # "steps" shares the query's words in its steps; "task" restates the query in its task.
    vector = [
        hit("steps", 0.80, task=0.70),
        hit("task", 0.90, task=0.90),
        hit("plain", 0.75),
        hit("fact", 0.85, kind="fact", task=0.99),  # a task score on a non-trace is ignored
    ]
    fulltext = [hit("steps", 9.0), hit("fact", 4.0), hit("task", 1.0), hit("plain", 0.5)]
    weights = Fusion(lexical_weight=0.6, vector_weight=0.4, neighbour_weight=0.0)
    off = {r.hit.uid: r for r in fuse(vector, fulltext, 10, 60, replace(weights, task_weight=0))}
    on = {r.hit.uid: r for r in fuse(vector, fulltext, 10, 60, replace(weights, task_weight=0.8))}
    assert off["steps"].score > off["task"].score  # without it, the steps' words win
    assert on["task"].score > on["steps"].score
    assert on["task"].task_norm == 1.0 and on["task"].task_gain == pytest.approx(
        on["task"].score - off["task"].score
    )
    # The blend never lowers a trace, and leaves every other kind and unmatched trace alone.
    assert on["steps"].score == pytest.approx(max(off["steps"].score, 0.2 * off["steps"].score))
    assert on["fact"].score == off["fact"].score and on["fact"].task_gain is None
    assert on["plain"].score == off["plain"].score and on["plain"].task_similarity is None
    assert task_blend(0.5, 0.0, 0.8) == 0.5 and task_blend(0.5, 1.0, 0.8) == pytest.approx(0.9)


def test_with_instants_parses_the_period_bounds_like_the_driver() -> None:
    props = with_instants(
        {
            "valid_from": "1969-12-31T23:59:59.5Z",
            "system_from": "2025-09-21T08:00:00.123456789Z",
            "valid_to": None,
            "system_to": "not a time",
            "content": "2025-09-21T08:00:00Z",
        }
    )
    assert props["valid_from"] == datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)
    assert props["valid_from"].tzinfo is UTC
    # Nanoseconds are truncated to microseconds, as `neo4j.time.DateTime.to_native` does.
    assert props["system_from"] == datetime(2025, 9, 21, 8, 0, 0, 123456, tzinfo=UTC)
    assert props["valid_to"] is None
    assert props["system_to"] == "not a time"
    assert props["content"] == "2025-09-21T08:00:00Z"


def test_namespace_bm25_scores_a_candidate_by_its_own_text_and_the_namespace_counts() -> None:
    stats = NamespaceStatistics(
        documents=500, mean_chars=40.0, frequencies={"harbour": 20, "lantern": 200}
    )
    texts = ["the harbour lantern", "lantern lantern lantern on a long quay wall", "harbour"]
    hits = [Hit(uid=str(i), memory_id=str(i), kind="observation", score=9.0) for i in range(3)]
    alone = namespace_bm25("harbour lantern", hits[:1], texts[:1], stats)[0].score
    together = namespace_bm25("harbour lantern", hits, texts, stats)
    # Which other candidates came back changes nothing (local_bm25 would move it).
    assert together[0].score == alone
    assert (
        local_bm25("harbour lantern", hits[:1], texts[:1])[0].score
        != local_bm25("harbour lantern", hits, texts)[0].score
    )
    # The rarer term weighs more; a term the namespace lacks adds nothing.
    assert together[2].score > 0 and together[0].score > together[2].score
    assert namespace_bm25("kraken", hits, texts, stats)[0].score == 0.0


def test_words_are_stemmed_alike_on_threads_at_once() -> None:
    """Recall analyses its query on two threads at once (statistics beside the fulltext side):
    each thread's stems equal one thread's (a shared snowball stemmer raised IndexError)."""
    words = [
        f"{stem}{i}ational{suffix}"
        for i in range(2000)
        for stem, suffix in (("rel", "ly"), ("condit", "ness"))
    ]
    expected = [str(snowballstemmer.stemmer("porter").stemWord(w)) for w in words]
    lexical_module._stem.cache_clear()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch mid-word, as under load
    try:
        with ThreadPoolExecutor(8) as pool:
            answers = list(
                pool.map(
                    lambda chunk: [lexical_module._stem(w) for w in chunk],
                    [words[i::8] for i in range(8)],
                )
            )
    finally:
        sys.setswitchinterval(interval)
    assert [w for a in answers for w in a] == [w for i in range(8) for w in expected[i::8]]
