"""ADR supersession: an ingested decision closes and links the ADR decisions it relates to.

Superseded is a matter of valid time, not of a decision's `status`: `status` says how a decision
stands while it holds (`active`, `challenged`: `DecisionStatus`), and a decision that no longer
holds is closed in valid time (`valid_to`), so recall no longer returns it as a decision. Why it
ended is in its metadata, ``adr_closed {because, by}``: ``because`` superseded, deprecated or
rejected, ``by`` the superseding ADR (``ADR 57``) or `OWN_STATUS` (the record said so itself).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from service.domain.memories import MemoryService, Writer, encode_metadata, shifted, utcnow
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord
from service.graph.repository import Tx

#: ``adr_closed.by`` when a record's own status closed its decision (the end time is then the
#: ingestion's: the record does not say since when; a later successor's date replaces it).
OWN_STATUS = "its own status"
#: The ADR properties every new version of an ADR decision carries over.
_ADR_FIELDS = ("adr_name", "adr_aliases", "adr_supersedes", "adr_superseded_by", "adr_amends")
#: The least step of time: a closing version is written, and a rejected decision ends, this
#: long after (`shifted`: a time at the end of the range gives `InvalidInputError`, not a 500).
_TICK = timedelta(microseconds=1)


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

    A decision whose record says it is superseded, deprecated or rejected (``adr["lifecycle"]``)
    and that no newer decision closed here is closed too: at the write's time (superseded,
    deprecated: it held until some time the record does not give), or one microsecond after its
    `valid_from` (rejected: it never held). An older decision closed that way is closed again at
    its successor's `valid_from` when the successor arrives and that is earlier (a new version:
    versions are never overwritten). A rejected record supersedes nothing (it was never adopted).

    Args:
        tx: the unit's write transaction.
        memories: the memory store (`version_in`).
        writer: namespace, origin `ingestion` and actor.
        decision: the unit's produced decision (`memory_id`, `uid`, `adr_name`, `valid_from`).
        adr: `{name, supersedes[], superseded_by[], lifecycle}` of the decision (`adr_key`
            values; `lifecycle` superseded, deprecated, rejected or None).
        now: the unit's write time (timezone-aware UTC datetime).
        unit: the unit's key (reported with each link).

    Returns:
        `[{memory_id, supersedes_memory_id, unit}]`, one per new `SUPERSEDES` link.

    Raises:
        InvalidInputError: a record that says it ended, dated the last instant a time can hold
            (9999-12-31T23:59:59.999999Z): its end cannot come after it.
    """
    # Its current version: a stated outcome may have challenged it in this transaction.
    current = tx.memory(
        QueryName.MEMORY_GET_MEMORY,
        {
            "namespace": writer.namespace,
            "memory_id": decision.memory_id,
            "as_of": None,
            "known_at": None,
        },
    )
    me = current or decision
    rows = tx.run(
        QueryName.INGEST_LIST_ADR_RELATED,
        {
            "namespace": writer.namespace,
            "memory_id": decision.memory_id,
            "names": adr["aliases"],
            "supersedes": adr["supersedes"],
            "superseded_by": adr["superseded_by"],
        },
    )
    ended = adr.get("lifecycle")
    links: list[dict[str, str]] = []
    for r in rows:
        if r["linked"]:
            continue
        other = MemoryRecord.from_props(r["memory"])
        newer, older = (me, other) if r["role"] == "older" else (other, me)
        rejected = ended if newer is me else closed_by(other).get("because")
        if rejected == "rejected":  # a proposal never adopted replaced nothing
            continue
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
    # Only this record's own decision: an equal decision text of another record is not its.
    if ended and me.valid_to is None and decision.stored("adr_name") == adr["name"]:
        at = max(utcnow(), shifted(now, _TICK, what="the write's time"))
        start = shifted(me.valid_from, _TICK, what=f"the date of ADR {adr['name']} ({ended})")
        end = start if ended == "rejected" else max(at, start)
        _end(tx, memories, writer, me, end, at, str(ended), OWN_STATUS, decision)
    return links


def closed_by(decision: MemoryRecord) -> dict[str, Any]:
    """Return a decision's ``adr_closed {because, by}`` metadata (empty when it was not closed)."""
    raw = decision.stored("metadata_json")
    metadata = json.loads(raw) if isinstance(raw, str) and raw else {}
    closed = metadata.get("adr_closed") if isinstance(metadata, dict) else None
    return closed if isinstance(closed, dict) else {}


def _end(
    tx: Tx,
    memories: MemoryService,
    writer: Writer,
    decision: MemoryRecord,
    end: datetime,
    at: datetime,
    because: str,
    by: str,
    first: MemoryRecord | None = None,
) -> MemoryRecord:
    """Write the version of `decision` closed in valid time at `end`, saying why in its metadata.

    The ADR properties are carried over from `decision`, or from `first` (the version written
    by ingestion) where a version between them (a challenge) did not keep them.
    """
    raw = decision.stored("metadata_json")
    metadata = json.loads(raw) if isinstance(raw, str) and raw else {}
    metadata["adr_closed"] = {"because": because, "by": by}
    changes: dict[str, Any] = {}
    for name in _ADR_FIELDS:
        value = decision.stored(name)
        changes[name] = first.stored(name) if value is None and first is not None else value
    changes.update({"valid_to": end, "metadata_json": encode_metadata(metadata)})
    reason = f"{because} by {by}" if by != OWN_STATUS else f"{because}, says {by}"
    return memories.version_in(tx, decision, changes, writer, at, reason=reason)


def _close(
    tx: Tx,
    memories: MemoryService,
    writer: Writer,
    older: MemoryRecord,
    newer: MemoryRecord,
    now: datetime,
) -> MemoryRecord:
    """Return the older decision closed in valid time (a new version), or as is if already closed.

    Already closed by its own status at a later time than the newer one's `valid_from`, it is
    closed again at that `valid_from` (the record had not said when it ended; its successor does).
    """
    at = max(utcnow(), shifted(now, _TICK, what="the write's time"))
    by = f"ADR {newer.stored('adr_name')}"
    if older.valid_to is not None:
        own = closed_by(older).get("by") == OWN_STATUS
        if own and older.valid_from < newer.valid_from < older.valid_to:
            return _end(tx, memories, writer, older, newer.valid_from, at, "superseded", by)
        return older
    end = newer.valid_from if newer.valid_from > older.valid_from else at
    return _end(tx, memories, writer, older, end, at, "superseded", by)


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
