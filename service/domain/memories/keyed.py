"""The keyed-fact rule: one value of a `subject` + `attribute` key at any valid time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
                f"valid_to runs into the next value of this key, which starts at {next_start.isoformat()}"
            )
    to_close = [
        v for v in values if v.valid_from < start and (v.valid_to is None or v.valid_to > start)
    ]
    to_correct = [v for v in values if v.valid_from == start]
    return props, to_close, to_correct
