"""Candidates of one namespace: the filtered vector index, the fulltext index, Lucene escaping."""

from __future__ import annotations

import logging
import threading
import unicodedata
from dataclasses import replace

from service import metrics
from service.domain.models import Kind
from service.domain.policy import VisibilityPolicy
from service.domain.retrieval.lexical import local_bm25
from service.domain.retrieval.models import (
    Candidates,
    Hit,
    RetrievalConfig,
    RetrievalQuery,
    Unrecognized,
)
from service.domain.text.lexical import SEARCH_NS_FIELD, SEARCH_TEXT_FIELD, namespace_token
from service.domain.text.lexicon import QUERY_STOPWORDS
from service.graph.query_names import QueryName
from service.graph.repository import Tx, packed_vector

# The package's name, as before the split: log configuration and tests filter on it.
log = logging.getLogger("service.domain.retrieval")

#: Characters the Lucene classic query parser treats as syntax; each is backslash-escaped.
LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')
#: Words the parser reads as operators when upper-case; they are lower-cased (plain terms).
LUCENE_OPERATORS = frozenset({"AND", "OR", "NOT"})
#: Most characters and words of the user text sent to the fulltext index. The standard analyzer
#: makes one clause per CJK ideograph, and Lucene refuses more than 1024 clauses.
FULLTEXT_MAX_CHARS = 400
FULLTEXT_MAX_WORDS = 100
#: Punctuation stripped from a query word's edges before it is compared with `QUERY_STOPWORDS`.
WORD_EDGES = "\"'`.,;:!?()[]{}<>"
#: Traces asked of the task index (`memory_task_embedding`) per recall or search.
TASK_DEPTH = 20
#: Every kind: the vector index filter takes `m.kind IN $kinds` (a SEARCH filter has no `OR`).
ALL_KINDS = sorted(str(k) for k in Kind)


def _query_words(text: str) -> list[str]:
    """Return the words of `text` without question and stop words (all of them if none is left)."""
    words = text.split()[:FULLTEXT_MAX_WORDS]
    kept = [w for w in words if w.strip(WORD_EDGES).lower() not in QUERY_STOPWORDS]
    return kept or words


def lucene_query(text: str) -> str | None:
    r"""Return `text` as a Lucene query of plain terms, or None when it holds nothing to match.

    Question and stop words (`QUERY_STOPWORDS`: "what", "when", "did", "the", ...) are dropped
    first, unless nothing would be left: a question then matches the statements answering it
    rather than other questions (LoCoMo, `../shared/research/retrieval.md`: +4-6 points R@10).
    Every Lucene special character (`+ - && || ! ( ) { } [ ] ^ " ~ * ? : \ /`) is
    backslash-escaped and the words AND, OR and NOT are lower-cased, so no user text is ever
    read as query syntax. The text is cut to `FULLTEXT_MAX_WORDS` words and
    `FULLTEXT_MAX_CHARS` characters (Lucene's clause limit).

    Args:
        text: the user's query, NFC-normalised.

    Returns:
        The escaped terms, or None when the text has no letter, digit or symbol (e.g. only
        punctuation): the fulltext index is then skipped.
    """
    if not any(
        unicodedata.category(ch)[0] in "LN" or unicodedata.category(ch) == "So" for ch in text
    ):
        return None
    words: list[str] = []
    size = 0
    for word in _query_words(text):
        if word in LUCENE_OPERATORS:
            word = word.lower()
        size += len(word) + 1
        if size > FULLTEXT_MAX_CHARS and words:
            break
        words.append(
            "".join("\\" + ch if ch in LUCENE_SPECIAL else ch for ch in word[:FULLTEXT_MAX_CHARS])
        )
    return " ".join(words)


def namespace_query(namespace: str, lucene: str) -> str:
    """Return the fulltext query of `lucene`'s terms restricted to one namespace inside the index.

    `+(search_ns:<token> namespace:"<namespace>")^0 +(search_text:(<terms>) content:(<terms>))`:
    the required clause on the namespace's token (`namespace_token`) keeps every other
    namespace out of the index's answer (a conjunction over the postings lists, no over-fetch);
    its boost 0 adds nothing to the score. `namespace` and `content` reach memories not written
    by the service (typed into Neo4j Browser: no `search_ns`, no `search_text`), so retrieval
    still meets them and reports an unrecognized origin; the raw namespace is analysed (case
    folded, split at `-`), so the Cypher after the index checks the namespace exactly.

    Measured (Neo4j 2026.09, 50,000 other-tenant memories plus a 629-turn LoCoMo tenant, its
    260 questions): the required clause at k=100 returns 100 of the caller's memories at p50
    4.5-4.9 ms / p95 30-32 ms; the same query unrestricted at k=100 costs the same but only 10
    of its 100 are the caller's; at k=1000, 58 of the caller's at p50 53-75 ms / p95 143-190 ms.

    Args:
        namespace: the caller's namespace.
        lucene: escaped terms from `lucene_query`.

    Returns:
        The Lucene query string.
    """
    token = namespace_token(namespace)
    return (
        f'+({SEARCH_NS_FIELD}:{token} namespace:"{namespace}")^0 '
        f"+({SEARCH_TEXT_FIELD}:({lucene}) content:({lucene}))"
    )


def _best_first(hits: list[Hit]) -> list[Hit]:
    return sorted(hits, key=lambda h: (-h.score, h.uid))


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

    def asks_tasks(self, query: RetrievalQuery) -> bool:
        """Return True when `vector` merges in the task index's traces for this query.

        A read of current versions (no `known_at`, no superseded versions) whose kinds
        include traces.
        """
        historical = query.known_at is not None or query.include_superseded
        return not historical and Kind.REASONING in (query.kinds or ALL_KINDS)

    def vector(
        self, tx: Tx, namespace: str, query: RetrievalQuery, embedding: list[float]
    ) -> Candidates:
        """Return the namespace's nearest visible memories from the filtered vector index.

        One Cypher 25 `SEARCH` with the namespace, the kinds and (for a read of the current
        versions) `current = true` inside the index filter returns the caller's own top
        `depth = max(vector_depth, limit)` directly: what other namespaces hold never enters
        the candidate list, and no `k` is doubled. A read at `known_at` or with superseded
        versions searches every version of the namespace (`retrieval/search_vector_history`)
        and filters system time after. A read of current versions that may return traces also
        asks the task index for its `TASK_DEPTH` nearest traces in the same statement (one
        round trip; merged by `_with_tasks`). Valid time and visibility are filtered after `SEARCH`;
        when they leave fewer than `limit` hits while the index had more to give (it returned a
        full `depth`), an exact cosine scan of the namespace's visible memories
        (`retrieval/search_namespace_exact`) takes its place, so a result is never short while
        matches exist.

        Args:
            tx: the read transaction.
            namespace: the caller's namespace.
            query: the validated query.
            embedding: list[float], len == settings.embedding_dim, L2-normalised.

        Returns:
            The candidates, best first by the index's cosine score in [0, 1].
        """
        depth = max(self.config.vector_depth, query.limit)
        kinds = query.kinds or ALL_KINDS
        historical = query.known_at is not None or query.include_superseded
        params: dict[str, object] = {
            "namespace": namespace,
            "kinds": kinds,
            "k": depth,
            "embedding": packed_vector(embedding),
            "as_of": query.as_of,
            "origins": query.origins,
            "recognized": self.policy.recognized(),
        }
        if historical:
            params["known_at"] = query.known_at
            params["include_superseded"] = query.include_superseded
            name = QueryName.RETRIEVAL_SEARCH_VECTOR_HISTORY
        else:
            params["task_k"] = TASK_DEPTH if self.asks_tasks(query) else 0
            name = QueryName.RETRIEVAL_SEARCH_VECTOR_IN_NAMESPACE
        row = tx.one(name, params)
        assert row is not None
        found = Candidates(
            hits=_best_first([Hit.from_row(h) for h in row["hits"]]),
            unrecognized=[Unrecognized.from_row(u) for u in row["unrecognized"]],
            rounds=1,
            k=depth,
        )
        if row.get("task_hits"):
            traces = Candidates(hits=[Hit.from_row(h) for h in row["task_hits"]], k=TASK_DEPTH)
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
        self, tx: Tx, namespace: str, query: RetrievalQuery, lucene: str | None
    ) -> Candidates:
        """Return the namespace's best visible fulltext matches (none when `lucene` is None).

        One fulltext query restricted to the namespace inside the index (`namespace_query`)
        returns its top `depth = max(lexical_depth, limit)`; kinds, system time, valid time
        and visibility are filtered after. Only when they leave fewer than `limit` hits while
        the index had more to give does one deeper query (`max_candidates`) follow.

        Restricting inside the index (choice measured, see `namespace_query`): a required
        clause on an indexed namespace token costs the same as an unrestricted query and
        returns only the caller's memories, whatever other namespaces hold; one index per
        namespace would not scale to many tenants (Neo4j also refuses two fulltext indexes
        on one label and property), and a global query over-fetched and filtered needs
        rounds that grow with what others hold.

        Args:
            tx: the read transaction.
            namespace: the caller's namespace.
            query: the validated query.
            lucene: the query's terms escaped by `lucene_query`, or None.

        With `lexical_scoring == "namespace"` (default) the candidates are re-scored by BM25
        over the namespace's own candidates (`lexical.local_bm25`), so another tenant's texts
        never move this namespace's ranking.

        Returns:
            The candidates, best first by BM25 score.
        """
        if lucene is None:
            return Candidates()
        params = {
            **query.filters(namespace),
            "index_name": self.config.fulltext_index,
            "query": namespace_query(namespace, lucene),
            "recognized": self.policy.recognized(),
        }
        depth = max(self.config.lexical_depth, query.limit)
        found = Candidates()
        for k in (depth, max(self.config.max_candidates, depth)):
            row = tx.one(QueryName.RETRIEVAL_SEARCH_FULLTEXT_IN_NAMESPACE, {**params, "k": k})
            assert row is not None
            found.rounds += 1
            found.k = k
            hits = [Hit.from_row(h) for h in row["hits"]]
            if self.config.lexical_scoring == "namespace":
                hits = local_bm25(lucene.replace("\\", ""), hits, [h.text or "" for h in hits])
            found.hits = _best_first(hits)[:depth]
            found.unrecognized = [Unrecognized.from_row(u) for u in row["unrecognized"]]
            if len(found.hits) >= query.limit or row["fetched"] < k:
                break
        log.debug(
            "fulltext candidates: %d kept after %d round(s), k=%d",
            len(found.hits),
            found.rounds,
            found.k,
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
