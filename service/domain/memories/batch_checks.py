"""A batch's items checked before anything is written, every problem found, one refusal naming each.

`POST /v1/memories/batch` is all or nothing, so a refusal lists every invalid item at once
(`errors`: index, code, detail) instead of the first one: a client fixes them all in one go.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from service.domain.memories.places import clashes_within
from service.domain.memories.store import MemoryService
from service.domain.models import WRITABLE_KINDS, NewMemory, Writer
from service.errors import InvalidInputError, RationaleError, TooLargeError, bounded_detail

#: One item's problem: its index in the request and the error it would be alone.
Problem = tuple[int, RationaleError]


@dataclass(frozen=True)
class BatchItem:
    """One memory of a batch: who writes it and what to create."""

    writer: Writer
    memory: NewMemory


def item_rows(
    memories: MemoryService, items: Sequence[tuple[int, BatchItem]], now: datetime
) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    """Validate items one by one, then against each other, without stopping at the first fault.

    Args:
        memories: the memory store (`new_props`, its limits).
        items: `(index in the request, item)` pairs, in request order.
        now: the write's system time (timezone-aware UTC datetime).

    Returns:
        `(rows, problems)`: a memory row per valid item (no embedding yet: `embedding` is
        empty), and every problem found: an item breaking a rule or a size limit, or putting
        other content at a place an earlier item holds (`places.clashes_within`).
    """
    rows: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    for index, item in items:
        fields = asdict(item.memory)
        kind, content = fields.pop("kind"), fields.pop("content")
        try:
            if kind not in {k.value for k in WRITABLE_KINDS}:
                raise InvalidInputError(f"kind: {kind!r} cannot be created here")
            # An empty embedding defers encoding: the whole batch is encoded in one call.
            row = memories.new_props(item.writer, kind, content, now=now, embedding=[], **fields)
        except (InvalidInputError, TooLargeError) as exc:
            problems.append((index, exc))
            continue
        rows.append((index, row))
    problems += clashes_within(rows)
    return rows, problems


def item_errors(problems: Sequence[Problem]) -> list[dict[str, Any]]:
    """Return the `errors` list of a batch refusal: `{index, code, detail, ...}` by index.

    Each entry carries the problem's own extra fields (e.g. `memory_id` of a stored memory
    holding the place, `same_place_as` naming the earlier item).
    """
    return [
        {
            **{k: v for k, v in exc.extra.items() if k not in ("index", "errors")},
            "index": index,
            "code": exc.code,
            "detail": bounded_detail(exc.message),
        }
        for index, exc in sorted(problems, key=lambda p: p[0])
    ]


def batch_refusal(problems: Sequence[Problem]) -> RationaleError:
    """Return one error naming every problem of a batch (raise it; nothing is written).

    One kind of problem keeps its class, code and status (a size limit alone is a 413, a
    place held by a stored memory a 409); mixed problems are a 422 `input.invalid`. The
    message lists `items[i]: ...` for each problem in index order; `extra` holds `index` (the
    first item at fault), `errors` (`item_errors`) and, for a single problem, its own extras.

    Args:
        problems: at least one `(index, error)` pair.
    """
    ordered = sorted(problems, key=lambda p: p[0])
    classes = {type(exc) for _, exc in ordered}
    cls = classes.pop() if len(classes) == 1 else InvalidInputError
    first_index, first = ordered[0]
    extra: dict[str, Any] = dict(first.extra) if len(ordered) == 1 else {}
    extra.update(index=first_index, errors=item_errors(ordered))
    message = "; ".join(f"items[{index}]: {exc.message}" for index, exc in ordered)
    return cls(message, extra=extra)
