"""The keyed-fact rule: one value of a `subject` + `attribute` key at any valid time."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from service.domain.memories.rows import iso_utc, shifted, utcnow
from service.errors import InvalidInputError
from service.graph.records import MemoryRecord


def place_keyed_value(
    props: dict[str, Any], values: Sequence[MemoryRecord]
) -> tuple[dict[str, Any], list[MemoryRecord], list[MemoryRecord]]:
    """Fit a new value of a key into the key's timeline (valid time never overlaps).

    Args:
        props: the new value's properties (`valid_from`, `valid_to`).
        values: the current versions of the key's other values.

    Returns:
        `(props, to_close, to_correct)`: the new value's properties (its `valid_to` set to
        the next value's start when it had none), the values whose valid period contains the
        new start (closed at it, by a new version), and the values starting at the very same
        time (corrected: closed in system time).

    Raises:
        InvalidInputError: the new value's explicit `valid_to` runs into a later value.
    """
    start = props["valid_from"]
    later = [v for v in values if v.valid_from > start]
    if later:
        next_start = min(v.valid_from for v in later)
        if props["valid_to"] is None:
            props = {**props, "valid_to": next_start}
        elif props["valid_to"] > next_start:
            raise InvalidInputError(
                f"valid_to runs into the next value of this key, which starts at {iso_utc(next_start)}"
            )
    to_close = [
        v for v in values if v.valid_from < start and (v.valid_to is None or v.valid_to > start)
    ]
    to_correct = [v for v in values if v.valid_from == start]
    return props, to_close, to_correct


def check_keyed_period(
    current: MemoryRecord, props: dict[str, Any], values: Sequence[MemoryRecord]
) -> None:
    """Refuse a new version of a keyed value whose valid period meets another value of its key.

    A `PATCH` (or invalidate) of a keyed fact's `valid_from`/`valid_to` moves one value
    inside the key's timeline; unlike a new value, it closes nobody else, so a period that
    overlaps another value's would make two values of the key valid at once. Periods are
    half-open (`valid_from <= t < valid_to`; an open end is infinity), so touching is fine.

    Args:
        current: the value being changed (its own versions are not "another value").
        props: the new version's `valid_from` and `valid_to`.
        values: the current versions of every value of the key (`memory/get_key_current`).

    Raises:
        InvalidInputError: the new period overlaps another value's (named with its period).
    """
    start, end = props["valid_from"], props["valid_to"]
    for other in values:
        if other.memory_id == current.memory_id:
            continue
        if (end is None or other.valid_from < end) and (
            other.valid_to is None or start < other.valid_to
        ):
            until = iso_utc(other.valid_to) if other.valid_to is not None else "open-ended"
            raise InvalidInputError(
                f"the valid period would overlap value {other.memory_id} of this key "
                f"({iso_utc(other.valid_from)} to {until}); one value of a key is valid at "
                "any time: write a new value instead, or change the other one first"
            )


def after_key_values(
    props: dict[str, Any], now: datetime, values: list[MemoryRecord]
) -> tuple[dict[str, Any], datetime]:
    """Return the write's props and system time, moved after the key's values when needed.

    The clock is read before the key's lock is granted (`memory/lock_key`): a concurrent
    writer of the key that committed meanwhile left a value that began after `now`, and this
    write would close it before it began (refused by `memory/create_version`). Then the write
    takes its time anew (at least 1 µs after that value's start): its `system_from`, and its
    `valid_from` when that was defaulted to the write's time.

    Args:
        props: the new memory's properties (`new_props`).
        now: the system time read before the lock (timezone-aware UTC).
        values: the key's current values, read under the lock.

    Returns:
        `(props, now)`, unchanged when no value began after `now`.

    Raises:
        InvalidInputError: a value's `system_from` at the last instant a time can hold.
    """
    latest = max((v.system_from for v in values), default=now)
    if latest <= now:
        return props, now
    later = max(utcnow(), shifted(latest, timedelta(microseconds=1), what="system_from"))
    moved = {**props, "system_from": later}
    if props["valid_from"] == now:
        moved["valid_from"] = later
    return moved, later
