"""Reciprocal-rank fusion of the two candidate lists, weighted by each trace's quality."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.models import Kind, Verdict
from service.domain.retrieval.models import Hit, Ranked

#: Quality weights of a trace's fused score (see `quality_factor`).
POOR_FACTOR = 0.5
REJECTED_FACTOR = 0.1


def rrf(rankings: Sequence[Sequence[str]], k: int) -> dict[str, float]:
    """Fuse ranked lists by reciprocal rank (Cormack, Clarke & Büttcher, SIGIR 2009).

    `score(d) = sum over lists L containing d of 1 / (k + rank_L(d))`, ranks 1-based.

    Args:
        rankings: each a list of ids, best first.
        k: the fusion constant (`settings.rrf_k`, 60 = the paper's value); larger flattens the
            weight of top ranks.

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


def fuse(vector: list[Hit], fulltext: list[Hit], limit: int, rrf_k: int) -> list[Ranked]:
    """Return the top `limit` candidates by quality-weighted reciprocal-rank fusion.

    Ranks are 1-based among the filtered candidates of each list; a trace's fused score is
    multiplied by `quality_factor`, and rejected traces go after every other item. Ties (equal
    fused scores) go to the closer embedding, then to a stable id order.

    Args:
        vector: the vector index's candidates (score = cosine similarity in [0, 1]).
        fulltext: the fulltext index's candidates.
        limit: max items returned, 1..100.
        rrf_k: the fusion constant (`settings.rrf_k`).

    Returns:
        At most `limit` fused candidates, best first.
    """
    by_uid: dict[str, Hit] = {}
    rankings = []
    for hits in (vector, fulltext):
        ordered = sorted(hits, key=lambda h: (-h.score, h.uid))
        rankings.append([h.uid for h in ordered])
        for h in ordered:
            by_uid.setdefault(h.uid, h)
    fused = rrf(rankings, rrf_k)
    similarity = {h.uid: h.score for h in vector}
    ranked = []
    for uid, score in fused.items():
        hit = by_uid[uid]
        last = False
        if hit.kind == Kind.REASONING:
            score *= quality_factor(hit.quality_verdict, hit.quality_score)
            last = hit.quality_verdict == Verdict.REJECTED
        ranked.append(Ranked(hit=hit, score=score, similarity=similarity.get(uid), last=last))
    ranked.sort(key=lambda r: (r.last, -r.score, -(r.similarity or 0.0), r.hit.uid))
    return ranked[:limit]
