"""What a result item says about itself: why it matched, its duplicates, the trace behind it."""

from __future__ import annotations

import string
from typing import Any

from service.domain.retrieval.grouping import Entry
from service.domain.retrieval.lexical import analyse
from service.domain.retrieval.models import Fusion


def duplicates_of(entry: Entry) -> dict[str, Any] | None:
    """Return `{count, memory_ids}` of the near-duplicates collapsed into `entry`, or None."""
    if not entry.duplicates:
        return None
    return {
        "count": len(entry.duplicates),
        "memory_ids": [d.memory.memory_id for d in entry.duplicates],
    }


def reasoning_of(entry: Entry) -> dict[str, Any] | None:
    """Return the summary of the trace grouped with `entry`, or None.

    Returns:
        `{trace_id, version, score, task, quality_verdict}` (score: the trace's own fused
        score); the whole trace is one `GET` of the lineage path away.
    """
    trace = entry.reasoning
    if trace is None:
        return None
    return {
        "trace_id": trace.memory.memory_id,
        "version": trace.memory.version,
        "score": trace.ranked.score,
        "task": trace.memory.task_text,
        "quality_verdict": trace.memory.quality_verdict,
    }


def produced_of(entry: Entry) -> list[dict[str, Any]] | None:
    """Return `[{memory_id, kind, version, score}]` of what a trace lead produced, or None."""
    if not entry.produced_items:
        return None
    return [
        {
            "memory_id": p.memory.memory_id,
            "kind": p.memory.kind,
            "version": p.memory.version,
            "score": p.ranked.score,
        }
        for p in entry.produced_items
    ]


def query_words(lucene: str | None) -> list[str]:
    """Return the query's words as sent to the fulltext index (unescaped, lower-case, unique).

    Punctuation around a word is not part of it (`fail?` is `fail`); inside it stays
    (`test_upload`, `v1.2`).
    """
    if lucene is None:
        return []
    words = (w.strip(string.punctuation).lower() for w in lucene.replace("\\", "").split())
    return list(dict.fromkeys(w for w in words if w))


def explanation(entry: Entry, words: list[str], fusion: Fusion) -> dict[str, Any]:
    """Return why `entry` matched: each list's raw and normalised score and its contribution.

    Args:
        entry: a result group's lead.
        words: the query's words (`query_words`).
        fusion: the fusion in use (its weights give the contributions).

    Returns:
        `{fusion, fused, lexical: {bm25, normalised, contribution} | None, vector:
        {similarity, normalised, contribution} | None, task: {similarity, normalised,
        contribution} | None, neighbours, identified, matched_terms, context_terms}`: `task`
        is a trace's task match (its contribution is what `fusion.task_blend` added, None
        under RRF); `identified` whether it holds the number the query is about (None when
        the query is about none; when False its score kept `fusion.identifier_weight`);
        `matched_terms` are the query words whose analysed terms the memory's own text
        (`content` and its identifier parts: "upload" of `test_upload`) holds, `context_terms` those found only in the context it was indexed with
        (the previous turn of its episode, the section it sits in: its lexical field beyond
        `content`), so a short turn found through the turn before it says so; contributions
        are None under RRF (a rank share, not a score's).
    """
    ranked = entry.ranked
    weighted = fusion.method == "weighted"

    def part(raw: float | None, norm: float | None, weight: float, name: str) -> Any:
        if raw is None:
            return None
        return {
            name: raw,
            "normalised": norm,
            "contribution": weight * norm if weighted and norm is not None else None,
        }

    # The memory's own words: its text and the parts of its identifiers (`search_parts`).
    own = set(analyse(f"{entry.memory.content}\n{entry.memory.extra.get('search_parts') or ''}"))
    held = set(analyse(str(entry.memory.extra.get("search_text") or entry.memory.content)))
    matched, context = [], []
    for word in words:
        terms = set(analyse(word))
        if terms and terms <= own:
            matched.append(word)
        elif terms and terms <= held:
            context.append(word)
    return {
        "fusion": fusion.method,
        "fused": ranked.score,
        "lexical": part(ranked.lexical, ranked.lexical_norm, fusion.lexical_weight, "bm25"),
        "vector": part(ranked.similarity, ranked.vector_norm, fusion.vector_weight, "similarity"),
        "task": None
        if ranked.task_similarity is None
        else {
            "similarity": ranked.task_similarity,
            "normalised": ranked.task_norm,
            "contribution": ranked.task_gain,
        },
        "neighbours": ranked.neighbours,
        "identified": ranked.identified,
        "matched_terms": matched,
        "context_terms": context,
    }
