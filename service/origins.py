"""The origin names and the default visibility table (DESIGN §5): their one home.

Read by `service.domain.policy.VisibilityPolicy` (the only code that interprets the table) and by
`service.settings` (whose `visibility` field may override it). No other module lists origins.
"""

from __future__ import annotations

from enum import StrEnum


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


#: The reads every row of a visibility table sets (`service.domain.policy.Read`).
READS = frozenset({"recall", "search", "lineage"})


def check_visibility(table: dict[str, dict[str, bool]]) -> dict[str, dict[str, bool]]:
    """Return `table` when every origin sets exactly recall, search and lineage.

    A typo (`"recal"`) would otherwise start cleanly and hide every memory from recall.

    Raises:
        ValueError: the table is empty, or names an origin with unknown or missing reads.
    """
    if not table:
        raise ValueError("RATIONALE_VISIBILITY must name at least one origin")
    for origin, row in table.items():
        if set(row) != READS:
            unknown, missing = sorted(set(row) - READS), sorted(READS - set(row))
            raise ValueError(
                f"RATIONALE_VISIBILITY[{origin!r}] must set exactly recall, search and "
                f"lineage (unknown: {unknown or 'none'}; missing: {missing or 'none'})"
            )
    return table
