"""Candidates of one namespace: the filtered vector index and the fulltext index's word lists."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from typing import TypeVar

from service import metrics
from service.domain.models import Kind
from service.domain.policy import VisibilityPolicy
from service.domain.retrieval.lexical import (
    discount_context_only,
    local_scores,
    namespace_scores,
)
from service.domain.retrieval.lucene import browser_query, namespace_lists, namespace_query
from service.domain.retrieval.lucene import lucene_query as lucene_query  # re-exported
from service.domain.retrieval.models import (
    Candidates,
    Hit,
    RetrievalConfig,
    RetrievalQuery,
    Unrecognized,
)
from service.domain.retrieval.numbers import identified, numbers_asked
from service.domain.retrieval.statistics import NamespaceStatistics, StatisticsCache
from service.domain.retrieval.traces import only_traces
from service.domain.retrieval.typed import TypedCache
from service.errors import VectorIndexFault
from service.graph.query_names import QueryName
from service.graph.repository import Graph, Tx, packed_vector

# The package's name, as before the split: log configuration and tests filter on it.
log = logging.getLogger("service.domain.retrieval")

T = TypeVar("T")

#: Traces asked of the task index (`memory_task_embedding`) per recall or search.
TASK_DEPTH = 20
#: Matches each fulltext list asks of the index per candidate kept (`CandidateFinder.fulltext`):
#: a list is complete, and so independent of other tenants, below `10 * lexical_depth` matches.
RAW_PER_CANDIDATE = 10
#: Seconds the fulltext side waits for a namespace's counts (counted beside it) before its
#: first round, so that a small namespace is asked for all its matches at once.
STATISTICS_WAIT_S = 0.003
#: Matches of `lucene.browser_query` (memories typed into Neo4j Browser) read per recall, to
#: report them as unrecognized; not asked in a namespace checked clean (`typed.TypedCache`).
BROWSER_DEPTH = 20
#: Where a candidate list holds the lexical field (`Hit.COLUMNS`), and the fulltext
#: statements the length of the memory's own text after it (`lexical.discount_context_only`).
TEXT = Hit.COLUMNS.index("text")
OWN_CHARS = TEXT + 1
#: Every kind: the vector index filter takes `m.kind IN $kinds` (a SEARCH filter has no `OR`).
ALL_KINDS = sorted(str(k) for k in Kind)


def _best_first(hits: list[Hit]) -> list[Hit]:
    return sorted(hits, key=lambda h: (-h.score, h.uid))


def _complete_k(stats: NamespaceStatistics, depth: int, complete: int) -> int:
    """Return the `k` that makes every fulltext match of the namespace a candidate, or `depth`.

    `stats.matches + 1` (one more than the namespace can match, so an answer shorter than `k`
    proves the set complete) when that is at most `complete`; `depth` otherwise, or when
    `depth` already holds them all.
    """
    wanted = stats.matches + 1
    return max(depth, wanted) if wanted <= complete else depth


def _with_tasks(
    hits: list[Hit], unrecognized: list[Unrecognized], tasks: Candidates
) -> tuple[list[Hit], list[Unrecognized]]:
    """Merge in the traces whose task is nearest the query (`CandidateFinder.tasks`).

    A trace's vector score is the better of its whole text's and its task's similarity,
    so a query restating a task finds the trace even when its steps say much more; the
    task's similarity is kept apart as `task_score` (fusion weighs a trace's task match).

    Returns:
        The merged hits (best first) and what the filters hid, both lists.
    """
    best = {h.uid: h for h in hits}
    for task_hit in tasks.hits:
        known = best.get(task_hit.uid) or task_hit
        best[task_hit.uid] = replace(
            known, score=max(known.score, task_hit.score), task_score=task_hit.score
        )
    return _best_first(list(best.values())), unrecognized + tasks.unrecognized


class CandidateFinder:
    """Collects the caller's visible candidates, restricted to its namespace in each index (DESIGN §7).

    The vector index filters on namespace, kinds and `current` inside `SEARCH`; the fulltext
    query holds a required namespace clause. System time (history reads), valid time and
    visibility (`created_by_origin IN $origins`) are filtered in Cypher right after. Candidates whose origin is missing or unknown to the policy are handed back apart and
    logged once per process (`warn_unrecognized`).

    Args:
        config: index names and over-fetch settings.
        policy: the visibility policy (which origins are recognized).
    """

    def __init__(self, config: RetrievalConfig, policy: VisibilityPolicy) -> None:
        self.config = config
        self.policy = policy
        self._seen: set[str] = set()
        self._seen_lock = threading.Lock()
        self.statistics = StatisticsCache(config.fulltext_index)
        self.typed = TypedCache()

    def asks_tasks(self, query: RetrievalQuery) -> bool:
        """Return True when `vector` merges in the task index's traces for this query.

        A read of current versions (no `known_at`, no superseded versions) whose kinds
        include traces.
        """
        return not query.historical and Kind.REASONING in (query.kinds or ALL_KINDS)

    def typed_check_due(self, namespace: str) -> bool:
        """Return True when the caller should run `typed.check` for this namespace now.

        Only the `namespace` and `index` scorings read the answer (whether to skip the
        browser query); `word_lists` always asks its browser list, so it never checks.
        A True answer marks the check as under way (`TypedCache.due`).
        """
        return self.config.lexical_scoring != "word_lists" and self.typed.due(namespace)

    def vector(
        self,
        tx: Tx,
        namespace: str,
        query: RetrievalQuery,
        embedding: list[float],
        *,
        exact: bool = False,
    ) -> Candidates:
        """Return the namespace's nearest visible memories from the filtered vector index.

        One Cypher 25 `SEARCH` with the namespace, the kinds and (for a read of the current
        versions) `current = true` inside the index filter returns the caller's own top
        `depth = max(vector_depth, limit)` directly (`trace_vector_depth` for a page of
        traces only: the task index's nearest traces decide that page): what other
        namespaces hold never enters the candidate list, and no `k` is doubled. A read at `known_at` or with superseded
        versions searches every version of the namespace (`retrieval/search_vector_history`)
        and filters system time after. A read of current versions that may return traces also
        asks the task index for its `TASK_DEPTH` nearest traces in the same statement (one
        round trip; merged by `_with_tasks`). Valid time and visibility are filtered after `SEARCH`;
        when they leave fewer than `limit` hits while the index had more to give (it returned a
        full `depth`), an exact cosine scan of the namespace's visible memories
        (`retrieval/search_namespace_exact`) takes its place, so a result is never short while
        matches exist.

        With `exact` (Neo4j's vector index kept failing the `SEARCH`: `read_ranked`), the
        exact scan is the only round.

        Args:
            tx: the read transaction.
            namespace: the caller's namespace.
            query: the validated query.
            embedding: list[float], len == settings.embedding_dim, L2-normalised.
            exact: rank the namespace by the exact scan, without the vector index.

        Returns:
            The candidates, best first by the index's cosine score in [0, 1].
        """
        wanted = self.config.trace_vector_depth if only_traces(query) else self.config.vector_depth
        depth = max(wanted, query.limit)
        kinds = query.kinds or ALL_KINDS
        historical = query.historical
        params: dict[str, object] = {
            "namespace": namespace,
            "kinds": kinds,
            "k": depth,
            "embedding": packed_vector(embedding),
            "as_of": query.as_of,
            "origins": query.origins,
            "recognized": self.policy.recognized(),
        }
        if exact:
            rows = tx.run(
                QueryName.RETRIEVAL_SEARCH_NAMESPACE_EXACT,
                {**query.filters(namespace), "embedding": params["embedding"], "k": depth},
            )
            return Candidates(hits=[Hit.from_row(r) for r in rows], k=depth, exhausted=True)
        if historical:
            params["as_of"] = query.valid_at
            params["known_at"] = query.known_at
            params["include_superseded"] = query.include_superseded
            name = QueryName.RETRIEVAL_SEARCH_VECTOR_HISTORY
        else:
            params["task_k"] = TASK_DEPTH if self.asks_tasks(query) else 0
            params["closed_after"] = query.closed_after()
            name = QueryName.RETRIEVAL_SEARCH_VECTOR_IN_NAMESPACE
        row = tx.one(name, params)
        assert row is not None
        found = Candidates(
            hits=_best_first([Hit.from_columns(h) for h in row["hits"]]),
            unrecognized=[Unrecognized.from_row(u) for u in row["unrecognized"]],
            rounds=1,
            k=depth,
        )
        if row.get("task_hits"):
            traces = Candidates(hits=[Hit.from_columns(h) for h in row["task_hits"]], k=TASK_DEPTH)
            found.hits, found.unrecognized = _with_tasks(found.hits, found.unrecognized, traces)
        if len(found.hits) < query.limit and row["fetched"] >= depth:
            # The filters after SEARCH hid most of a full page: rank the namespace exactly.
            rows = tx.run(
                QueryName.RETRIEVAL_SEARCH_NAMESPACE_EXACT,
                {**query.filters(namespace), "embedding": params["embedding"], "k": depth},
            )
            found.hits = [Hit.from_row(r) for r in rows]
            found.rounds += 1
            found.exhausted = True
        log.debug(
            "vector candidates: %d kept, k=%d, %s, exact scan: %s",
            len(found.hits),
            found.k,
            "all versions" if historical else "current versions",
            found.exhausted,
        )
        return found

    def fulltext(
        self,
        tx: Tx,
        namespace: str,
        query: RetrievalQuery,
        lucene: str | None,
        statistics: Future[NamespaceStatistics] | None = None,
    ) -> Candidates:
        """Return the namespace's best visible fulltext matches (none when `lucene` is None).

        With `lexical_scoring == "namespace"` (default), one query over all the words
        (`namespace_query`) returns the namespace's top `depth = max(lexical_depth, limit)`
        by Lucene's index-wide BM25, filtered as below, and those candidates are scored again
        by BM25 over the namespace's own statistics (`lexical.namespace_bm25`: its document
        count, mean length and each term's document frequency, counted in the index under the
        namespace clause and cached briefly, `statistics.StatisticsCache`). A candidate's score
        then depends on its text and its namespace alone. Which memories are candidates
        would still depend on Lucene's index-wide cut when the namespace holds more than
        `depth` matches, so while it holds at most `complete = min(lexical_complete,
        max_candidates)` (`NamespaceStatistics.matches`, an upper bound from the per-word
        counts) the index is asked for all of them: at once when the counts are cached or
        counted within `STATISTICS_WAIT_S`, else in a second round once they are known. The candidates, and so the ranking, then
        depend on nothing another tenant holds. Above `complete` matches another tenant can
        move which memories make the cut, at its margin. A page of traces only uses
        `trace_lexical_complete` (default 0: Lucene's top `depth` of the namespace): its order
        is led by the task match (`fusion.task_blend`), and a complete round cost Neo4j about
        7 ms of CPU a recall there (468 matches on average in the peer bench's 1,000 traces).

        With `lexical_scoring == "word_lists"`, one list per query word
        (`namespace_lists`, one statement): each takes the index's matches of its word in the
        namespace (up to `k = min(10 * depth, max_candidates)`, `depth = max(lexical_depth,
        limit)`), filters kinds, system time, valid time and visibility, and keeps its
        `per_list = max(limit, min(depth, ceil(2 * depth / words)))` shortest (characters of
        the lexical field, then uid). The union is scored by BM25 over itself
        (`lexical.local_bm25`) and its best `depth` kept. No Lucene score decides which
        memories a list keeps, so while a word has fewer than `k` matches in the namespace its
        list, and so the ranking, depends on the namespace's texts alone: another tenant's
        memories (which move Lucene's IDF and average length) change nothing. Only when the
        filters leave fewer than `limit` hits while a list was full does one deeper round
        (`k = max_candidates`) follow.

        The cut by length suits texts of similar length (conversation turns) but not traces
        (peer bench: hit@1 0.800 against 0.870 with `namespace`), and costs 4-9 ms p50 more,
        so it is not the default.

        With `lexical_scoring == "index"`, the `namespace` query's candidates keep Lucene's
        index-wide scores (deeper round likewise).

        Whatever the scoring, a candidate whose own text holds none of the query's words (it
        matched through the context it was indexed with) keeps `context_weight` of its score
        (`lexical.discount_context_only`; the statements send each `content`'s length).

        Restricting inside the index (choice measured, see `namespace_query`): a required
        clause on an indexed namespace token returns only the caller's memories, whatever
        other namespaces hold; one index per namespace would not scale to many tenants (Neo4j
        also refuses two fulltext indexes on one label and property).

        Args:
            tx: the read transaction.
            namespace: the caller's namespace.
            query: the validated query.
            lucene: the query's terms escaped by `lucene_query`, or None.
            statistics: the namespace's statistics being counted beside this query
                (`RetrievalService._answer`); None counts them here, after it.

        Returns:
            The candidates, best first by BM25 score.
        """
        if lucene is None:
            return Candidates()
        depth = max(self.config.lexical_depth, query.limit)
        params: dict[str, object] = {
            **query.filters(namespace),
            "index_name": self.config.fulltext_index,
            "recognized": self.policy.recognized(),
        }
        if self.config.lexical_scoring != "word_lists":
            params["query"] = namespace_query(namespace, lucene)
            params |= {
                "browser_query": browser_query(namespace, lucene),
                "browser_k": 0 if self.typed.clean(namespace) else BROWSER_DEPTH,
            }
            name, ks = QueryName.RETRIEVAL_SEARCH_FULLTEXT_IN_NAMESPACE, (depth,)
        else:
            lists = namespace_lists(namespace, lucene)
            if not lists:
                return Candidates()
            words = len(lists) - 1  # the last list is the memories typed into Neo4j Browser
            per_list = max(query.limit, min(depth, -(-2 * depth // words)))
            params |= {"queries": lists, "per_list": per_list}
            name = QueryName.RETRIEVAL_SEARCH_FULLTEXT_LISTS_IN_NAMESPACE
            ks = (max(per_list, min(RAW_PER_CANDIDATE * depth, self.config.max_candidates)),)
        namespace_scoring = self.config.lexical_scoring == "namespace"
        complete = min(
            self.config.trace_lexical_complete
            if only_traces(query)
            else self.config.lexical_complete,
            self.config.max_candidates,
        )
        stats = self.statistics.cached(namespace, lucene) if namespace_scoring else None
        if stats is None and namespace_scoring and statistics is not None and complete > depth:
            # Counting takes time in proportion to the matches: a namespace small enough for
            # a complete round is usually counted within `STATISTICS_WAIT_S`, and then one
            # round suffices; a slower count goes on beside Lucene's top `depth`.
            with contextlib.suppress(TimeoutError):
                stats = statistics.result(timeout=STATISTICS_WAIT_S)
        k = ks[0] if stats is None else _complete_k(stats, depth, complete)
        found = Candidates()
        while True:
            row = tx.one(name, {**params, "k": k})
            assert row is not None
            found.rounds += 1
            found.k = k
            rows = row["hits"]
            texts = [h[TEXT] or "" for h in rows]
            terms = lucene.replace("\\", "")
            if namespace_scoring and rows:
                if stats is None:
                    stats = (
                        statistics.result()
                        if statistics is not None
                        else self.statistics.of(tx, namespace, lucene)
                    )
                scores = namespace_scores(terms, texts, stats)
            elif self.config.lexical_scoring == "word_lists":
                scores = local_scores(terms, texts)
            else:
                scores = [float(h[3]) for h in rows]
            scores = discount_context_only(
                terms, scores, texts, [h[OWN_CHARS] for h in rows], self.config.context_weight
            )
            # A query about a number keeps the candidates holding it first (`numbers`).
            found.identified = identified(
                [h[0] for h in rows], texts, [h[OWN_CHARS] for h in rows], numbers_asked(terms)
            )
            held = found.identified or {}
            # Only the kept candidates become `Hit`s (a complete round returns up to 10x more).
            best = sorted(
                range(len(rows)), key=lambda i: (-held.get(rows[i][0], 0), -scores[i], rows[i][0])
            )[:depth]
            found.hits = [Hit.from_columns(rows[i], scores[i]) for i in best]
            found.unrecognized = [Unrecognized.from_row(u) for u in row["unrecognized"]]
            if row["fetched"] < k:  # every match of the namespace was a candidate
                break
            deeper = _complete_k(stats, depth, complete) if stats is not None else k
            if deeper <= k and len(found.hits) < query.limit:
                deeper = max(ks[0], self.config.max_candidates)  # the filters left a page short
            if deeper <= k:
                break
            k = deeper
        log.debug(
            "fulltext candidates: %d kept after %d round(s), k=%d, %s",
            len(found.hits),
            found.rounds,
            found.k,
            self.config.lexical_scoring,
        )
        return found

    def warn_unrecognized(self, namespace: str, unrecognized: list[Unrecognized]) -> None:
        """Log each hidden candidate with a missing or unknown origin once per process.

        Args:
            namespace: the caller's namespace.
            unrecognized: what the candidate queries hid (`GET /v1/diagnostics` counts them).
        """
        if not unrecognized:
            return
        with self._seen_lock:
            new = []
            for hidden in unrecognized:
                if hidden.memory_id is None or hidden.memory_id in self._seen:
                    continue
                self._seen.add(hidden.memory_id)
                new.append(hidden)
        metrics.unrecognized_first_seen(len(new))
        for hidden in new:
            log.warning(
                "memory %s in namespace %s has %s; it is hidden from recall and search "
                "(listed by GET /v1/diagnostics)",
                hidden.memory_id,
                namespace,
                f"unrecognized origin {hidden.origin!r}"
                if hidden.origin is not None
                else "no origin",
            )


def read_ranked(graph: Graph, work: Callable[[Tx, bool], T]) -> T:
    """Run a ranked read, falling back to exact vector ranking when the vector index fails.

    `work(tx, exact)` asks `CandidateFinder.vector` with `exact`; it runs first with False, its
    queries in auto-commit read transactions (`Graph.read_autocommit`). When Neo4j's vector
    index kept failing the `SEARCH` through the graph's retries (`VectorIndexFault`, a fault
    of Neo4j 2026.09 while the index is written), it runs again with True: the namespace
    ranked by an exact cosine scan (slower, the same order up to the index's approximation),
    so the reader answers instead of failing.

    Args:
        graph: the query runner.
        work: the read, as a function of the transaction and `exact`.

    Returns:
        What `work` returns.
    """
    try:
        return graph.read_autocommit(lambda tx: work(tx, False))
    except VectorIndexFault:
        log.warning("the vector index kept failing the SEARCH; ranking by an exact scan")
        return graph.read_autocommit(lambda tx: work(tx, True))
