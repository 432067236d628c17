"""A memory's place in its material (`episode`, `position`): one turn per place at the main door.

A position is a turn's place in its episode, so two different texts at one place are two turns
claiming it. Through `POST /v1/memories` and `POST /v1/memories/batch` such a write is refused:
two items of one batch with different content at one place are a 422 `input.position_clash`
(the request contradicts itself); a place already held by a current memory of other content
is a 409 `memory.position_taken` (the request contradicts the stored state: change that turn
with `PATCH`, or retract it to free the place). The same content at the same place stays an
idempotent repeat (`created: false`) when its kind is the same too (trial 25: an observation,
a fact and a decision of one text at one place were three memories). Content is compared normalised
(`content_norm`), as equality compares it. Ingestion places its own observations and keeps its
rules (an edited document ingested again).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from service.domain.memories.locks import lock_contents
from service.errors import PositionClash, PositionTaken, RationaleError, echo_id
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord
from service.graph.repository import Runner, Tx

Place = tuple[str, int]


def place_of(row: Mapping[str, Any]) -> Place | None:
    """Return a memory row's `(episode, position)`, or None when it has no position."""
    episode, position = row.get("episode"), row.get("position")
    if episode is None or position is None:
        return None
    return str(episode), int(position)


def _where(place: Place) -> str:
    return f"episode {echo_id(place[0])!r} position {place[1]}"


def clashes_within(
    rows: Sequence[tuple[int, Mapping[str, Any]]],
) -> list[tuple[int, RationaleError]]:
    """Return the items of one request that put other content at a place an earlier item holds.

    Args:
        rows: `(index in the request, memory row)` pairs, in request order.

    Returns:
        `(index, PositionClash)` for each later item whose normalised content or kind differs
        from the first item at its place; the error's `extra` names that item (`same_place_as`).
    """
    first: dict[Place, tuple[int, str]] = {}
    found: list[tuple[int, RationaleError]] = []
    for index, row in rows:
        place = place_of(row)
        if place is None:
            continue
        if place not in first:
            first[place] = (index, f"{row['kind']}:{row['content_norm']}")
            continue
        other, content = first[place]
        if f"{row['kind']}:{row['content_norm']}" != content:
            error = PositionClash(
                f"{_where(place)} is items[{other}]'s place, with other content: a position "
                "is one turn's place in its episode",
                extra={"same_place_as": other},
            )
            found.append((index, error))
    return found


def taken_places(
    runner: Runner, namespace: str, rows: Sequence[tuple[int, Mapping[str, Any]]]
) -> list[tuple[int, RationaleError]]:
    """Return the rows whose place a current stored memory holds with other content.

    Args:
        runner: a query runner (inside the write transaction, once the places are locked).
        namespace: the rows' namespace.
        rows: `(index in the request, memory row)` pairs.

    Returns:
        `(index, PositionTaken)` per such row, naming the stored memory (`memory_id`).
    """
    keys = []
    for index, row in rows:
        place = place_of(row)
        if place is not None:
            keys.append(
                {
                    "index": index,
                    "episode": place[0],
                    "position": place[1],
                    "content_norm": row["content_norm"],
                    "kind": row["kind"],
                }
            )
    if not keys:
        return []
    places = {int(k["index"]): (str(k["episode"]), int(k["position"])) for k in keys}
    found = runner.run(QueryName.MEMORY_FIND_TAKEN_PLACES, {"namespace": namespace, "rows": keys})
    return [
        (
            int(r["index"]),
            PositionTaken(
                f"{_where(places[int(r['index'])])} holds memory {r['memory_id']} with other "
                "content: change that turn with PATCH (or retract it) instead of writing a "
                "second one there",
                extra={"memory_id": r["memory_id"]},
            ),
        )
        for r in sorted(found, key=lambda r: int(r["index"]))
    ]


def create_at_place(
    create_in: Callable[[Tx], tuple[MemoryRecord, bool]],
    tx: Tx,
    props: dict[str, Any],
    now: datetime,
) -> tuple[MemoryRecord, bool]:
    """Create one memory of the main door, refusing a place held by other content.

    Takes the memory's content lock and its place's lock in one call (so two writes to one
    place run one after the other), checks the place, then creates through `create_in`.

    Args:
        create_in: `MemoryService.create_in` bound to the memory and writer.
        tx: the open write transaction.
        props: the memory's row (`MemoryService.new_props`).
        now: the write's system time.

    Raises:
        PositionTaken: a current memory with other content holds its place (409).
    """
    place = place_of(props)
    if place is not None:
        unkeyed = [props] if props["subject"] is None else []
        lock_contents(tx, props["namespace"], unkeyed, now, places=[place])
        taken = taken_places(tx, props["namespace"], [(0, props)])
        if taken:
            raise taken[0][1]
    return create_in(tx)
