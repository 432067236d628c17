"""The visibility policy (DESIGN §5): who sees what, read from the one origin table.

The origins and the default table live in `service.origins` (the bottom layer, so settings can
take its default from there); this module is the only reader of the table. Visibility reads `created_by_origin` only, never `last_modified_by_origin`: who
wrote a memory first decides whether it comes back; a maintenance job touching a user's decision
does not hide it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from service.origins import Origin

Read = Literal["recall", "search", "lineage"]


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
