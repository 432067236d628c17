"""ADR metadata tables: which cells are metadata keys, a table's rows, its key/value pairs."""

from __future__ import annotations

import re

from service.domain.ingestion.formats.markdown import Block

#: Keys that name ADR metadata, to tell a table's key column from its header row (`table_pairs`)
#: and a Status section's metadata lines from its status lines. Not status words: ``Accepted``
#: heads a status line (``| Status | Accepted |``) more often than it keys a date.
META_KEYS = frozenset(
    {
        "status",
        "state",
        "decision status",
        "date",
        "decision date",
        "last revised",
        "last updated",
        "last modified",
        "updated",
        "created",
        "deciders",
        "decider",
        "decision-makers",
        "decision makers",
        "authors",
        "author",
        "owner",
        "owners",
        "consulted",
        "informed",
        "reviewers",
        "approvers",
        "stakeholders",
        "proposed by",
        "supersedes",
        "superseded by",
        "superseded-by",
        "replaces",
        "replaced by",
        "amends",
        "tags",
        "id",
        "title",
        "technical story",
        "ticket",
        "version",
    }
)
_TABLE_RULE = re.compile(r"^\|?[\s:|-]*-[\s:|-]*\|?$")


def is_meta_key(cell: str) -> bool:
    """True when a table cell or line key names ADR metadata (`META_KEYS`, emphasis ignored)."""
    return " ".join(cell.strip("*_: ").lower().split()) in META_KEYS


def table_rows(block: Block) -> list[list[str]]:
    """Return a table's rows of cells; a paragraph of ``| a | b |`` lines is one too.

    Without its ``|---|---|`` line Markdown reads such rows as a paragraph; they are read as a
    table all the same (every line starts and ends with ``|``). Other blocks give no rows.
    """
    if block.kind == "table":
        return [[c.strip() for c in row.split(" | ")] for row in block.text.splitlines()]
    lines = [ln.strip() for ln in block.lines] if block.kind == "paragraph" else []
    if not lines or not all(len(ln) > 1 and ln[0] == ln[-1] == "|" for ln in lines):
        return []
    rows = [ln[1:-1] for ln in lines if not _TABLE_RULE.match(ln)]
    return [[c.strip() for c in row.split("|")] for row in rows]


def table_pairs(rows: list[list[str]]) -> list[tuple[str, str]]:
    """Return the ``(key, value)`` pairs of a metadata table's rows (keys not yet lower-cased).

    A table of two rows is a header row of keys over a row of values (``| authors | last
    revised |`` over ``| Shon Feder | 2021-12-05 |``), unless it has two columns and its first
    column names more metadata keys (`META_KEYS`) than its header row does: then, as every
    two-column table, it is one ``key | value`` pair per row, the header row included
    (``| Status | Accepted |`` over ``| Date | 2023-01-05 |``) unless it is a ``Key | Value``
    heading. A header of unknown words over one row gives both readings, header first.
    """
    if not rows:
        return []
    two_columns = all(len(r) == 2 for r in rows)
    keyed_column = sum(is_meta_key(r[0]) for r in rows) if two_columns else 0
    keyed_header = sum(is_meta_key(c) for c in rows[0])
    pairs: list[tuple[str, str]] = []
    if len(rows) == 2 and keyed_column <= keyed_header:
        pairs += list(zip(rows[0], rows[1], strict=False))
        if keyed_header:
            return pairs
    if two_columns:
        start = 1 if rows[0][0].lower() in ("key", "field", "name", "property", "") else 0
        pairs += [(r[0], r[1]) for r in rows[start:]]
    return pairs
