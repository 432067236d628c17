"""A page of traces only (`kinds: ["reasoning"]`): read back and hydrated whole in one query."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from service.domain.models import Kind
from service.domain.reasoning import read_traces
from service.domain.retrieval.grouping import Entry, group, in_force_first
from service.domain.retrieval.models import Ranked, RetrievalQuery
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord, TraceRecord
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


def in_force(produced: Sequence[MemoryRecord], as_of: datetime) -> bool | None:
    """Return whether anything a trace produced still holds at `as_of` (None: it produced nothing).

    `produced` is a trace's `TraceRecord.produced` (each memory's produced version and, when
    it changed since, its latest, oldest first): a memory holds when its latest version is
    current (not closed in system time) and valid at `as_of`, as `retrieval/list_hits` decides
    for a recall's traces.
    """
    latest = {p.memory_id: p for p in produced}
    if not latest:
        return None
    return any(
        m.system_to is None and m.valid_from <= as_of and (m.valid_to is None or m.valid_to > as_of)
        for m in latest.values()
    )


def replacements(runner: Runner, namespace: str, entries: Sequence[Entry]) -> dict[str, list[str]]:
    """Return what replaced the memories the ended traces among `entries` produced.

    One query (`retrieval/list_replacements`), asked only when a trace ended (rare: a
    superseded ADR, an invalidated or retracted decision): another memory whose version
    `SUPERSEDES` a version of the ended one replaced it.

    Args:
        runner: the read transaction.
        namespace: the caller's namespace.
        entries: the candidates read back.

    Returns:
        ended memory id -> the memory ids that replaced it (ids with none are absent).
    """
    ended = list(dict.fromkeys(p for e in entries if e.ended for p in e.produced))
    if not ended:
        return {}
    rows = runner.run(
        QueryName.RETRIEVAL_LIST_REPLACEMENTS, {"namespace": namespace, "memory_ids": ended}
    )
    return {str(r["ended_id"]): [str(m) for m in r["replaced_by"]] for r in rows}


def _settled(groups: list[Entry], limit: int, ranked: list[Ranked], start: int) -> bool:
    """Return True when no candidate not yet read can enter the page (see `trace_page`)."""
    if len(groups) < limit:
        return start >= len(ranked)
    page = groups[:limit]
    lowest = min(g.score for g in page)
    return start >= len(ranked) or not any(g.ended for g in page) or ranked[start].score <= lowest


def trace_page(
    runner: Runner,
    namespace: str,
    ranked: list[Ranked],
    limit: int,
    now: datetime,
    origins: Sequence[str],
    similarity: float,
    as_of: datetime | None = None,
) -> tuple[list[Entry], dict[str, TraceRecord]]:
    """Return the page's groups and their whole traces, best first, `limit` traces per query.

    The traces of the best `limit` fused candidates are read whole (`read_traces`, one round
    trip) and serve as their read-back too (`retrieval/list_hits` is not asked); copies of one
    trace collapse into the best-ranked (`grouping.group`), and a candidate whose trace is
    gone, or whose version is no longer the one ranked, is skipped: the next candidates are
    read until the page is full, so it is never short while candidates remain.

    A trace none of whose produced memories holds at `as_of` (`in_force` False: superseded,
    invalidated, retracted) scores `grouping.ENDED_FACTOR` of its fused score, as in a
    recall's page; while the page holds one, the next candidates are read as long as the
    best of them scores above the page's lowest, so a trace that now outranks it takes its
    place.

    Args:
        runner: the read transaction.
        namespace: the caller's namespace.
        ranked: the fused candidates, best first (reasoning traces only).
        limit: the page size.
        now: the instant cited memories' changes are judged at.
        origins: the origins the read may see (cited memories of others come back hidden).
        similarity: the near-duplicate threshold (`grouping.group`).
        as_of: the read's valid time (`in_force` is judged then); `now` when None (a caller
            reading the page as it stands, as the tests of its read-back do).

    Returns:
        At most `limit` groups (`has_reasoning` False, `produced` the memory ids each trace
        produced, `in_force` set, collapsed copies in `duplicates`) and trace id -> trace
        for those read.
    """
    entries: list[Entry] = []
    groups: list[Entry] = []
    traces: dict[str, TraceRecord] = {}
    start = 0
    while not _settled(groups, limit, ranked, start):
        size = max(limit - len(groups), sum(g.ended for g in groups[:limit]))
        chunk = ranked[start : start + size]
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
                    in_force=in_force(record.produced, as_of or now),
                )
            )
        fresh = [e.fresh() for e in entries]
        groups = group(in_force_first(fresh, replacements(runner, namespace, fresh)), similarity)
    return groups[:limit], traces
