"""The visibility policy (DESIGN §5): origin names, the default table, and who sees what.

The one home of the origins (`Origin`) and of the default table (`DEFAULT_VISIBILITY`; settings
may override it). Visibility reads `created_by_origin` only, never `last_modified_by_origin`: who
wrote a memory first decides whether it comes back; a maintenance job touching a user's decision
does not hide it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

Read = Literal["recall", "search", "lineage"]


class Origin(StrEnum):
    """The door a write came through (DESIGN §5); fixed at creation as `created_by_origin`."""

    USER = "user"
    INGESTION = "ingestion"
    MAINTENANCE = "maintenance"


#: The default visibility policy (DESIGN §5): which `created_by_origin` values each read sees.
#: Any origin not listed for a read is hidden from it; an origin listed nowhere is "unrecognized".
DEFAULT_VISIBILITY: dict[str, dict[str, bool]] = {
    Origin.USER.value: {"recall": True, "search": True, "lineage": True},
    Origin.INGESTION.value: {"recall": True, "search": True, "lineage": True},
    Origin.MAINTENANCE.value: {"recall": False, "search": True, "lineage": True},
}


def default_visibility() -> dict[str, dict[str, bool]]:
    """Return a fresh copy of `DEFAULT_VISIBILITY` (the settings field's default).

    Returns:
        `{origin: {"recall": bool, "search": bool, "lineage": bool}}`, safe to mutate.
    """
    return {origin: dict(reads) for origin, reads in DEFAULT_VISIBILITY.items()}


@dataclass(frozen=True)
class VisibilityPolicy:
    """Origin -> which reads see it. Origins absent from the table are unrecognized.

    Args:
        table: e.g. `{"user": {"recall": True, "search": True, "lineage": True}, ...}`
            (`settings.visibility`, default `DEFAULT_VISIBILITY`).
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

    def maintenance_inputs(self) -> list[str]:
        """Return the origins whose memories and traces maintenance jobs read and act on, sorted.

        Every recognized origin except `maintenance` itself: maintenance never acts on
        maintenance output, so no job feeds on another's speculation; unrecognized origins are
        left alone as every read leaves them. With the default table: `["ingestion", "user"]`.

        Returns:
            Origin names (a Cypher parameter and a membership test).
        """
        return [origin for origin in self.recognized() if origin != Origin.MAINTENANCE]
