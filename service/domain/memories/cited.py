"""The memories a write cites (a trace's steps, an outcome): their current versions, or a 422."""

from __future__ import annotations

import time
from collections.abc import Sequence

from service.domain.memories.reads import CURRENT_READ_ATTEMPTS, RETRY_PAUSE_S
from service.errors import MAX_ECHOED_IDS, MissingReference, VersionConflict, echo_id, echo_ids
from service.graph.query_names import QueryName
from service.graph.records import CitedMemory
from service.graph.repository import Runner


def cited_memories(
    runner: Runner, namespace: str, memory_ids: Sequence[str]
) -> dict[str, CitedMemory]:
    """Return the current version of each cited memory, by `memory_id`, in one query.

    A memory whose last visible version is closed but not retracted is being updated by a
    concurrent write (its new version is not visible yet): it is read again, as `find_current_in`
    reads a memory (up to `CURRENT_READ_ATTEMPTS`, pausing a little longer each time), never
    reported as missing.

    Args:
        runner: a `Graph` or an open `Tx`.
        namespace: the tenant.
        memory_ids: the cited ids, without repeats, in the order a refusal names them.

    Returns:
        `{memory_id: its current version}` for every id given.

    Raises:
        MissingReference: some have no current version (422): the message says which were
            never stored in the namespace, which were corrected (`"<id> by memory <id>"`: a
            new value of the same key from the same valid time) and which were retracted (at
            most `MAX_ECHOED_IDS` of each); `extra["missing"]` lists all of them, in the
            order given.
        VersionConflict: a cited memory stayed in the middle of a concurrent update through
            every read (409: retry).
    """
    if not memory_ids:
        return {}
    rows: dict[str, CitedMemory] = {}
    for attempt in range(CURRENT_READ_ATTEMPTS):
        found = runner.mapped(
            QueryName.REASONING_GET_CITED_MEMORIES,
            {"namespace": namespace, "memory_ids": list(memory_ids)},
            CitedMemory.from_row,
        )
        rows = {r.memory_id: r for r in found}
        if not any(not r.current and not r.retracted for r in found):
            break
        time.sleep(RETRY_PAUSE_S * attempt)
    else:
        moving = [r.memory_id for r in rows.values() if not r.current and not r.retracted]
        raise VersionConflict(
            f"cited memories were changed concurrently: {echo_ids(moving)}; retry"
        )
    missing = [m for m in memory_ids if m not in rows or not rows[m].current]
    if missing:
        unknown = [m for m in missing if m not in rows]
        corrected = [rows[m] for m in missing if m in rows and rows[m].replaced_by]
        gone = [m for m in missing if m in rows and not rows[m].replaced_by]
        reasons = []
        if unknown:
            reasons.append(f"cited memories do not exist: {echo_ids(unknown)}")
        if corrected:
            # As GET's 404 says it: a new value of the same key from the same valid time.
            by = [f"{echo_id(r.memory_id)} by memory {r.replaced_by}" for r in corrected]
            shown = ", ".join(by[:MAX_ECHOED_IDS])
            more = f" and {len(by) - MAX_ECHOED_IDS} more" if len(by) > MAX_ECHOED_IDS else ""
            reasons.append(f"cited memories were corrected (cite the new value): {shown}{more}")
        if gone:
            reasons.append(
                f"cited memories were retracted (no current version to cite): {echo_ids(gone)}"
            )
        raise MissingReference("; ".join(reasons), extra={"missing": missing})
    return rows
