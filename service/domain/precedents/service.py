"""`PrecedentService`: past decisions resembling a situation, with reasoning and outcome record.

Candidates come from the retrieval package's own functions (`CandidateFinder` over the vector
and fulltext indexes, `fuse` with recall's fusion setting, quality-weighted), asked for decisions and reasoning traces
with recall's visibility (`VisibilityPolicy.origins("recall")`): a maintenance-authored trace
never stands for a precedent, while a user's decision it touched does (visibility reads
`created_by_origin`). A decision hit stands for itself; a trace hit stands for what it
`PRODUCED`. A decision's group score is its best match's fused score, the decision's own or
that of a trace that produced it (ties: the better other match); measured on the precedent
bench (`scripts/bench precedents`, 535 paraphrased tasks of trajectories and ADRs, in one
namespace with the corpus' coding-agent sessions) against the sum of the two under RRF, the
first choice: hit@1 0.981 -> 0.991, MRR@3 0.984 -> 0.992, and a README-style trace whose task
is the situation ranked first, not 13th-18th below session replies that matched twice a little.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from service.domain.memories import memory_public, utcnow
from service.domain.models import Kind
from service.domain.outcomes import list_outcomes_in, outcome_record
from service.domain.policy import VisibilityPolicy
from service.domain.precedents.models import (
    Hypothesis,
    Match,
    Precedent,
    PrecedentRequest,
    PrecedentResult,
    ReasoningBrief,
)
from service.domain.reasoning import Trace, read_traces, trace_public
from service.domain.retrieval import CandidateFinder, RetrievalConfig, fuse, lucene_query
from service.domain.retrieval.candidates import read_ranked
from service.domain.retrieval.models import Hit, RetrievalQuery, Unrecognized
from service.domain.text import NOT_TERM, clean_text, terms
from service.embeddings import Embedder
from service.errors import InvalidInputError
from service.graph.query_names import QueryName
from service.graph.repository import Graph, Tx

#: The kinds a precedent may be; decisions by default.
PRECEDENT_KINDS: tuple[str, ...] = (Kind.DECISION, Kind.PROCEDURE, Kind.FACT)
#: Candidates fused per requested precedent (a decision and its traces share one group).
CANDIDATES_PER_ITEM = 4
#: Fewest candidates fused, whatever the limit.
MIN_CANDIDATES = 20


@dataclass
class _Group:
    memory_id: str
    own: float = 0.0
    reasoning: float = 0.0
    matches: list[Match] = field(default_factory=list)

    @property
    def score(self) -> float:
        return max(self.own, self.reasoning)

    @property
    def other(self) -> float:
        return min(self.own, self.reasoning)


def _brief(trace: Trace) -> ReasoningBrief:
    by_index = {s.index: s for s in trace.steps}
    hypotheses = tuple(
        Hypothesis(
            step=s.index,
            content=s.content,
            status=s.status,
            rejected_by=s.rejected_by,
            rejected_because=by_index[s.rejected_by].content
            if s.rejected_by is not None and s.rejected_by in by_index
            else None,
        )
        for s in trace.steps
        if s.status in ("hypothesis", "rejected")
    )
    return ReasoningBrief(
        trace_id=trace.trace_id,
        task=trace.task,
        conclusion=trace.conclusion,
        step_count=len(trace.steps),
        quality_verdict=trace.quality.get("verdict"),
        origin=trace.created_by.origin,
        hypotheses=hypotheses,
        recorded_at=trace.system_from,
    )


class PrecedentService:
    """Finds precedents: similar past decisions, their reasoning in brief and how they went.

    Args:
        graph: the query runner.
        embedder: embeds the situation (the same model as the stored embeddings).
        policy: the visibility policy (recall's origins).
        config: index names, fusion and over-fetch settings (retrieval's).
    """

    def __init__(
        self, graph: Graph, embedder: Embedder, policy: VisibilityPolicy, config: RetrievalConfig
    ) -> None:
        self.graph = graph
        self.embedder = embedder
        self.policy = policy
        self.config = config
        self.candidates = CandidateFinder(config, policy)

    def find(self, namespace: str, request: PrecedentRequest) -> PrecedentResult:
        """Return the past decisions whose situation resembles `request.situation`, best first.

        Args:
            namespace: the caller's namespace.
            request: the situation, `limit` (1..100), `kinds` (default decisions), `as_of` and
                `known_at` (timezone-aware UTC or None): candidates, versions, traces and
                outcomes are those believed at `known_at` about `as_of`.

        Returns:
            The precedents: each the decision's version, its score and why it matched, its
            recall-visible reasoning in brief and its outcome record.

        Raises:
            InvalidInputError: empty or invalid situation, or a kind that cannot be a precedent.
            TooLargeError: the situation is over `max_query_chars`.
            EmbeddingError: the model failed.
        """
        text = clean_text(
            request.situation, field="situation", max_chars=self.config.max_query_chars
        )
        limit = int(request.limit)
        if not 1 <= limit <= 100:
            raise InvalidInputError("limit: between 1 and 100")
        kinds = sorted({str(k) for k in request.kinds} if request.kinds else {Kind.DECISION.value})
        bad = [k for k in kinds if k not in PRECEDENT_KINDS]
        if bad:
            raise InvalidInputError(
                f"kinds: {', '.join(bad)} cannot be precedents (use {', '.join(PRECEDENT_KINDS)})"
            )
        origins = self.policy.origins("recall")
        if not origins:
            return PrecedentResult()
        query = RetrievalQuery(
            text=text,
            limit=min(max(limit * CANDIDATES_PER_ITEM, MIN_CANDIDATES), 100),
            kinds=sorted({*kinds, Kind.REASONING.value}),
            as_of=request.as_of or utcnow(),
            known_at=request.known_at,
            origins=origins,
        )
        embedding = self.embedder.encode([text])[0]
        lucene = lucene_query(text)

        def work(tx: Tx, exact: bool) -> tuple[list[Precedent], list[Unrecognized]]:
            vector = self.candidates.vector(tx, namespace, query, embedding, exact=exact)
            fulltext = self.candidates.fulltext(tx, namespace, query, lucene)
            groups = self._groups(tx, namespace, query, kinds, vector.hits, fulltext.hits, text)
            out = []
            for group in groups:
                precedent = self._precedent(tx, namespace, group, request, query.as_of)
                if precedent is not None:
                    out.append(precedent)
                if len(out) == limit:
                    break
            return out, [*vector.unrecognized, *fulltext.unrecognized]

        items, unrecognized = read_ranked(self.graph, work)
        self.candidates.warn_unrecognized(namespace, unrecognized)
        return PrecedentResult(items=tuple(items))

    def _groups(
        self,
        tx: Tx,
        namespace: str,
        query: RetrievalQuery,
        kinds: Sequence[str],
        vector: list[Hit],
        fulltext: list[Hit],
        text: str,
    ) -> list[_Group]:
        ranked = fuse(vector, fulltext, query.limit, self.config.rrf_k, self.config.fusion)
        if not ranked:
            return []
        lexical = {h.uid: h.score for h in fulltext}
        rows = tx.run(
            QueryName.PRECEDENT_LIST_PRECEDENT_TARGETS,
            {"namespace": namespace, "uids": [r.hit.uid for r in ranked], "kinds": list(kinds)},
        )
        by_uid = {r["uid"]: r for r in rows}
        situation = set(terms(text)) - {NOT_TERM}
        groups: dict[str, _Group] = {}
        for fused in ranked:
            row = by_uid.get(fused.hit.uid)
            if row is None:
                continue
            via = "reasoning" if row["kind"] == Kind.REASONING else "decision"
            match = Match(
                via=via,
                memory_id=row["memory_id"],
                score=fused.score,
                similarity=fused.similarity,
                lexical=lexical.get(fused.hit.uid),
                shared_terms=tuple(sorted(situation & set(terms(row["content"] or "")))),
            )
            for target in row["targets"]:
                group = groups.setdefault(target, _Group(target))
                if via == "reasoning":
                    group.reasoning = max(group.reasoning, fused.score)
                else:
                    group.own = max(group.own, fused.score)
                group.matches.append(match)
        return sorted(groups.values(), key=lambda g: (-g.score, -g.other, g.memory_id))

    def _precedent(
        self, tx: Tx, namespace: str, group: _Group, request: PrecedentRequest, as_of: datetime
    ) -> Precedent | None:
        """Return the group's precedent, or None when its decision is not one at `as_of`.

        The decision is the version believed at `request.known_at` and valid at `as_of` (the
        request's, else now), as its direct candidates are: a decision closed in valid time
        since is no precedent of today, though its trace still matches.
        """
        record = tx.memory(
            QueryName.MEMORY_GET_MEMORY,
            {
                "namespace": namespace,
                "memory_id": group.memory_id,
                "as_of": as_of,
                "known_at": request.known_at,
            },
        )
        if record is None or not self.policy.visible(record.created_by_origin, "recall"):
            return None
        rows = tx.run(
            QueryName.REASONING_LIST_LINEAGE_TRACES,
            {
                "namespace": namespace,
                "memory_id": group.memory_id,
                "origins": self.policy.origins("recall"),
            },
        )
        now = utcnow()
        wanted = [
            str(row["trace_id"])
            for row in rows
            if request.known_at is None or row["system_from"] <= request.known_at
        ]
        found = read_traces(tx, namespace, wanted, now, self.policy.origins("recall"))
        briefs = [_brief(trace_public(found[t])) for t in wanted if t in found]
        outcomes = list_outcomes_in(
            tx, namespace, [group.memory_id], request.as_of, request.known_at
        )
        similarities = [m.similarity for m in group.matches if m.similarity is not None]
        return Precedent(
            decision=memory_public(record),
            score=group.score,
            similarity=max(similarities) if similarities else None,
            matched=tuple(group.matches),
            reasoning=tuple(briefs),
            outcome_record=outcome_record(outcomes),
        )
