"""Batch writes: many memories validated first, embedded in one call, written in one transaction.

`POST /v1/memories/batch` (DESIGN §11). Every item is checked before anything is embedded or
written, so the refusal names every invalid item (`batch_checks`: index, code, detail) and
leaves the graph untouched, as it does items putting another turn at a taken place (`places`:
two items of the batch, or an item and a stored memory, with the same episode and position and
different content); the items are then
created in request order inside one write transaction (all or nothing), each through the same
`MemoryService.create_in` as a single write, so content idempotency and the keyed-fact rule apply
exactly as they do one by one, and an item equal to an earlier item of the same batch comes back
as that memory with `created` False.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.domain.memories.batch_checks import BatchItem, batch_refusal, item_rows
from service.domain.memories.locks import lock_contents
from service.domain.memories.places import place_of, taken_places
from service.domain.memories.public import Memory, memory_public
from service.domain.memories.rows import utcnow
from service.domain.memories.store import MemoryService, equality_of
from service.domain.models import KIND_LABELS, Kind
from service.domain.text.lexical import lexical_context, search_text
from service.embeddings import Embedder
from service.errors import ConflictError, InvalidInputError, TooLargeError
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord
from service.graph.repository import Runner, Tx


@dataclass(frozen=True)
class BatchOutcome:
    """One item's result, in request order.

    Attributes:
        index: the item's position in the request, from 0.
        created: False when an equal current memory existed (stored before, or earlier in
            the same batch); `memory` is then that memory.
        memory: the stored memory (public shape).
    """

    index: int
    created: bool
    memory: Memory


def _equal_stored(runner: Runner, rows: list[dict[str, Any]]) -> dict[int, MemoryRecord]:
    """Return, by row index, the current memory equal to a row (kind, key, content, origin, valid then)."""
    keys = [{"index": i, **equality_of(row)} for i, row in enumerate(rows)]
    found = runner.run(
        QueryName.MEMORY_FIND_EQUAL_MEMORIES, {"namespace": rows[0]["namespace"], "rows": keys}
    )
    return {int(r["index"]): MemoryRecord.from_props(r["memory"]) for r in found}


def _embed(embedder: Embedder, rows: list[dict[str, Any]]) -> None:
    """Fill every empty `embedding` in one model call, each distinct content encoded once."""
    texts = sorted({row["content"] for row in rows if not row["embedding"]})
    vectors = dict(zip(texts, embedder.encode(texts), strict=True))
    for row in rows:
        if not row["embedding"]:
            row["embedding"] = vectors[row["content"]]


def _with_previous_turns(tx: Tx, rows: list[dict[str, Any]], fresh: list[int]) -> None:
    """Give each fresh row with an episode position its previous turn as lexical context.

    The previous turn is the memory at `position - 1` of the same episode: an item of this
    batch when one holds that place (the last such item in request order), else the current
    stored memory there (`memory/previous_turns`, one query for the batch). A single write
    does the same in `memory/create_memory`; `lexical_context` combines it with a given
    `context`. Updates `search_context` and `search_text` in place.
    """
    in_batch: dict[tuple[str, int], str] = {}
    for row in rows:
        if row["episode"] is not None and row["position"] is not None:
            in_batch[(row["episode"], row["position"])] = row["content"]
    previous: dict[int, str | None] = {}
    ask: list[dict[str, Any]] = []
    for i in fresh:
        episode, position = rows[i]["episode"], rows[i]["position"]
        if episode is None or position is None or position == 0:
            continue
        if (episode, position - 1) in in_batch:
            previous[i] = in_batch[(episode, position - 1)]
        else:
            ask.append({"i": i, "episode": episode, "position": position})
    if ask:
        found = tx.run(
            QueryName.MEMORY_PREVIOUS_TURNS, {"namespace": rows[0]["namespace"], "keys": ask}
        )
        previous.update({int(r["i"]): r["previous"] for r in found})
    for i, turn in previous.items():
        row = rows[i]
        row["search_context"] = lexical_context(row["search_context"], turn)
        row["search_text"] = search_text(row["search_context"], row["content"], row["search_parts"])


def _write(
    memories: MemoryService, tx: Tx, rows: list[dict[str, Any]], items: Sequence[BatchItem]
) -> list[tuple[MemoryRecord, bool]]:
    """Create the rows in one transaction: unkeyed ones in one query, keyed facts in order.

    Unkeyed items are independent of keyed ones (equality includes the key), so they are
    matched against stored memories and against each other, then created together; keyed facts
    go one by one through `create_in`, which applies the keyed-fact rule in request order.

    Raises:
        PositionTaken: items whose place a current memory of other content holds, checked
            under the place locks (409, all of them named: `batch_refusal`).
        InvalidInputError, ConflictError: a keyed item was refused as it was written (its
            `valid_to` runs into the next value of its key; a value it closes was changed
            concurrently): the same class, its index in the message and in `extra["index"]`
            as `create_many`'s checks name one; the transaction rolls back.
    """
    now, namespace = rows[0]["system_from"], rows[0]["namespace"]
    unkeyed = [row for row in rows if row["subject"] is None]
    places = [p for p in map(place_of, rows) if p is not None]
    lock_contents(tx, namespace, unkeyed, now, places=places)
    taken = taken_places(tx, namespace, list(enumerate(rows)))
    if taken:
        raise batch_refusal(taken)
    stored = _equal_stored(tx, rows)
    results: dict[int, tuple[MemoryRecord, bool]] = {}
    first: dict[tuple[str, str, str | None, int | None], int] = {}
    repeats: dict[int, int] = {}
    fresh: list[int] = []
    for i, row in enumerate(rows):
        if row["subject"] is not None:
            continue
        if i in stored:
            results[i] = (stored[i], False)
            continue
        # As `equality_of`: an unkeyed item's place in its material is part of it.
        key = (row["kind"], row["content_norm"], row.get("episode"), row.get("position"))
        if key in first:
            repeats[i] = first[key]
            continue
        first[key] = i
        fresh.append(i)
    keyed = [i for i, row in enumerate(rows) if row["subject"] is not None]
    # Only rows whose equal memory went away since the read still lack an embedding.
    _embed(memories.embedder, [rows[i] for i in fresh + keyed if i not in stored])
    _with_previous_turns(tx, rows, fresh)
    created = tx.memories(
        QueryName.MEMORY_CREATE_MEMORIES,
        {"rows": [{"label": KIND_LABELS[Kind(rows[i]["kind"])], "props": rows[i]} for i in fresh]},
    )
    by_uid = {record.uid: record for record in created}
    for i in fresh:
        results[i] = (by_uid[rows[i]["uid"]], True)
    for i, j in repeats.items():
        results[i] = (results[j][0], False)
    for i in keyed:
        try:
            results[i] = memories.create_in(tx, rows[i], now, items[i].writer)
        except (InvalidInputError, TooLargeError, ConflictError) as exc:
            raise batch_refusal([(i, exc)]) from exc  # e.g. its valid_to runs into the next value
    _as_they_end(tx, rows, keyed, results)
    return [results[i] for i in range(len(rows))]


def _as_they_end(
    tx: Tx,
    rows: list[dict[str, Any]],
    keyed: list[int],
    results: dict[int, tuple[MemoryRecord, bool]],
) -> None:
    """Answer each keyed item of a key that several items share as it stands at the batch's end.

    A later value of the same key closes an earlier item's value (a new version ending at its
    start, or, from the same start, a correction closing it in system time), so the version
    `create_in` returned for the earlier item is no longer what is stored. Updates `results`
    with each such item's newest version.
    """
    per_key: dict[tuple[str, str], int] = {}
    for i in keyed:
        key = (rows[i]["subject"], rows[i]["attribute"])
        per_key[key] = per_key.get(key, 0) + 1
    for i in keyed:
        if per_key[(rows[i]["subject"], rows[i]["attribute"])] < 2:
            continue
        record, created = results[i]
        versions = tx.memories(
            QueryName.MEMORY_LIST_VERSIONS,
            {"namespace": record.namespace, "memory_id": record.memory_id},
        )
        results[i] = (versions[-1], created)


def create_many(
    memories: MemoryService, items: Sequence[BatchItem], max_items: int
) -> list[BatchOutcome]:
    """Create many memories at once (`POST /v1/memories/batch`), all or nothing.

    One model call embeds the batch's distinct new contents (items equal to a stored memory
    need no embedding); one write transaction creates the items in order.

    Args:
        memories: the memory store (validation, embedder, transaction, `create_in`).
        items: the memories in request order; 1 to `max_items` of them.
        max_items: the documented batch limit (`RATIONALE_MAX_BATCH_ITEMS`).

    Returns:
        One outcome per item, in request order.

    Raises:
        TooLargeError: more than `max_items` items (413), or items over a size limit and no
            other problem (each index in the message and in `extra["errors"]`).
        InvalidInputError: no items, or items break rules, checked first (every invalid item
            named: `batch_checks.batch_refusal`; `PositionClash` when two items put different
            content at one place) or as it is written (422); nothing is written.
        PositionTaken: items whose place (`episode`, `position`) a current memory of other
            content holds (409, every such item named); nothing is written.
        ConflictError: a keyed item's write collided with a concurrent one (409, its index
            named); nothing is written.
        EmbeddingError: the model failed (503); nothing is written.
    """
    if not items:
        raise InvalidInputError("items: send at least one memory")
    if len(items) > max_items:
        raise TooLargeError(f"items: {len(items)} memories, over the batch limit of {max_items}")
    rows_at, problems = item_rows(memories, list(enumerate(items)), utcnow())
    if problems:
        raise batch_refusal(problems)
    rows = [row for _, row in rows_at]
    # A place held by other content is refused before the model runs (again under the locks).
    taken = taken_places(memories.graph, rows[0]["namespace"], rows_at)
    if taken:
        raise batch_refusal(taken)
    # Rows equal to a stored memory need no embedding; the transaction checks again.
    stored = _equal_stored(memories.graph, rows)
    _embed(memories.embedder, [row for i, row in enumerate(rows) if i not in stored])
    written = memories.graph.write(lambda tx: _write(memories, tx, rows, items))
    return [
        BatchOutcome(index=index, created=created, memory=memory_public(record))
        for index, (record, created) in enumerate(written)
    ]
