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
