"""A page of traces only (`kinds: ["reasoning"]`): read back and hydrated whole in one query."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from service.domain.models import Kind
from service.domain.reasoning import read_traces
from service.domain.retrieval.grouping import Entry, group
from service.domain.retrieval.models import Ranked, RetrievalQuery
from service.graph.records import TraceRecord
from service.graph.repository import Runner


def only_traces(query: RetrievalQuery) -> bool:
    """Return True when the query can return nothing but current traces.

    Such a page needs no grouping read-back (`retrieval/list_hits`): a trace groups only with
    a memory it produced, which is not a candidate here, and the traces read whole carry the
    text near-duplicates are found by (`trace_page`).
    """
    return (
        query.kinds == [Kind.REASONING] and query.known_at is None and not query.include_superseded
    )


def trace_page(
    runner: Runner,
    namespace: str,
    ranked: list[Ranked],
    limit: int,
    now: datetime,
    origins: Sequence[str],
    similarity: float,
) -> tuple[list[Entry], dict[str, TraceRecord]]:
    """Return the page's groups and their whole traces, best first, `limit` traces per query.

    The traces of the best `limit` fused candidates are read whole (`read_traces`, one round
    trip) and serve as their read-back too (`retrieval/list_hits` is not asked); copies of one
    trace collapse into the best-ranked (`grouping.group`), and a candidate whose trace is
    gone, or whose version is no longer the one ranked, is skipped: the next candidates are
    read until the page is full, so it is never short while candidates remain.

    Args:
        runner: the read transaction.
        namespace: the caller's namespace.
        ranked: the fused candidates, best first (reasoning traces only).
        limit: the page size.
        now: the instant cited memories' changes are judged at.
        origins: the origins the read may see (cited memories of others come back hidden).
        similarity: the near-duplicate threshold (`grouping.group`).

    Returns:
        At most `limit` groups (`has_reasoning` False, `produced` the memory ids each trace
        produced, collapsed copies in `duplicates`) and trace id -> trace for those read.
    """
    entries: list[Entry] = []
    groups: list[Entry] = []
    traces: dict[str, TraceRecord] = {}
    start = 0
    while len(groups) < limit and start < len(ranked):
        chunk = ranked[start : start + limit - len(groups)]
        start += len(chunk)
        found = read_traces(runner, namespace, [r.hit.memory_id for r in chunk], now, origins)
        for fused in chunk:
            record = found.get(fused.hit.memory_id)
            if record is None or record.trace.uid != fused.hit.uid:
                continue
            traces[record.trace.memory_id] = record
            entries.append(
                Entry(
                    ranked=fused,
                    memory=record.trace,
                    has_reasoning=False,
                    produced=tuple(dict.fromkeys(p.memory_id for p in record.produced)),
                )
            )
        groups = group([e.fresh() for e in entries], similarity)
    return groups[:limit], traces
