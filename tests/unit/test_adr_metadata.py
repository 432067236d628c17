"""ADR metadata as the parser reads it: key/value tables, Status sections, the ADR's number
from its title, unreadable and future dates (API behaviour: tests/api/test_adr_title_number_and_dates.py).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.domain.ingestion.formats import parse
from service.domain.ingestion.formats.adr_meta import adr_date
from service.domain.ingestion.formats.adr_sections import key_values
from service.domain.ingestion.formats.common import parse_time
from service.domain.ingestion.formats.markdown import parse_blocks
from service.domain.models import IngestUnit

#: An ADR around its metadata (`{meta}`: a preamble, or a Status section with its heading).
RECORD = (
    "# {title}\n\n{meta}\n\n## Context\n\nSessions are slow.\n\n"
    "## Decision\n\nWe cache sessions in Redis.\n"
)


def adr(
    meta: str, name: str = "0007-cache-sessions.md", title: str = "Cache sessions"
) -> IngestUnit:
    (unit,) = parse(RECORD.format(title=title, meta=meta), "adr", name)
    return unit


# --- 1. key/value tables ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table",
    [
        "| Status | Accepted |\n|---|---|\n| Date | 2023-01-05 |",
        "| Status | Accepted |\n| Date | 2023-01-05 |",
        "| **Status** | Accepted |\n| :--- | ---: |\n| **Date** | 2023-01-05 |",
        "| **Status:** | Accepted |\n|---|---|\n| Date: | 2023-01-05 |",
    ],
    ids=["separator", "no-separator", "bold-aligned", "colons"],
)
def test_a_two_by_two_key_value_table_keeps_its_first_key(table: str) -> None:
    unit = adr(table)
    assert unit.extra["status"] == "Accepted"
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2023-01-05"
    assert unit.observations == ("Sessions are slow.",)  # the table is metadata, not prose


def test_a_key_value_table_whose_header_is_a_known_pair_yields_it() -> None:
    blocks = parse_blocks("| Deciders | Ana, Bo |\n|---|---|\n| Status | Rejected |\n")
    assert key_values(blocks) == {"deciders": "Ana, Bo", "status": "Rejected"}


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        (  # a header row of keys over one row of values (apalache)
            "| authors | last revised |\n| --- | ---: |\n| Shon Feder | 2021-12-05 |",
            {"authors": "Shon Feder", "last revised": "2021-12-05"},
        ),
        (
            "| Status | Date |\n|---|---|\n| Accepted | 2023-01-05 |",
            {"status": "Accepted", "date": "2023-01-05"},
        ),
        (
            "| Status | Date | Deciders |\n|---|---|---|\n| Proposed | 2023-01-05 | Ana |",
            {"status": "Proposed", "date": "2023-01-05", "deciders": "Ana"},
        ),
    ],
    ids=["authors-over-values", "status-date-over-values", "three-columns"],
)
def test_a_header_of_keys_over_a_row_of_values_is_still_read_so(
    table: str, expected: dict[str, str]
) -> None:
    assert key_values(parse_blocks(table)) == expected


def test_a_data_table_in_the_preamble_is_no_metadata() -> None:
    blocks = parse_blocks("| Library | Stars |\n|---|---|\n| config | 5k |\n| profig | 23 |\n")
    assert "status" not in key_values(blocks)


# --- 2. Status sections ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("section", "status", "history", "supersedes", "date"),
    [
        ("Accepted\n\nSupersedes ADR-0003", "Accepted", ["Supersedes ADR-0003"], ("3",), None),
        ("Accepted\nSupersedes ADR-0003", "Accepted", ["Supersedes ADR-0003"], ("3",), None),
        ("Proposed\nDate: 2020-01-01", "Proposed", [], (), "2020-01-01"),
        ("Status: Accepted\nDate: 2020-02-02", "Accepted", [], (), "2020-02-02"),
        ("- Accepted\n- Date: 2020-03-03", "Accepted", [], (), "2020-03-03"),
        ("Accepted\n2020-04-04", "Accepted", [], (), "2020-04-04"),
        (
            "Accepted\nDiscussed in the weekly sync.",
            "Accepted",
            ["Discussed in the weekly sync."],
            (),
            None,
        ),
        ("Accepted (PR [#2897])", "Accepted (PR [#2897])", [], (), None),
    ],
    ids=[
        "supersedes-paragraph",
        "supersedes-line",
        "date-line",
        "status-key",
        "list",
        "bare-date",
        "note",
        "one-line",
    ],
)
def test_a_status_section_gives_its_first_status_line_and_reads_the_rest(
    section: str, status: str, history: list[str], supersedes: tuple[str, ...], date: str | None
) -> None:
    unit = adr(f"## Status\n\n{section}")
    assert unit.extra["status"] == status
    assert unit.extra["status_history"] == history
    assert unit.supersedes == supersedes
    got = unit.valid_from.date().isoformat() if unit.valid_from is not None else None
    assert got == date


def test_a_status_section_superseded_by_line_ends_the_decision() -> None:
    unit = adr("## Status\n\nSuperseded by [ADR-0009](0009-x.md)\nDate: 2020-01-01")
    assert unit.extra["status"] == "Superseded"
    assert unit.extra["status_history"] == ["Superseded by ADR-0009"]
    assert unit.superseded_by == ("9",)
    assert unit.extra["lifecycle"] == "superseded"
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2020-01-01"


def test_a_preamble_date_wins_over_a_status_section_date() -> None:
    unit = adr("Date: 2021-01-01\n\n## Status\n\nAccepted\nDate: 2020-01-01")
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2021-01-01"


# --- 3. the ADR's number from its title -----------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "key"),
    [
        ("ADR 7: Use Postgres", "7"),
        ("ADR-0007: Use Postgres", "7"),
        ("adr7 Use Postgres", "7"),
        ("7. Use Postgres", "7"),
        ("0007 - Use Postgres", "7"),
        ("RFC 7: Use Postgres", "7"),
        ("Decision 7: Use Postgres", "7"),
        ("Use Postgres", "use-postgres"),
        ("3 replicas for Kafka", "use-postgres"),
        ("2FA for admins", "use-postgres"),
        ("2023-01-05 Use Postgres", "use-postgres"),
    ],
)
def test_the_title_number_keys_an_adr_whose_file_has_none(title: str, key: str) -> None:
    unit = adr("Status: Accepted", name="use-postgres.md", title=title)
    assert unit.extra["adr_key"] == key
    assert unit.name == unit.key == "use-postgres"  # the file stays the unit's name


def test_the_file_number_wins_over_the_title_number() -> None:
    unit = adr("Status: Accepted", name="0012-use-postgres.md", title="ADR 7: Use Postgres")
    assert unit.extra["adr_key"] == "12"


def test_an_adr_does_not_supersede_its_own_title_number() -> None:
    unit = adr("Status: Accepted", name="use-postgres.md", title="ADR 7: Supersede ADR 3")
    assert unit.extra["adr_key"] == "7"
    assert "7" not in unit.supersedes


# --- 4. unreadable dates --------------------------------------------------------------------------

WARNING = "ingest.adr_date_unreadable"


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ("---\ndate: 2023-02-30\n---\n" + RECORD, "2023-02-30"),
        ("---\ndate: next tuesday\n---\n" + RECORD, "next tuesday"),
        (RECORD.replace("{meta}", "Date: May the 4th\n\nStatus: Accepted"), "May the 4th"),
        (RECORD.replace("{meta}", "Date: 9999-12-31T23:59:59-05:00"), "9999-12-31T23:59:59-05:00"),
        (RECORD.replace("{meta}", "## Status\n\nAccepted\nDate: 2023-13-01"), "2023-13-01"),
    ],
    ids=["no-such-day", "front-matter-prose", "line-prose", "out-of-range", "status-section"],
)
def test_an_unreadable_date_is_a_warning_naming_file_and_text(content: str, text: str) -> None:
    content = content.replace("{title}", "Cache sessions").replace("{meta}", "Status: Accepted")
    (unit,) = parse(content, "adr", "docs/0007-cache-sessions.md")
    assert unit.valid_from is None  # the ingestion's time, as before
    [warning] = [w for w in unit.extra["warnings"] if w.startswith(f"{WARNING}: ")]
    assert "0007-cache-sessions.md" in warning
    assert repr(text) in warning


@pytest.mark.parametrize(
    "meta",
    ["Status: Accepted", "Date: 2023-01-05", "Date:\n\nStatus: Accepted"],
    ids=["no-date", "readable", "empty"],
)
def test_a_readable_or_missing_date_gives_no_warning(meta: str) -> None:
    assert not any(w.startswith(WARNING) for w in adr(meta).extra["warnings"])


def test_an_unreadable_date_beside_a_readable_one_takes_the_readable_one() -> None:
    unit = adr("Date: TBD\nLast revised: 2022-08-15")
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2022-08-15"
    assert not any(w.startswith(WARNING) for w in unit.extra["warnings"])


# --- 5. dates in the future -----------------------------------------------------------------------

FUTURE = "ingest.adr_date_in_future"


@pytest.mark.parametrize(
    ("content", "shown"),
    [
        (RECORD.replace("{meta}", "Status: Accepted\nDate: 3023-03-05"), "3023-03-05"),
        ("---\ndate: 3023-03-05\n---\n" + RECORD.replace("{meta}", ""), "3023-03-05"),
        (RECORD.replace("{meta}", "Date: 3023-03-05T10:30:00+02:00"), "3023-03-05T08:30:00Z"),
        (RECORD.replace("{meta}", "## Status\n\nAccepted\nDate: 3023-03-05"), "3023-03-05"),
    ],
    ids=["line", "front-matter", "time", "status-section"],
)
def test_a_future_date_is_kept_with_a_warning_naming_file_and_date(
    content: str, shown: str
) -> None:
    (unit,) = parse(content.replace("{title}", "Cache sessions"), "adr", "docs/0007-x.md")
    assert unit.valid_from is not None and unit.valid_from.year == 3023  # kept: valid time
    assert [w for w in unit.extra["warnings"] if w.startswith(FUTURE)] == [
        f"{FUTURE}: docs/0007-x.md: dated {shown}, later than now: the decision is not in force "
        "until then"
    ]


@pytest.mark.parametrize(
    ("date", "warned"),
    [
        ("2023-05-01", False),  # today, written at UTC midnight
        ("2023-05-02", False),  # tomorrow's date: today east of UTC (up to UTC+14)
        ("2023-05-01T23:00:00Z", False),
        ("2023-05-02T15:00:00Z", True),  # past what any time zone calls today
        ("2023-05-03", True),
    ],
)
def test_a_date_is_in_the_future_only_past_every_time_zone_s_today(date: str, warned: bool) -> None:
    now = datetime(2023, 5, 1, 12, 0, tzinfo=UTC)
    valid_from, warning = adr_date({}, {"date": date}, "0007-x.md", now=now)
    assert valid_from == parse_time(date)
    assert (warning is not None and warning.startswith(f"{FUTURE}: 0007-x.md: ")) is warned


def test_a_date_in_the_past_or_none_gives_no_future_warning() -> None:
    assert adr("Date: 2023-01-05").extra["warnings"] == []
    assert adr("Status: Accepted").extra["warnings"] == []
