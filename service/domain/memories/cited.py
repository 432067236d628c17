"""The memories a write cites (a trace's steps, an outcome): their current versions, or a 422."""

from __future__ import annotations

from collections.abc import Sequence

from service.errors import MissingReference, echo_ids
from service.graph.query_names import QueryName
from service.graph.records import CitedMemory
from service.graph.repository import Runner


def cited_memories(
    runner: Runner, namespace: str, memory_ids: Sequence[str]
) -> dict[str, CitedMemory]:
    """Return the current version of each cited memory, by `memory_id`, in one query.

    Args:
        runner: a `Graph` or an open `Tx`.
        namespace: the tenant.
        memory_ids: the cited ids, without repeats, in the order a refusal names them.

    Returns:
        `{memory_id: its current version}` for every id given.

    Raises:
        MissingReference: some have no current version (422): the message says which were
            never stored in the namespace and which were retracted (at most `MAX_ECHOED_IDS`
            of each); `extra["missing"]` lists all of them, in the order given.
    """
    if not memory_ids:
        return {}
    rows = runner.mapped(
        QueryName.REASONING_GET_CITED_MEMORIES,
        {"namespace": namespace, "memory_ids": list(memory_ids)},
        CitedMemory.from_row,
    )
    found = {r.memory_id: r for r in rows if r.current}
    retracted = {r.memory_id for r in rows if not r.current}
    missing = [m for m in memory_ids if m not in found]
    if missing:
        gone = [m for m in missing if m in retracted]
        unknown = [m for m in missing if m not in retracted]
        reasons = []
        if unknown:
            reasons.append(f"cited memories do not exist: {echo_ids(unknown)}")
        if gone:
            reasons.append(
                f"cited memories were retracted (no current version to cite): {echo_ids(gone)}"
            )
        raise MissingReference("; ".join(reasons), extra={"missing": missing})
    return found
