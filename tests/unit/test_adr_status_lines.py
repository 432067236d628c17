"""A Status section read line by line whose first status line is a "superseded by X" relation:
the status is the word it ends with (``Superseded``), the line a history line read for the
relation -- as when the section says ``Superseded`` and then ``Superseded by X`` (rule:
`adr_meta.adr_status`; the other Status section rules: tests/unit/test_adr_metadata.py and
tests/unit/test_adr_relation_lines.py).
"""

from __future__ import annotations

import pytest

from service.domain.ingestion.formats import parse
from service.domain.models import IngestUnit

RECORD = "# ADR 7: Use X\n\n## Status\n\n{status}\n\n## Decision\n\nWe use X.\n"


def adr(status: str) -> IngestUnit:
    (unit,) = parse(RECORD.format(status=status), "adr", "0007-use-x.md")
    return unit


def read(unit: IngestUnit) -> tuple[object, ...]:
    extra = unit.extra
    return (
        extra["status"],
        extra["status_history"],
        unit.superseded_by,
        unit.supersedes,
        extra["lifecycle"],
    )


@pytest.mark.parametrize(
    ("section", "two_lines"),
    [
        ("Superseded by ADR-12", "Superseded\nSuperseded by ADR-12"),
        ("Superseded by [ADR-12](0012-y.md)", "Superseded\nSuperseded by [ADR-12](0012-y.md)"),
        ("**Superseded by** ADR-12", "Superseded\n**Superseded by** ADR-12"),
        ("- Superseded by ADR-12", "- Superseded\n- Superseded by ADR-12"),
        ("Status: Superseded by ADR-12", "Superseded\nSuperseded by ADR-12"),
        ("superseded by ADR-12", "superseded\nsuperseded by ADR-12"),
        ("Superseded by ADR-12\nDate: 2020-01-01", "Superseded\nSuperseded by ADR-12"),
        (
            "Supersedes ADR-3\nSuperseded by ADR-12",
            "Superseded\nSupersedes ADR-3\nSuperseded by ADR-12",
        ),
    ],
    ids=["plain", "link", "emphasis", "list", "status-key", "lower-case", "date", "after-links"],
)
def test_a_status_section_opening_with_superseded_by_reads_as_superseded(
    section: str, two_lines: str
) -> None:
    unit = adr(section)
    status, _history, superseded_by, _supersedes, ended = read(unit)
    assert str(status).casefold() == "superseded"
    assert superseded_by == ("12",)
    assert ended == "superseded"
    assert read(unit) == read(adr(two_lines))


@pytest.mark.parametrize(
    ("section", "status", "history"),
    [
        ("Superseded by ADR-12", "Superseded", ["Superseded by ADR-12"]),
        ("Superseded by ADR-12\nAccepted", "Superseded", ["Superseded by ADR-12", "Accepted"]),
        ("Replaced by ADR-12", "Replaced", ["Replaced by ADR-12"]),
        ("Accepted\nSuperseded by ADR-12", "Accepted", ["Superseded by ADR-12"]),
    ],
    ids=["alone", "then-accepted", "replaced", "not-first"],
)
def test_a_superseded_by_first_status_line_gives_its_word_and_keeps_the_line_in_the_history(
    section: str, status: str, history: list[str]
) -> None:
    unit = adr(section)
    assert unit.extra["status"] == status
    assert unit.extra["status_history"] == history
    assert unit.superseded_by == ("12",)
    assert unit.extra["lifecycle"] == "superseded"


def test_a_metadata_status_superseded_by_is_kept_as_written() -> None:
    """Only a Status section is read line by line: a ``Status:`` metadata value is one text."""
    content = "# ADR 7: Use X\n\nStatus: superseded by ADR-12\n\n## Decision\n\nWe use X.\n"
    (unit,) = parse(content, "adr", "0007-use-x.md")
    assert unit.extra["status"] == "superseded by ADR-12"
    assert unit.superseded_by == ("12",)
