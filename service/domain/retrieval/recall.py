"""`RetrievalService`: recall (context for an agent) and search (explicit lookup), end to end."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from service import metrics
from service.domain.memories import Memory, memory_public, utcnow
from service.domain.memories.public import as_believed
from service.domain.models import Kind
from service.domain.policy import Read, VisibilityPolicy
from service.domain.reasoning import Trace, read_traces, trace_public
from service.domain.retrieval.candidates import CandidateFinder, lucene_query, read_ranked
from service.domain.retrieval.explain import (
    duplicates_of,
    explanation,
    produced_of,
    query_words,
    reasoning_of,
)
from service.domain.retrieval.fusion import fuse
from service.domain.retrieval.grouping import Entry, group, in_force_first
from service.domain.retrieval.models import (
    Candidates,
    Ranked,
    RetrievalConfig,
    RetrievalItem,
    RetrievalQuery,
    RetrievalRequest,
    RetrievalResult,
    Unrecognized,
)
from service.domain.retrieval.traces import only_traces, replacements, trace_page
from service.domain.text import clean_text
from service.embeddings import Embedder
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord, TraceRecord
from service.graph.repository import Graph, Tx

log = logging.getLogger(__name__)

#: Fused candidates read back per requested item in one chunk (at least `POOL_MIN`), and the
#: most fused candidates considered.
POOL_FACTOR = 2
POOL_MIN = 20
POOL_MAX = 300
#: Threads that run the fulltext side of concurrent recalls (see `_answer`).
LEXICAL_WORKERS = 16


class RetrievalService:
    """Recall and search over the hybrid (vector + fulltext) index, origin-aware (DESIGN §7).

    A query is checked (`clean_text`); its fulltext candidates are asked for (own session, on
    a worker thread) while it is embedded; then one session asks the vector and the task index
    (`CandidateFinder.vector`, one statement), fuses both lists (`fuse`), reads the top back
    (`_entries`, one query per chunk) and hydrates every trace item in one query (`_items`).
    Each query is an auto-commit read (`Graph.read_autocommit`): a version closed between two
    of them is read back as its memory's current one (`_entries`), a trace closed meanwhile
    is left out.

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
        self.candidates = CandidateFinder(config, policy)
        self._lexical = ThreadPoolExecutor(LEXICAL_WORKERS, thread_name_prefix="recall-fulltext")

    def close(self) -> None:
        """Shut the fulltext worker threads down, waiting for the work already running."""
        self._lexical.shutdown(wait=True)

    # -- use cases --------------------------------------------------------------------------

    def recall(self, namespace: str, request: RetrievalRequest) -> RetrievalResult:
        """Return the recall-visible, current memories and whole traces best matching a query.

        `request.origins` and `request.include_superseded` are ignored: recall sees the
        policy's recall origins and current versions only.

        Args:
            namespace: the caller's namespace.
            request: the query, `limit` (1..100), `kinds`, `as_of` and `known_at`
                (timezone-aware UTC or None).

        Returns:
            The items, best first: each a memory (DESIGN §8 shape) or a whole trace, with its
            `score` (fused, quality-weighted), `origin`, `has_reasoning` and `lineage` path.

        Raises:
            InvalidInputError: the query is empty, white space only or invalid Unicode (422).
            TooLargeError: the query is over `max_query_chars` (413).
            EmbeddingError: the model failed (503).
        """
        query = self._query(request, "recall", requested_origins=None, include_superseded=False)
        return self._answer(namespace, query, "recall")

    def search(self, namespace: str, request: RetrievalRequest) -> RetrievalResult:
        """Return the search-visible memories and traces best matching a query, origin on each.

        Args:
            namespace: the caller's namespace.
            request: those of recall plus `origins` (only these doors; intersected with the
                search-visible ones, never widening them) and `include_superseded` (also
                closed versions, each with its `version` and `system_to`).

        Returns:
            The items as for `recall`.

        Raises:
            InvalidInputError, TooLargeError, EmbeddingError: see `recall`.
        """
        query = self._query(
            request,
            "search",
            requested_origins=request.origins,
            include_superseded=request.include_superseded,
        )
        return self._answer(namespace, query, "search")

    # -- steps ------------------------------------------------------------------------------

    def _query(
        self,
        request: RetrievalRequest,
        read: Read,
        *,
        requested_origins: Sequence[str] | None,
        include_superseded: bool,
    ) -> RetrievalQuery:
        text = clean_text(request.query, field="query", max_chars=self.config.max_query_chars)
        origins = self.policy.origins(read)
        if requested_origins is not None:
            origins = [o for o in origins if o in set(requested_origins)]
        kinds = request.kinds
        now = utcnow()
        return RetrievalQuery(
            text=text,
            limit=int(request.limit or 10),
            kinds=sorted({str(k) for k in kinds}) if kinds else None,
            as_of=request.as_of or now,
            read_at=now,
            known_at=request.known_at,
            origins=origins,
            include_superseded=include_superseded,
            explain=request.explain,
            as_of_given=request.as_of is not None,
        )

    def _answer(
        self, namespace: str, query: RetrievalQuery, read: Read, *, again: bool = True
    ) -> RetrievalResult:
        """Run one read: candidates, fusion, read-back, items.

        A candidate the vector index gave as current whose read-back finds it gone (closed
        while the read ran and no longer valid at `as_of`: a keyed fact's next value, written
        meanwhile, is another memory no index had yet) makes the read run again once (`again`),
        with the same `as_of`: the index then has what replaced it. (Fresh-user trial 15: a
        key's current value missing from 8-26% of recall pages while the key got new values.)
        """
        if not query.origins:
            return RetrievalResult()
        lucene = lucene_query(query.text)
        lexical: Future[Candidates] | None = None
        if lucene is not None:
            # The fulltext side needs no embedding: asked first, on a worker thread, it runs in
            # Neo4j while the query is encoded (ONNX Runtime releases the GIL), and is mostly
            # done when the vector statement starts. Measured interleaved in one process,
            # idle machine: similar traces p50 21.0 -> 19.3 ms (peer bench corpus); recall at
            # 100k p50 / p95 22.5 / 32.3 -> 21.3 / 30.5 ms. (With the PyTorch encoder, which
            # holds the GIL longer, this order had been slower.)
            # The namespace's BM25 statistics are counted beside it, in a query of their own
            # and only for counts not cached (asked after the candidates, a miss made the
            # fulltext side outlast the encode: recall at 100k p95 +4 ms).
            statistics = None
            if self.config.lexical_scoring == "namespace":
                statistics = self._lexical.submit(
                    self.candidates.statistics.of, self.graph, namespace, lucene
                )
            lexical = self._lexical.submit(
                self.graph.read_autocommit,
                lambda tx: self.candidates.fulltext(tx, namespace, query, lucene, statistics),
            )
            if statistics is not None and self.candidates.statistics.vocabulary_due(namespace):
                # A small namespace's whole vocabulary: its later recalls count no word.
                self._lexical.submit(
                    self.candidates.statistics.build_vocabulary, self.graph, namespace
                )
            if self.candidates.typed_check_due(namespace):
                # Whether the namespace holds memories typed into Neo4j Browser: until it is
                # checked clean, the fulltext side also runs the browser query (`typed`).
                self._lexical.submit(self.candidates.typed.check, self.graph, namespace)
        with metrics.recall_stage(read, "embed"):
            embedding = self.embedder.encode([query.text])[0]
        # Fused candidates are read back a chunk at a time before grouping; collapsed
        # duplicates and traces grouped with their decision never leave the page short while
        # candidates remain (the next chunk is read).
        chunk = max(query.limit * POOL_FACTOR, POOL_MIN)

        def work(tx: Tx, exact: bool) -> tuple[list[RetrievalItem], list[Unrecognized], int]:
            with metrics.recall_stage(read, "candidates"):
                vector = self.candidates.vector(tx, namespace, query, embedding, exact=exact)
                fulltext = lexical.result() if lexical is not None else Candidates()
            with metrics.recall_stage(read, "fuse"):
                ranked = fuse(
                    vector.hits,
                    fulltext.hits,
                    POOL_MAX,
                    self.config.rrf_k,
                    self.config.fusion,
                    fulltext.identified,
                )
            with metrics.recall_stage(read, "read_back"):
                entries: list[Entry] = []
                groups: list[Entry] = []
                traces = None
                raced = 0
                if only_traces(query):
                    # A page of traces: read back and hydrated in one query (`trace_page`).
                    groups, traces = trace_page(
                        tx,
                        namespace,
                        ranked,
                        query.limit,
                        utcnow(),
                        self.policy.origins(read),
                        self.config.duplicate_similarity,
                        query.as_of,
                    )
                else:
                    seen: set[str] = set()
                    for start in range(0, len(ranked), chunk):
                        read_back, gone = self._entries(
                            tx, namespace, ranked[start : start + chunk], query, seen
                        )
                        entries += read_back
                        raced += gone
                        fresh = [e.fresh() for e in entries]
                        groups = group(
                            in_force_first(fresh, replacements(tx, namespace, fresh)),
                            self.config.duplicate_similarity,
                        )
                        if len(groups) >= query.limit:
                            break
                items = self._items(tx, namespace, groups[: query.limit], query, read, traces)
            return items, vector.unrecognized + fulltext.unrecognized, raced

        items, unrecognized, raced = read_ranked(self.graph, work)
        if raced and again:
            log.debug("%d candidate(s) changed while read; reading again", raced)
            return self._answer(namespace, query, read, again=False)
        # Both indexes may hide the same memory: count each once.
        metrics.hidden(read, "unrecognized", len({u.memory_id for u in unrecognized}))
        self.candidates.warn_unrecognized(namespace, unrecognized)
        return RetrievalResult(items=tuple(items))

    def _entries(
        self,
        tx: Tx,
        namespace: str,
        ranked: list[Ranked],
        query: RetrievalQuery,
        seen: set[str],
    ) -> tuple[list[Entry], int]:
        """Read back the fused candidates (best first): versions, `has_reasoning`, `produced`.

        In a read of current versions a candidate closed since its index answered (an update
        committed between the fulltext and the vector statement) comes back as its memory's
        current version, and a memory met twice (its old version by one index, its new one by
        the other) is one entry, at its better rank. `seen` holds the memory ids of the
        entries already read (earlier chunks) and is updated; a history read (`known_at`,
        superseded versions) keeps every version as it was found.

        Returns:
            The entries, and how many candidates the vector index gave as current are gone
            (changed while the read ran: `_answer` reads again).
        """
        if not ranked:
            return [], 0
        historical = query.historical
        rows = tx.run(
            QueryName.RETRIEVAL_LIST_HITS,
            {
                "namespace": namespace,
                "uids": [r.hit.uid for r in ranked],
                "lineage_origins": self.policy.origins("lineage"),
                "current_at": None if historical else query.as_of,
            },
        )
        found = {r["candidate"]: r for r in rows}
        entries = []
        gone = 0
        for fused in ranked:
            row = found.get(fused.hit.uid)
            if row is None:
                gone += not historical and fused.similarity is not None
                continue
            if not historical:  # versions of one memory are items of their own in a history read
                if row["memory"]["memory_id"] in seen:
                    continue
                seen.add(row["memory"]["memory_id"])
            entries.append(
                Entry(
                    ranked=fused,
                    memory=MemoryRecord.from_props(row["memory"]),
                    has_reasoning=bool(row["has_reasoning"]),
                    produced=tuple(row["produced"] or ()),
                    in_force=row.get("in_force"),
                )
            )
        return entries, gone

    def _items(
        self,
        tx: Tx,
        namespace: str,
        groups: list[Entry],
        query: RetrievalQuery,
        read: Read,
        traces: dict[str, TraceRecord] | None = None,
    ) -> list[RetrievalItem]:
        """Build the answer's items: memories with `has_reasoning`, traces whole.

        Traces come whole, all of the page's in one `reasoning/get_traces` (steps in order,
        rejected hypotheses marked); steps are never items. `has_reasoning` means a lineage-visible trace
        `PRODUCED` some version of the memory. A group's trace is summarised in `reasoning`,
        its near-duplicates in `duplicates`; `explain` (when asked) says why each matched.
        `traces` are the page's traces when already read (`trace_page`).
        """
        words = query_words(lucene_query(query.text)) if query.explain else []
        if traces is None:
            traces = read_traces(
                tx,
                namespace,
                [e.memory.memory_id for e in groups if e.memory.kind == Kind.REASONING],
                utcnow(),
                self.policy.origins(read),
            )
        items = []
        for entry in groups:
            memory = entry.memory
            record: Memory | Trace
            if memory.kind == Kind.REASONING:
                trace = traces.get(memory.memory_id)
                if trace is None:
                    continue
                record = trace_public(trace)
            else:
                record = memory_public(memory)
                if query.known_at is not None:  # as believed then, as GET answers
                    record = as_believed(record, query.known_at)
            has_reasoning = entry.has_reasoning or entry.reasoning is not None
            items.append(
                RetrievalItem(
                    memory_id=memory.memory_id,
                    version=memory.version,
                    record=record,
                    score=entry.score,
                    similarity=entry.ranked.similarity,
                    has_reasoning=has_reasoning,
                    lineage=f"/v1/memories/{memory.memory_id}/lineage" if has_reasoning else None,
                    duplicates=duplicates_of(entry),
                    reasoning=reasoning_of(entry),
                    produced_items=produced_of(entry),
                    in_force=entry.in_force,
                    explain=explanation(entry, words, self.config.fusion)
                    if query.explain
                    else None,
                )
            )
        return items
