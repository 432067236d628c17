"""A date written in an ADR's current status line (``Accepted on 2023-01-05``): it dates the
record as a ``Date:`` line would, and the status is the status word(s) without it (rule:
`adr_meta.adr_status` with `adr_status_dates.split_status_date`; the other Status section rules:
tests/unit/test_adr_metadata.py and tests/unit/test_adr_status_lines.py).
"""

from __future__ import annotations

import pytest

from service.domain.ingestion.formats import parse
from service.domain.models import IngestUnit

RECORD = "{front}# ADR 7: Use X\n\n{meta}\n\n## Decision\n\nWe use X.\n"
UNREADABLE = "ingest.adr_date_unreadable"
FUTURE = "ingest.adr_date_in_future"

#: Status lines carrying the date 2023-01-05 in the ways ADR templates write it.
FORMS = [
    "Accepted on 2023-01-05",
    "Accepted (2023-01-05)",
    "Accepted - 2023-01-05",
    "Accepted \u2013 2023-01-05",
    "Accepted, 2023-01-05",
    "Accepted 2023-01-05",
    "2023-01-05: Accepted",
    "2023-01-05 Accepted",
    "2023-01-05 - Accepted",
    "**Accepted** on 2023-01-05",
]
FORM_IDS = [
    "on",
    "parenthesised",
    "dash",
    "en-dash",
    "comma",
    "space",
    "date-colon",
    "date-first",
    "date-dash",
    "emphasis",
]


def adr(meta: str, front: str = "") -> IngestUnit:
    (unit,) = parse(RECORD.format(front=front, meta=meta), "adr", "0007-use-x.md")
    return unit


def day(unit: IngestUnit) -> str | None:
    return unit.valid_from.date().isoformat() if unit.valid_from is not None else None


@pytest.mark.parametrize("line", FORMS, ids=FORM_IDS)
@pytest.mark.parametrize(
    "where",
    [
        "## Status\n\n{line}",
        "## Status\n\n- {line}",
        "## Status\n\nStatus: {line}",
        "Status: {line}",
    ],
    ids=["section", "section-list", "section-status-key", "metadata"],
)
def test_a_date_in_the_status_line_dates_the_record_and_leaves_the_status_word(
    line: str, where: str
) -> None:
    unit = adr(where.format(line=line))
    assert unit.extra["status"] == "Accepted"
    assert day(unit) == "2023-01-05"
    assert unit.extra["status_history"] == []
    assert unit.extra["warnings"] == []


@pytest.mark.parametrize(
    ("line", "status", "history"),
    [
        ("Proposed 2022-12-01, accepted 2023-01-05", "accepted", ["Proposed 2022-12-01"]),
        (
            "Proposed (2022-12-01), Accepted (2023-01-05)",
            "Accepted",
            ["Proposed (2022-12-01)"],
        ),
        ("2022-12-01: Proposed; 2023-01-05: Accepted", "Accepted", ["2022-12-01: Proposed"]),
        (
            "Proposed on 2022-11-01, in review on 2022-12-01, accepted on 2023-01-05",
            "accepted",
            ["Proposed on 2022-11-01", "in review on 2022-12-01"],
        ),
    ],
    ids=["space", "parenthesised", "date-first", "three"],
)
def test_several_dated_states_date_the_record_by_the_last_one(
    line: str, status: str, history: list[str]
) -> None:
    for where in (f"## Status\n\n{line}", f"Status: {line}"):
        unit = adr(where)
        assert unit.extra["status"] == status
        assert day(unit) == "2023-01-05"
        assert unit.extra["status_history"] == history


@pytest.mark.parametrize(
    "section",
    [
        "2022-12-01 Proposed\n2023-01-05 Accepted",
        "- 2022-12-01: Proposed\n- 2023-01-05: Accepted",
        "Proposed on 2022-12-01\n\nAccepted on 2023-01-05",
        "- 2023-01-05 Accepted\n- 2022-12-01 Proposed",  # newest first
    ],
    ids=["lines", "list", "paragraphs", "newest-first"],
)
def test_a_log_of_dated_status_lines_is_read_by_its_latest_state(section: str) -> None:
    """A helper's probe: one dated state per line was read by the first line, so a record
    proposed and then accepted was "Proposed", dated by the proposal."""
    unit = adr(f"## Status\n\n{section}")
    assert unit.extra["status"] == "Accepted"
    assert day(unit) == "2023-01-05"
    assert len(unit.extra["status_history"]) == 1
    assert "Proposed" in unit.extra["status_history"][0]


def test_the_earlier_states_follow_the_changelog_and_precede_the_other_status_lines() -> None:
    unit = adr(
        "## Changelog\n\n- 2022-11-20: First draft\n\n"
        "## Status\n\nProposed 2022-12-01, accepted 2023-01-05\nSupersedes ADR-3"
    )
    assert unit.extra["status"] == "accepted"
    assert unit.extra["status_history"] == [
        "2022-11-20: First draft",
        "Proposed 2022-12-01",
        "Supersedes ADR-3",
    ]
    assert unit.supersedes == ("3",)
    assert day(unit) == "2023-01-05"


@pytest.mark.parametrize(
    ("meta", "front", "date"),
    [
        ("## Status\n\nAccepted on 2023-01-05\nDate: 2020-01-01", "", "2020-01-01"),
        ("## Status\n\nAccepted on 2023-01-05\n2020-01-01", "", "2020-01-01"),
        ("Date: 2020-01-01\n\n## Status\n\nAccepted on 2023-01-05", "", "2020-01-01"),
        ("Status: Accepted on 2023-01-05\nDate: 2020-01-01", "", "2020-01-01"),
        ("## Status\n\nAccepted on 2023-01-05", "---\ndate: 2020-01-01\n---\n", "2020-01-01"),
        ("Status: Accepted on 2023-01-05", "---\ndate: 2020-01-01\n---\n", "2020-01-01"),
    ],
    ids=[
        "section-date-line",
        "section-bare-date",
        "preamble-date",
        "metadata-date",
        "front-matter-date",
        "front-matter-date-metadata-status",
    ],
)
def test_a_front_matter_or_date_line_date_wins_over_the_status_date(
    meta: str, front: str, date: str
) -> None:
    unit = adr(meta, front)
    assert unit.extra["status"] == "Accepted"
    assert day(unit) == date
    assert unit.extra["warnings"] == []


@pytest.mark.parametrize(
    "meta", ["## Status\n\nAccepted on 2023-02-30", "Status: Accepted on 2023-02-30"]
)
def test_an_unreadable_status_date_is_the_unreadable_date_warning(meta: str) -> None:
    unit = adr(meta)
    assert unit.extra["status"] == "Accepted"
    assert unit.valid_from is None  # the ingestion's time, as for an unreadable Date: line
    [warning] = unit.extra["warnings"]
    assert warning.startswith(f"{UNREADABLE}: 0007-use-x.md: date '2023-02-30' ")


def test_a_future_status_date_is_kept_with_the_future_date_warning() -> None:
    unit = adr("## Status\n\nAccepted on 3023-03-05")
    assert unit.extra["status"] == "Accepted"
    assert day(unit) == "3023-03-05"
    assert unit.extra["warnings"] == [
        f"{FUTURE}: 0007-use-x.md: dated 3023-03-05, later than now: the decision is not in "
        "force until then"
    ]


@pytest.mark.parametrize(
    ("meta", "front", "status"),
    [
        ("## Status\n\nAccepted (#1484)", "", "Accepted (#1484)"),
        ("## Status\n\nAccepted (PR [#2897])", "", "Accepted (PR [#2897])"),
        ("## Status\n\nAccepted on 5 January 2023", "", "Accepted on 5 January 2023"),
        ("## Status\n\nProposed 2022-12-01, accepted", "", "Proposed 2022-12-01, accepted"),
        (
            "## Status\n\nAccepted after the 2023-01-05 review",
            "",
            "Accepted after the 2023-01-05 review",
        ),
    ],
    ids=["issue", "pr-link", "prose-date", "current-undated", "date-in-prose"],
)
def test_a_status_without_a_dated_status_form_is_kept_as_written(
    meta: str, front: str, status: str
) -> None:
    unit = adr(meta, front)
    assert unit.extra["status"] == status
    assert unit.valid_from is None
    assert unit.extra["warnings"] == []


@pytest.mark.parametrize(
    ("front", "date"),
    [
        ("---\nstatus: accepted 2023-01-05\n---\n", "2023-01-05"),
        ("---\nstatus: Accepted on 2023-01-05\ndate: 2022-12-01\n---\n", "2022-12-01"),
    ],
    ids=["undated-record", "front-matter-date-wins"],
)
def test_a_front_matter_status_with_a_date_is_split_as_a_status_line(front: str, date: str) -> None:
    """Left alone last session: `status: accepted 2023-01-05` kept its date in the status and
    left the record undated, where a `Status:` line with the same text was split."""
    unit = adr("", front)
    assert unit.extra["status"].casefold() == "accepted"
    assert day(unit) == date
    assert unit.extra["warnings"] == []


def test_a_superseded_by_line_s_date_is_no_status_date() -> None:
    unit = adr("## Status\n\nSuperseded by ADR-12 on 2023-01-05")
    assert unit.extra["status"] == "Superseded"
    assert unit.extra["status_history"] == ["Superseded by ADR-12 on 2023-01-05"]
    assert unit.extra["lifecycle"] == "superseded"
    assert unit.valid_from is None  # the date the record ended, not the decision's date
