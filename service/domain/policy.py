"""The visibility policy (DESIGN §5): the one place that decides which origins each read sees.

Visibility reads `created_by_origin` only, never `last_modified_by_origin`: who wrote a memory
first decides whether it comes back; a maintenance job touching a user's decision does not hide it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Read = Literal["recall", "search", "lineage"]


@dataclass(frozen=True)
class VisibilityPolicy:
    """Origin -> which reads see it. Origins absent from the table are unrecognized.

    Args:
        table: e.g. `{"user": {"recall": True, "search": True, "lineage": True}, ...}`
            (`settings.visibility`, default `settings.DEFAULT_VISIBILITY`).
    """

    table: Mapping[str, Mapping[str, bool]]

    def origins(self, read: Read) -> list[str]:
        """Return the `created_by_origin` values visible to `read`, sorted (a Cypher parameter)."""
        return sorted(origin for origin, reads in self.table.items() if reads.get(read, False))

    def recognized(self) -> list[str]:
        """Return every origin the table knows; anything else is unrecognized (hidden, counted)."""
        return sorted(self.table)

    def visible(self, origin: str | None, read: Read) -> bool:
        """Return True when a memory created through `origin` may be returned by `read`."""
        return origin is not None and bool(self.table.get(origin, {}).get(read, False))
