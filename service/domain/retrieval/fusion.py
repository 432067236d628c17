"""Fusion of the two candidate lists (weighted normalised scores or RRF), by trace quality."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from service.domain.models import Kind, Verdict
from service.domain.retrieval.models import Fusion, Hit, Ranked
from service.domain.retrieval.numbers import LABELLED, NONE

#: Quality weights of a trace's fused score (see `quality_factor`).
POOR_FACTOR = 0.5
REJECTED_FACTOR = 0.1
#: The task-index score (Neo4j's cosine score, `(1 + cosine) / 2`) from which a trace's task
#: counts as a match: cosine 0.5. With all-MiniLM-L6-v2 on the peer benchmark's corpus (1,000
#: tasks, 200 paraphrased queries), the best task's cosine is >= 0.498 for every query (1st
#: percentile 0.52, median 0.70); for queries about something else, 0.12-0.35.
TASK_MATCH_SCORE = 0.75


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


def _top(hits: Sequence[Hit], depth: int) -> list[Hit]:
    """Return the `depth` best hits, best first (ties by uid)."""
    return sorted(hits, key=lambda h: (-h.score, h.uid))[:depth]


def by_best(hits: Sequence[Hit], depth: int) -> dict[str, float]:
    """Return each hit's score divided by the list's best, over the list's top `depth`, in [0, 1].

    For BM25 scores (>= 0, and 0 means no evidence): unlike `min_max`, a hit's normalised score
    does not move with the list's weakest member, so which memories fill the bottom of a
    namespace's fulltext list (Lucene's index-wide cut, which other tenants move) changes no
    other hit's score. A list whose best is 0 gives each 0.

    Args:
        hits: one index's candidates (any order).
        depth: how many of the best take part (`retrieval_norm_depth`).

    Returns:
        uid -> normalised score.
    """
    top = _top(hits, depth)
    if not top or top[0].score <= 0:
        return {h.uid: 0.0 for h in top}
    high = top[0].score
    return {h.uid: max(h.score, 0.0) / high for h in top}


def min_max(hits: Sequence[Hit], depth: int, match: float | None = None) -> dict[str, float]:
    """Return each hit's score min-max normalised over the list's top `depth`, in [0, 1].

    The best of the top `depth` gets 1, the worst 0; a list whose top scores are all equal
    gives each 1. Hits below the top `depth` are left out. With `match`, the upper bound is at
    least `match`: a list whose best is no match (a namespace's few traces, none about the
    query) scales below 1 instead of crowning its best.

    Args:
        hits: one index's candidates (any order).
        depth: how many of the best take part (`retrieval_norm_depth`).
        match: the lowest score that counts as a full match (`TASK_MATCH_SCORE`), or None.

    Returns:
        uid -> normalised score.
    """
    top = _top(hits, depth)
    if not top:
        return {}
    high, low = top[0].score, top[-1].score
    if match is not None:
        high = max(high, match)
    if high <= low:
        return {h.uid: 1.0 for h in top}
    return {h.uid: max(h.score - low, 0.0) / (high - low) for h in top}


def task_blend(fused: float, task_norm: float, weight: float) -> float:
    """Return a reasoning trace's fused score with its task match counted in.

    `max(fused, (1 - weight) * fused + weight * task_norm)`: a trace whose task the query
    restates (high `task_norm`) is ranked mostly by that match, as a peer that searches task
    embeddings only would rank it, while its steps' lexical and whole-text evidence still
    orders traces of equal task match; a trace matched by its steps but not by its task keeps
    its fused score (the blend never lowers it), so a query about a step still finds it.

    Measured on the peer benchmark's corpus (`bench.traces`: 1,000 traces, 200 paraphrased
    tasks, exact cosines, namespace-local BM25 over steps): hit@1 0.830 for the plain fused
    score (lexical 0.6, vector 0.4 over the better of whole-text and task similarity), 0.865
    for the task similarity alone, 0.885-0.890 for this blend with `weight` 0.7-0.95 (0.890 at
    0.8); `weight` 1 falls back to 0.865.

    Args:
        fused: the trace's fused score before quality weighting.
        task_norm: its task similarity min-max normalised in the task list, in [0, 1] (0 when
            the task index did not find it).
        weight: `Fusion.task_weight` in [0, 1].

    Returns:
        The score, >= `fused`.
    """
    return max(fused, (1.0 - weight) * fused + weight * task_norm)


def neighbour_means(hits: Sequence[Hit], fused: Mapping[str, float]) -> dict[str, float]:
    """Return, per candidate with an episode, the mean fused score of its two neighbours.

    Neighbours are the memories at `position - 1` and `position + 1` of the same episode; one
    that is not a candidate counts 0. A turn whose neighbours also match is more likely the
    passage the query is about (LoCoMo: +2 points R@10).

    Args:
        hits: the candidates of both lists (with `episode` and `position`).
        fused: uid -> fused score before smoothing.

    Returns:
        uid -> `(fused(prev) + fused(next)) / 2`; candidates without an episode are absent.
    """
    at: dict[tuple[str, int], str] = {}
    for h in hits:
        if h.episode is not None and h.position is not None:
            at[(h.episode, h.position)] = h.uid
    out = {}
    for (episode, position), uid in at.items():
        around = (at.get((episode, position - 1)), at.get((episode, position + 1)))
        out[uid] = sum(fused.get(n, 0.0) for n in around if n is not None) / 2
    return out


def fuse(
    vector: list[Hit],
    fulltext: list[Hit],
    limit: int,
    rrf_k: int,
    fusion: Fusion | None = None,
    identified: Mapping[str, int] | None = None,
) -> list[Ranked]:
    """Return the top `limit` candidates, fused by evidence (weighted) or by rank (RRF).

    `fusion.method == "weighted"` (the default of recall and search): the fulltext list's BM25
    scores are divided by its best (`by_best`) and the vector list's similarities min-max
    normalised (`min_max`), each over its top `norm_depth`; the fused score is
    `lexical_weight * lexical + vector_weight * vector` (a list that did not find the
    candidate gives 0), plus `neighbour_weight` times the mean fused score of the candidate's
    episode neighbours (`neighbour_means`); a reasoning trace's score then counts its task
    match (`task_blend` with `task_weight`, its `task_score` min-max normalised among the
    vector candidates the task index found, the upper bound at least `TASK_MATCH_SCORE`). `"rrf"` (or `fusion` None): reciprocal-rank fusion
    with `rrf_k`, ranks 1-based among the filtered candidates of each list (a trace's vector
    rank is by the better of its whole-text and task similarity).

    When the query is about a number (`identified` given: "ADR 57", "issue 1234"), a candidate
    keeps its whole score when it holds the number with the query's label (`ADR-0057`), the
    square root of `fusion.identifier_weight` of it when it holds the number elsewhere, and
    `identifier_weight` of it when it does not hold it (`numbers`): the vector side finds
    every record of the kind alike, and the one holding the number is the answer.
    A trace's score is then multiplied by `quality_factor`, and rejected traces go after every
    other item. Ties go to the closer embedding, then to a stable id order.

    Args:
        vector: the vector index's candidates (score = cosine similarity in [0, 1]).
        fulltext: the fulltext index's candidates (score = Lucene BM25).
        limit: max items returned, 1..100.
        rrf_k: the RRF constant (`settings.rrf_k`).
        fusion: the method and its weights, or None for RRF.
        identified: how candidates hold the number the query is about (uid -> `numbers`
            level; `Candidates.identified`), or None when it is about none.

    Returns:
        At most `limit` fused candidates, best first, each with its contributions.
    """
    by_uid: dict[str, Hit] = {}
    for h in sorted([*vector, *fulltext], key=lambda h: h.uid):
        by_uid.setdefault(h.uid, h)
    similarity = {h.uid: h.score for h in vector}
    bm25 = {h.uid: h.score for h in fulltext}
    task_similarity = {
        h.uid: h.task_score for h in vector if h.task_score is not None and h.kind == Kind.REASONING
    }
    lexical_norm: dict[str, float] = {}
    vector_norm: dict[str, float] = {}
    task_norm: dict[str, float] = {}
    smoothing: dict[str, float] = {}
    task_gain: dict[str, float] = {}
    if fusion is None or fusion.method == "rrf":
        rankings = [
            [h.uid for h in sorted(hits, key=lambda h: (-h.score, h.uid))]
            for hits in (vector, fulltext)
        ]
        fused = rrf(rankings, fusion.rrf_k if fusion is not None else rrf_k)
    else:
        lexical_norm = by_best(fulltext, fusion.norm_depth)
        vector_norm = min_max(vector, fusion.norm_depth)
        base = {
            uid: fusion.lexical_weight * lexical_norm.get(uid, 0.0)
            + fusion.vector_weight * vector_norm.get(uid, 0.0)
            for uid in by_uid
        }
        if fusion.neighbour_weight > 0:
            means = neighbour_means(list(by_uid.values()), base)
            smoothing = {uid: fusion.neighbour_weight * m for uid, m in means.items()}
        fused = {uid: s + smoothing.get(uid, 0.0) for uid, s in base.items()}
        if fusion.task_weight > 0 and task_similarity:
            task_norm = min_max(
                [replace(by_uid[uid], score=s) for uid, s in task_similarity.items()],
                fusion.norm_depth,
                TASK_MATCH_SCORE,
            )
            for uid, norm in task_norm.items():
                blended = task_blend(fused[uid], norm, fusion.task_weight)
                task_gain[uid] = blended - fused[uid]
                fused[uid] = blended
    identifier_weight = fusion.identifier_weight if fusion is not None else Fusion.identifier_weight
    ranked = []
    for uid, score in fused.items():
        hit = by_uid[uid]
        last = False
        if identified is not None:
            score *= identifier_weight ** ((LABELLED - identified.get(uid, NONE)) / LABELLED)
        if hit.kind == Kind.REASONING:
            score *= quality_factor(hit.quality_verdict, hit.quality_score)
            last = hit.quality_verdict == Verdict.REJECTED
        ranked.append(
            Ranked(
                hit=hit,
                score=score,
                similarity=similarity.get(uid),
                last=last,
                lexical=bm25.get(uid),
                lexical_norm=lexical_norm.get(uid),
                vector_norm=vector_norm.get(uid),
                neighbours=smoothing.get(uid),
                task_similarity=task_similarity.get(uid),
                task_norm=task_norm.get(uid),
                task_gain=task_gain.get(uid),
                identified=None if identified is None else identified.get(uid, NONE),
            )
        )
    ranked.sort(key=lambda r: (r.last, -r.score, -(r.similarity or 0.0), r.hit.uid))
    return ranked[:limit]
