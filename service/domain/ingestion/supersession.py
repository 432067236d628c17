"""ADR supersession: an ingested decision closes and links the ADR decisions it relates to."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from service.domain.memories import MemoryService, Writer, utcnow
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord
from service.graph.repository import Tx


def supersede(
    tx: Tx,
    memories: MemoryService,
    writer: Writer,
    decision: MemoryRecord,
    adr: Mapping[str, Any],
    now: datetime,
    unit: str,
) -> list[dict[str, str]]:
    """Close and link the ADR decisions related to `decision`; return the new links.

    An ADR's decision carries its normalised name (`adr_name`, see `adr_key`), the names it
    supersedes and is superseded by (`adr_supersedes`, `adr_superseded_by`), also in its
    metadata. In the unit's transaction every current ADR decision of the namespace related
    by either side's links is resolved: the older one is closed — a new version written by
    origin ingestion (`created_by` copied) with `valid_to` = the newer one's `valid_from`, or
    the write's time when that would not be after the older one's `valid_from` — and the
    newer one's current version `SUPERSEDES` that closed version. Pairs already linked are
    skipped, so the order of ingestion does not matter and repeating it changes nothing.

    from __future__ import annotations

    Args:
        tx: the unit's write transaction.
        memories: the memory store (`version_in`).
        writer: namespace, origin `ingestion` and actor.
        decision: the unit's produced decision (`memory_id`, `uid`, `adr_name`, `valid_from`).
        adr: `{name, supersedes[], superseded_by[]}` of the decision (`adr_key` values).
        now: the unit's write time (timezone-aware UTC datetime).
        unit: the unit's key (reported with each link).

    Returns:
        `[{memory_id, supersedes_memory_id, unit}]`, one per new `SUPERSEDES` link.
    """
    rows = tx.run(
        QueryName.INGEST_LIST_ADR_RELATED,
        {
            "namespace": writer.namespace,
            "memory_id": decision.memory_id,
            "name": adr["name"],
            "supersedes": adr["supersedes"],
            "superseded_by": adr["superseded_by"],
        },
    )
    links: list[dict[str, str]] = []
    me = decision
    for r in rows:
        if r["linked"]:
            continue
        other = MemoryRecord.from_props(r["memory"])
        newer, older = (me, other) if r["role"] == "older" else (other, me)
        closed = _close(tx, memories, writer, older, newer, now)
        if older is me:
            me = closed
        tx.run(
            QueryName.MEMORY_LINK_SUPERSEDES,
            {
                "namespace": writer.namespace,
                "new_uid": newer.uid,
                "old_uid": closed.uid,
                "reason": f"ADR {newer.stored('adr_name')} supersedes ADR {older.stored('adr_name')}",
                "origin": writer.origin,
                "actor": writer.actor,
                "now": now,
            },
        )
        links.append(
            {
                "memory_id": newer.memory_id,
                "supersedes_memory_id": older.memory_id,
                "unit": unit,
            }
        )
    return links


def _close(
    tx: Tx,
    memories: MemoryService,
    writer: Writer,
    older: MemoryRecord,
    newer: MemoryRecord,
    now: datetime,
) -> MemoryRecord:
    """Return the older decision closed in valid time (a new version), or as is if already closed."""
    if older.valid_to is not None:
        return older
    at = max(utcnow(), now + timedelta(microseconds=1))
    end = newer.valid_from if newer.valid_from > older.valid_from else at
    changes = {
        "valid_to": end,
        "adr_name": older.stored("adr_name"),
        "adr_supersedes": older.stored("adr_supersedes"),
        "adr_superseded_by": older.stored("adr_superseded_by"),
        "adr_amends": older.stored("adr_amends"),
    }
    return memories.version_in(
        tx, older, changes, writer, at, reason=f"superseded by ADR {newer.stored('adr_name')}"
    )


def amend(
    tx: Tx, writer: Writer, decision: MemoryRecord, adr: Mapping[str, Any], now: datetime, unit: str
) -> list[dict[str, str]]:
    """Link `decision` by `AMENDS` to the ADR decisions it amends or builds on (or that amend it).

    `AMENDS` is the weaker relation: the newer decision refines or builds on the older one,
    which stays valid (nothing is closed). Either side's links count (`adr_amends` on a stored
    decision, ``adr["amends"]`` / ``adr["amended_by"]`` here), between current versions; pairs
    already linked are skipped, so the order of ingestion does not matter.

    Args:
        tx: the unit's write transaction.
        writer: namespace, origin `ingestion` and actor.
        decision: the unit's produced decision (its `memory_id`; the current version is linked).
        adr: `{name, amends[], amended_by[]}` of the decision (`adr_key` values).
        now: the unit's write time (timezone-aware UTC datetime).
        unit: the unit's key (reported with each link).

    Returns:
        `[{memory_id, amends_memory_id, unit}]`, one per new `AMENDS` link.
    """
    if not adr.get("amends") and not adr.get("amended_by") and not adr.get("name"):
        return []
    rows = tx.run(
        QueryName.INGEST_LINK_ADR_AMENDS,
        {
            "namespace": writer.namespace,
            "memory_id": decision.memory_id,
            "name": adr["name"],
            "amends": list(adr.get("amends") or []),
            "amended_by": list(adr.get("amended_by") or []),
            "origin": writer.origin,
            "actor": writer.actor,
            "now": now,
        },
    )
    return [
        {"memory_id": r["memory_id"], "amends_memory_id": r["amends_memory_id"], "unit": unit}
        for r in rows
    ]
