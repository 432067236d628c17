"""Write locks that make equal concurrent writes find each other (content idempotency).

Equality of an unkeyed memory (kind + normalised content + origin in a namespace) is checked by
a read, and two writers that read at the same moment both find nothing and both create. A
keyed fact serialises on its key's lock node (`memory/lock_key`); an unkeyed write serialises
on one of `CONTENT_STRIPES` lock nodes of its namespace, chosen by a hash of what equality
compares (lock striping: a bounded number of lock nodes, equal writes always on the same one,
unequal writes rarely waiting on each other).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from service.graph.query_names import QueryName
from service.graph.repository import Tx

#: Lock nodes per namespace: two unequal concurrent writes wait on each other 1 time in 4,096,
#: and a batch of 1,000 unkeyed items holds about a fifth of them (with 256, 98%: a trial saw
#: single writes beside such a batch wait p50 360-485 ms instead of 55-206 ms).
CONTENT_STRIPES = 4096


def content_stripe(props: Mapping[str, Any]) -> int:
    """Return the lock stripe of a would-be memory (0 to `CONTENT_STRIPES` - 1).

    Args:
        props: the memory's row (`kind`, `content_norm`, `created_by_origin`).
    """
    key = "\x1f".join((props["kind"], props["created_by_origin"], props["content_norm"]))
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big") % CONTENT_STRIPES


def place_stripe(episode: str, position: int) -> int:
    """Return the lock stripe of a place in material (`episode`, `position`), as `content_stripe`."""
    key = "\x1f".join(("place", episode, str(position)))
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big") % CONTENT_STRIPES


def lock_contents(
    tx: Tx,
    namespace: str,
    rows: Iterable[Mapping[str, Any]],
    now: datetime,
    places: Iterable[tuple[str, int]] = (),
) -> None:
    """Take the content locks of `rows` in `tx` (held until it ends), in ascending stripe order.

    Call before looking for an equal memory: a concurrent equal write then runs after this
    transaction ends and finds what it created.

    Args:
        tx: the open write transaction.
        namespace: the rows' namespace.
        rows: memory rows (see `content_stripe`); none takes no lock.
        now: the write's system time (stamped on the lock node).
        places: `(episode, position)` places to lock too (`place_stripe`), in the same
            sorted call, so that two writes to one place run one after the other.
    """
    stripes = sorted(
        {content_stripe(row) for row in rows} | {place_stripe(e, p) for e, p in places}
    )
    if stripes:
        tx.run(
            QueryName.MEMORY_LOCK_CONTENTS,
            {"namespace": namespace, "stripes": stripes, "now": now},
        )


def lock_key(tx: Tx, namespace: str, subject: str, attribute: str, now: datetime) -> dict[str, str]:
    """Take the write lock of a fact key in `tx` (held until it ends), creating its node once.

    Args:
        tx: the open write transaction.
        namespace: the key's namespace.
        subject: the key's subject.
        attribute: the key's attribute.
        now: the write's system time (stamped on the lock node).

    Returns:
        The key as the parameters of `memory/get_key_current`.
    """
    key = {"namespace": namespace, "subject": subject, "attribute": attribute}
    tx.run(QueryName.MEMORY_LOCK_KEY, {**key, "now": now})
    return key
