"""Origin-aware recall and search over the hybrid (vector + fulltext) Neo4j index (DESIGN §7).

How a query is answered:

1. The query text is checked (`clean_text`: NFC, valid Unicode, `max_query_chars`) and embedded
   with the service's embedder.
2. Candidates come from two global indexes: the vector index
   (`db.index.vector.queryNodes`) and the fulltext index (`db.index.fulltext.queryNodes`, the
   user text escaped for Lucene by `lucene_query`). Each Cypher file filters right after the
   index call: namespace first, then kinds, system time (`known_at`, or current), valid time
   (`as_of`, default now) and visibility (`created_by_origin IN $origins`, the policy's list).
3. Over-fetch: both indexes are global across namespaces and apply `k` before any filter, so
   each is asked for the caller's top `depth = limit * vector_overfetch` visible candidates:
   starting at `k = depth`, while fewer than `depth` survive the filters and the index
   returned all `k` (it may hold more), `k` doubles, up to
   `max_candidates`. If the vector index still leaves too few at the cap, an exact cosine scan
   of the namespace's visible memories (`retrieval/search_namespace_exact`) takes its place, so
   a result is never short while enough visible matches exist. A small namespace (at most
   `RetrievalConfig.exact_scan_max` memory versions) skips the doubling and is scanned exactly
   right after the first short round.
4. Fusion: reciprocal-rank fusion (Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion
   outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009):
   `score(d) = sum over lists L containing d of 1 / (rrf_k + rank_L(d))`, ranks 1-based among
   the filtered candidates of each list, `rrf_k = settings.rrf_k` (60, the paper's value).
5. Traces are weighted by their quality (`quality_factor`): accepted x1, poor x0.25..0.5,
   rejected (possible only through ingestion's `annotate` policy) x0.1 and always ranked last.
6. The top `limit` are read back in the same transaction: memories with `has_reasoning` (a
   lineage-visible trace `PRODUCED` some version) and the lineage path; traces whole, through
   `reasoning/get_trace` (steps in order, rejected hypotheses marked). Steps are never items.

Candidates whose `created_by_origin` is missing or unknown to the policy are never returned; the
candidate queries hand them back apart so each is logged once per process (a warning) and
`GET /v1/diagnostics` counts them.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service.domain.memories import memory_public, utcnow
from service.domain.models import Kind, Verdict
from service.domain.policy import Read, VisibilityPolicy
from service.domain.reasoning import trace_public
from service.domain.text import clean_text
from service.embeddings import Embedder
from service.graph.repository import Graph, Row, Tx
from service.settings import Settings

log = logging.getLogger(__name__)

#: Characters the Lucene classic query parser treats as syntax; each is backslash-escaped.
LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')
#: Words the parser reads as operators when upper-case; they are lower-cased (plain terms).
LUCENE_OPERATORS = frozenset({"AND", "OR", "NOT"})
#: Most characters and words of the user text sent to the fulltext index. The standard analyzer
#: makes one clause per CJK ideograph, and Lucene refuses more than 1024 clauses.
FULLTEXT_MAX_CHARS = 400
FULLTEXT_MAX_WORDS = 100

#: Quality weights of a trace's fused score (see `quality_factor`).
POOR_FACTOR = 0.5
REJECTED_FACTOR = 0.1


def lucene_query(text: str) -> str | None:
    r"""Return `text` as a Lucene query of plain terms, or None when it holds nothing to match.

    Every Lucene special character (`+ - && || ! ( ) { } [ ] ^ " ~ * ? : \ /`) is
    backslash-escaped and the words AND, OR and NOT are lower-cased, so no user text is ever
    read as query syntax. The text is cut to `FULLTEXT_MAX_WORDS` words and
    `FULLTEXT_MAX_CHARS` characters (Lucene's clause limit).

    Args:
        text: the user's query, NFC-normalised.

    Returns:
        The escaped query, or None when the text has no letter, digit or symbol (e.g. only
        punctuation): the fulltext index is then skipped.
    """
    if not any(
        unicodedata.category(ch)[0] in "LN" or unicodedata.category(ch) == "So" for ch in text
    ):
        return None
    words: list[str] = []
    size = 0
    for word in text.split()[:FULLTEXT_MAX_WORDS]:
        if word in LUCENE_OPERATORS:
            word = word.lower()
        size += len(word) + 1
        if size > FULLTEXT_MAX_CHARS and words:
            break
        words.append(
            "".join("\\" + ch if ch in LUCENE_SPECIAL else ch for ch in word[:FULLTEXT_MAX_CHARS])
        )
    return " ".join(words)


def rrf(rankings: Sequence[Sequence[str]], k: int) -> dict[str, float]:
    """Fuse ranked lists by reciprocal rank (Cormack, Clarke & Büttcher, SIGIR 2009).

    Args:
        rankings: each a list of ids, best first.
        k: the fusion constant (`settings.rrf_k`); larger flattens the weight of top ranks.

    Returns:
        id -> `sum(1 / (k + rank))` over the lists holding it (rank 1-based), in (0, n/(k+1)].
    """
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores


def quality_factor(verdict: str | None, score: float | None) -> float:
    """Return the weight of a trace's fused score from its quality assessment.

    accepted -> 1.0; poor -> `POOR_FACTOR * (0.5 + 0.5 * score)`, i.e. 0.25..0.5 by the quality
    score in [0, 1]; rejected (only stored through ingestion's `annotate` policy) ->
    `REJECTED_FACTOR`, and such traces are also ranked after every other item. A trace with no
    verdict (not written by this service) counts as poor.

    Args:
        verdict: `quality_verdict` of the trace.
        score: `quality_score` of the trace in [0, 1], if any.

    Returns:
        A factor in (0, 1].
    """
    if verdict == Verdict.ACCEPTED:
        return 1.0
    if verdict == Verdict.REJECTED:
        return REJECTED_FACTOR
    quality = min(max(score if score is not None else 0.0, 0.0), 1.0)
    return POOR_FACTOR * (0.5 + 0.5 * quality)


@dataclass(frozen=True)
class RetrievalConfig:
    """The settings retrieval reads (see `service/settings.py` for each field's meaning).

    `exact_scan_max` is not a setting: a namespace with at most this many memory versions is
    ranked by an exact cosine scan as soon as the first over-fetch round comes back short,
    instead of doubling `k` against the global index (cheaper and exact for small tenants).
    """

    vector_index: str = "memory_embedding"
    fulltext_index: str = "memory_content"
    rrf_k: int = 60
    vector_overfetch: int = 10
    max_candidates: int = 2000
    max_query_chars: int = 2000
    exact_scan_max: int = 1000

    @classmethod
    def from_settings(cls, settings: Settings) -> RetrievalConfig:
        """Return the retrieval part of the process settings."""
        return cls(
            vector_index=settings.vector_index,
            fulltext_index=settings.fulltext_index,
            rrf_k=settings.rrf_k,
            vector_overfetch=settings.vector_overfetch,
            max_candidates=settings.max_candidates,
            max_query_chars=settings.max_query_chars,
        )


@dataclass(frozen=True)
class RetrievalQuery:
    """One recall or search, after validation.

    Attributes:
        text: the query, NFC-normalised.
        limit: max items returned, 1..100.
        kinds: only these kinds, or None for all.
        as_of: valid time, timezone-aware UTC.
        known_at: system time, timezone-aware UTC, or None for the current versions.
        origins: the `created_by_origin` values that may come back (from the policy).
        include_superseded: also closed versions (search only).
    """

    text: str
    limit: int
    kinds: list[str] | None
    as_of: datetime
    known_at: datetime | None
    origins: list[str]
    include_superseded: bool = False


@dataclass
class Candidates:
    """The filtered candidates of one index, best first, and what the filters hid as unrecognized."""

    hits: list[Row] = field(default_factory=list)
    unrecognized: list[Row] = field(default_factory=list)
    rounds: int = 0
    k: int = 0
    exhausted: bool = False


class RetrievalService:
    """Recall (context for an agent) and search (explicit lookup) over the hybrid index.

    Args:
        graph: the query runner.
        embedder: embeds the query (the same model as the stored embeddings).
        policy: the visibility policy (`recall`, `search` and `lineage` origins).
        config: index names, fusion and over-fetch settings, the query size limit.
    """

    def __init__(
        self, graph: Graph, embedder: Embedder, policy: VisibilityPolicy, config: RetrievalConfig
    ) -> None:
        self.graph = graph
        self.embedder = embedder
        self.policy = policy
        self.config = config
        self._seen: set[str] = set()
        self._seen_lock = threading.Lock()

    # -- use cases --------------------------------------------------------------------------

    def recall(self, namespace: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Return the recall-visible, current memories and whole traces best matching a query.

        Args:
            namespace: the caller's namespace.
            body: the fields of `RecallRequest`: `query`, `limit` (1..100), `kinds`, `as_of`
                and `known_at` (timezone-aware UTC or None).

        Returns:
            `{"items": [...], "count": n}`, best first. An item is a memory (DESIGN §8 shape)
            or a whole trace, plus `score` (fused, quality-weighted), `origin`,
            `has_reasoning` and `lineage` (the lineage path, or None).

        Raises:
            InvalidInputError: the query is empty, white space only or invalid Unicode (422).
            TooLargeError: the query is over `max_query_chars` (413).
            EmbeddingError: the model failed (503).
        """
        query = self._query(body, "recall", requested_origins=None, include_superseded=False)
        return self._answer(namespace, query)

    def search(self, namespace: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Return the search-visible memories and traces best matching a query, origin on each.

        Args:
            namespace: the caller's namespace.
            body: the fields of `SearchRequest`: those of recall plus `origins` (only these
                doors; intersected with the search-visible ones, never widening them) and
                `include_superseded` (also closed versions, each with its `version` and
                `system_to`).

        Returns:
            `{"items": [...], "count": n}` as for `recall`.

        Raises:
            InvalidInputError, TooLargeError, EmbeddingError: see `recall`.
        """
        query = self._query(
            body,
            "search",
            requested_origins=body.get("origins"),
            include_superseded=bool(body.get("include_superseded")),
        )
        return self._answer(namespace, query)

    # -- steps ------------------------------------------------------------------------------

    def _query(
        self,
        body: Mapping[str, Any],
        read: Read,
        *,
        requested_origins: Sequence[str] | None,
        include_superseded: bool,
    ) -> RetrievalQuery:
        text = clean_text(body["query"], field="query", max_chars=self.config.max_query_chars)
        origins = self.policy.origins(read)
        if requested_origins is not None:
            origins = [o for o in origins if o in set(requested_origins)]
        kinds = body.get("kinds")
        return RetrievalQuery(
            text=text,
            limit=int(body.get("limit") or 10),
            kinds=sorted(set(kinds)) if kinds else None,
            as_of=body.get("as_of") or utcnow(),
            known_at=body.get("known_at"),
            origins=origins,
            include_superseded=include_superseded,
        )

    def _answer(self, namespace: str, query: RetrievalQuery) -> dict[str, Any]:
        if not query.origins:
            return {"items": [], "count": 0}
        embedding = self.embedder.encode([query.text])[0]
        lucene = lucene_query(query.text)

        def work(tx: Tx) -> tuple[list[dict[str, Any]], list[Row]]:
            vector = self._vector_candidates(tx, namespace, query, embedding)
            fulltext = self._fulltext_candidates(tx, namespace, query, lucene)
            ranked = self._fuse(vector.hits, fulltext.hits, query.limit)
            items = self._items(tx, namespace, ranked)
            return items, vector.unrecognized + fulltext.unrecognized

        items, unrecognized = self.graph.read(work)
        self._warn_unrecognized(namespace, unrecognized)
        return {"items": items, "count": len(items)}

    def _filters(self, namespace: str, query: RetrievalQuery) -> dict[str, Any]:
        return {
            "namespace": namespace,
            "kinds": query.kinds,
            "as_of": query.as_of,
            "known_at": query.known_at,
            "include_superseded": query.include_superseded,
            "origins": query.origins,
        }

    def _overfetch(
        self, limit: int, run: Callable[[int], Row], small: Callable[[], bool] | None = None
    ) -> Candidates:
        """Collect the caller's top `depth = limit * overfetch` candidates from a global index.

        `run(k)` returns `{fetched, hits, unrecognized}` for one round. The loop doubles `k`
        until `depth` visible hits survived, the index returned fewer than `k` (it has no
        more), `max_candidates` is reached, or after the first short round when `small()` says
        the namespace is small enough to scan exactly (`Candidates.exhausted` is then True).
        Asking for a fixed depth in the caller's own visible space (not merely `limit` hits)
        keeps the fused ranking independent of how much other namespaces hold.
        """
        cap = max(self.config.max_candidates, limit)
        depth = min(limit * self.config.vector_overfetch, cap)
        k = depth
        out = Candidates()
        while True:
            row = run(k)
            out.rounds += 1
            out.k = k
            ordered = sorted(row["hits"], key=lambda h: (-float(h["score"]), h["uid"]))
            out.hits = ordered[:depth]
            out.unrecognized = row["unrecognized"]
            if len(ordered) >= depth or row["fetched"] < k:
                return out
            if k >= cap or (out.rounds == 1 and small is not None and small()):
                out.exhausted = True
                return out
            k = min(k * 2, cap)

    def _vector_candidates(
        self, tx: Tx, namespace: str, query: RetrievalQuery, embedding: list[float]
    ) -> Candidates:
        filters = self._filters(namespace, query)
        recognized = self.policy.recognized()

        def run(k: int) -> Row:
            params = {
                **filters,
                "index_name": self.config.vector_index,
                "k": k,
                "embedding": embedding,
                "recognized": recognized,
            }
            row = tx.one("retrieval/search_vector_candidates", params)
            assert row is not None
            return row

        def small() -> bool:
            cap = self.config.exact_scan_max
            row = tx.one("retrieval/count_namespace_memories", {"namespace": namespace, "cap": cap})
            return row is not None and int(row["n"]) <= cap

        found = self._overfetch(query.limit, run, small)
        if found.exhausted:
            # The namespace's matches are rare in the global index: rank them exactly instead.
            found.hits = tx.run(
                "retrieval/search_namespace_exact",
                {**filters, "embedding": embedding, "k": found.k},
            )
            found.rounds += 1
        log.debug(
            "vector candidates: %d kept after %d round(s), k=%d, exact scan: %s",
            len(found.hits),
            found.rounds,
            found.k,
            found.exhausted,
        )
        return found

    def _fulltext_candidates(
        self, tx: Tx, namespace: str, query: RetrievalQuery, lucene: str | None
    ) -> Candidates:
        if lucene is None:
            return Candidates()
        filters = self._filters(namespace, query)
        recognized = self.policy.recognized()

        def run(k: int) -> Row:
            params = {
                **filters,
                "index_name": self.config.fulltext_index,
                "k": k,
                "query": lucene,
                "recognized": recognized,
            }
            row = tx.one("retrieval/search_fulltext_candidates", params)
            assert row is not None
            return row

        found = self._overfetch(query.limit, run)
        log.debug(
            "fulltext candidates: %d kept after %d round(s), k=%d",
            len(found.hits),
            found.rounds,
            found.k,
        )
        return found

    def _fuse(self, vector: list[Row], fulltext: list[Row], limit: int) -> list[Row]:
        """Return the top `limit` candidates by quality-weighted reciprocal-rank fusion."""
        by_uid: dict[str, Row] = {}
        rankings = []
        for hits in (vector, fulltext):
            ordered = sorted(hits, key=lambda h: (-float(h["score"]), h["uid"]))
            rankings.append([h["uid"] for h in ordered])
            for h in ordered:
                by_uid.setdefault(h["uid"], h)
        fused = rrf(rankings, self.config.rrf_k)
        similarity = {h["uid"]: float(h["score"]) for h in vector}
        ranked = []
        for uid, score in fused.items():
            hit = by_uid[uid]
            last = False
            if hit.get("kind") == Kind.REASONING:
                score *= quality_factor(hit.get("quality_verdict"), hit.get("quality_score"))
                last = hit.get("quality_verdict") == Verdict.REJECTED
            ranked.append({**hit, "score": score, "similarity": similarity.get(uid), "last": last})
        # Ties (equal fused scores) go to the closer embedding, then to a stable id order.
        ranked.sort(key=lambda h: (h["last"], -h["score"], -(h["similarity"] or 0.0), h["uid"]))
        return ranked[:limit]

    def _items(self, tx: Tx, namespace: str, ranked: list[Row]) -> list[dict[str, Any]]:
        """Read back the ranked hits: memories with `has_reasoning`, traces whole."""
        if not ranked:
            return []
        rows = tx.run(
            "retrieval/list_hits",
            {
                "namespace": namespace,
                "uids": [h["uid"] for h in ranked],
                "lineage_origins": self.policy.origins("lineage"),
            },
        )
        found = {r["memory"]["uid"]: r for r in rows}
        now = utcnow()
        items = []
        for hit in ranked:
            row = found.get(hit["uid"])
            if row is None:
                continue
            memory = row["memory"]
            body: dict[str, Any]
            if memory.get("kind") == Kind.REASONING:
                trace = tx.one(
                    "reasoning/get_trace",
                    {"namespace": namespace, "trace_id": memory["memory_id"], "now": now},
                )
                if trace is None:
                    continue
                body = {
                    "memory_id": memory["memory_id"],
                    "version": memory.get("version", 1),
                    **trace_public(trace),
                }
            else:
                body = memory_public(memory)
            has_reasoning = bool(row["has_reasoning"])
            items.append(
                {
                    **body,
                    "score": hit["score"],
                    "similarity": hit["similarity"],
                    "origin": body["created_by"]["origin"],
                    "current": body.get("system_to") is None,
                    "has_reasoning": has_reasoning,
                    "lineage": f"/v1/memories/{memory['memory_id']}/lineage"
                    if has_reasoning
                    else None,
                }
            )
        return items

    def _warn_unrecognized(self, namespace: str, unrecognized: list[Row]) -> None:
        """Log each hidden candidate with a missing or unknown origin once per process."""
        if not unrecognized:
            return
        with self._seen_lock:
            new = []
            for row in unrecognized:
                memory_id = row.get("memory_id")
                if memory_id is None or memory_id in self._seen:
                    continue
                self._seen.add(memory_id)
                new.append(row)
        for row in new:
            log.warning(
                "memory %s in namespace %s has %s; it is hidden from recall and search "
                "(listed by GET /v1/diagnostics)",
                row["memory_id"],
                namespace,
                f"unrecognized origin {row['origin']!r}"
                if row.get("origin") is not None
                else "no origin",
            )


class DiagnosticsService:
    """What the visibility policy hides, and what a namespace holds (`GET /v1/diagnostics`).

    Args:
        graph: the query runner.
        policy: the visibility policy (which origins are recognized).
        sample_size: most memory ids listed as a sample.
    """

    def __init__(self, graph: Graph, policy: VisibilityPolicy, sample_size: int = 20) -> None:
        self.graph = graph
        self.policy = policy
        self.sample_size = sample_size

    def report(self, namespace: str) -> dict[str, Any]:
        """Return the diagnostics of a namespace's current memory versions.

        Args:
            namespace: the caller's namespace.

        Returns:
            `{"unrecognized_origins": {"count": n, "sample": [memory_id, ...]}, "counts":
            {kind: {origin: n}}}`; a missing kind or origin is counted under `"(missing)"`.
        """
        unrecognized = self.graph.one(
            "diagnostics/list_unrecognized",
            {
                "namespace": namespace,
                "recognized": self.policy.recognized(),
                "sample_size": self.sample_size,
            },
        )
        assert unrecognized is not None
        counts: dict[str, dict[str, int]] = {}
        for row in self.graph.run("diagnostics/count_origins", {"namespace": namespace}):
            counts.setdefault(row["kind"], {})[row["origin"]] = row["n"]
        return {
            "unrecognized_origins": {
                "count": unrecognized["count"],
                "sample": unrecognized["sample"],
            },
            "counts": counts,
        }
