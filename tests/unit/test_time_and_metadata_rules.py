"""Rules found by a fresh-user trial, without Neo4j: time arithmetic at the ends of the range a
`datetime` holds, and ADR metadata on consecutive `Key: value` lines (API behaviour:
tests/api/test_ingest_time_and_metadata.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from service.domain.ingestion.formats import FormatError, parse, parse_document
from service.domain.ingestion.formats.adr_sections import key_values, read_document
from service.domain.ingestion.formats.common import parse_time
from service.domain.memories import shifted
from service.domain.memories.keyed import after_key_values
from service.errors import InvalidInputError
from service.graph.records import MemoryRecord

LAST = datetime.max.replace(tzinfo=UTC)
FIRST = datetime.min.replace(tzinfo=UTC)

# --- time arithmetic ---------------------------------------------------------------------------


def test_shifted_refuses_to_move_past_the_ends_with_an_input_error() -> None:
    tick = timedelta(microseconds=1)
    assert shifted(LAST - tick, tick, what="valid_from") == LAST
    with pytest.raises(
        InvalidInputError, match=r"valid_from: 9999-12-31T23:59:59\.999999Z is too"
    ) as e:
        shifted(LAST, tick, what="valid_from")
    assert e.value.code == "input.invalid"  # a 422
    with pytest.raises(InvalidInputError, match="start of time: 2 microseconds before it"):
        shifted(FIRST, -2 * tick, what="as_of")


def test_a_keyed_write_after_a_value_begun_the_last_instant_is_an_input_error() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    value = MemoryRecord(
        uid="u", namespace="ns", memory_id="m", version=1, kind="fact", content="c",
        valid_from=now, system_from=LAST,
    )  # fmt: skip
    with pytest.raises(InvalidInputError, match=r"system_from: 9999-12-31T23:59:59\.999999Z"):
        after_key_values({"valid_from": now}, now, [value])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("9999-12-31T23:59:59-05:00", None),  # year 10000 in UTC
        ("0001-01-01T00:00:00+05:00", None),  # year 0 in UTC
        (datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))), None),  # from YAML
        ("9999-12-31T23:59:59.999999Z", LAST),
        ("2023-05-01T12:00:00+02:00", datetime(2023, 5, 1, 10, tzinfo=UTC)),
        (
            datetime(2023, 5, 1, 12, tzinfo=timezone(timedelta(hours=2))),
            datetime(2023, 5, 1, 10, tzinfo=UTC),
        ),
    ],
)
def test_parse_time_gives_utc_or_none_never_an_overflow(
    value: object, expected: datetime | None
) -> None:
    parsed = parse_time(value)
    assert parsed == expected
    if parsed is not None:
        assert parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize("status", ["rejected", "superseded by ADR-9", "Deprecated"])
def test_an_adr_that_ended_dated_the_last_instant_is_a_format_error(status: str) -> None:
    content = (
        f"---\nstatus: {status}\ndate: 9999-12-31T23:59:59.999999Z\n---\n# ADR-4242: Max\n\n"
        "## Decision\nWe will use the max clock.\n"
    )
    with pytest.raises(FormatError, match=r"dated 9999-12-31T23:59:59\.999999Z, the last"):
        parse(content, "adr", "adr-4242.md")
    (unit,) = parse(content.replace(status, "accepted"), "adr", "adr-4242.md")
    assert unit.valid_from == LAST


# --- ADR metadata lines ------------------------------------------------------------------------

BODY = "\n\n## Context\nQueues.\n\n## Decision\nWe will use RabbitMQ.\n"


@pytest.mark.parametrize(
    "meta",
    [
        "Date: 2023-05-01\nStatus: rejected",
        "Status: rejected\nDate: 2023-05-01",
        "Date: 2023-05-01\n\nStatus: rejected",
        "- Date: 2023-05-01\n- Status: rejected",
        "**Status:** rejected\n**Date:** 2023-05-01",
        "Status: rejected  \nDate: 2023-05-01",  # a hard line break
        "| Key | Value |\n|---|---|\n| Status | rejected |\n| Date | 2023-05-01 |",
    ],
    ids=["date-first", "status-first", "blank-line", "bullets", "bold", "hard-break", "table"],
)
def test_each_metadata_line_is_its_own_key(meta: str) -> None:
    (unit,) = parse(f"# ADR-7001: Use rabbit\n\n{meta}{BODY}", "adr", "adr-7001.md")
    assert unit.extra["status"] == "rejected"
    assert unit.extra["lifecycle"] == "rejected"
    assert unit.valid_from == datetime(2023, 5, 1, tzinfo=UTC)
    assert unit.observations == ("Queues.",)  # the metadata is no observation


def test_the_front_matter_layout_reads_the_same() -> None:
    content = "---\nstatus: rejected\ndate: 2023-05-01\n---\n# ADR-7001: Use rabbit" + BODY
    (unit,) = parse(content, "adr", "adr-7001.md")
    assert (unit.extra["status"], unit.valid_from) == ("rejected", datetime(2023, 5, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    "front",
    ["status:\trejected\ndate: 2023-05-01", "status: rejected\ndate:\t2023-05-01\ntags:\n\t- mq"],
)
def test_tabs_in_front_matter_read_as_spaces(front: str) -> None:
    """YAML refuses a tab after `status:` or as indentation; the whole ADR was plain text."""
    content = f"---\n{front}\n---\n# ADR-7001: Use rabbit" + BODY
    assert parse_document(content, "auto", "adr-7001.md").format == "adr"
    (unit,) = parse(content, "adr", "adr-7001.md")
    assert (unit.extra["status"], unit.valid_from) == ("rejected", datetime(2023, 5, 1, tzinfo=UTC))


def test_a_line_that_is_no_key_continues_the_value_above() -> None:
    meta = (
        "Status: superseded by\nADR-7002 (see https://example.org/a)\nDate: 2023-05-01\n"
        "Deciders:\nalice, bob"
    )
    doc = read_document(f"# ADR-7001: Use rabbit\n\n{meta}{BODY}")
    assert key_values(doc.preamble) == {
        "status": "superseded by ADR-7002 (see https://example.org/a)",
        "date": "2023-05-01",
        "deciders": "alice, bob",
    }
    (unit,) = parse(f"# ADR-7001: Use rabbit\n\n{meta}{BODY}", "adr", "adr-7001.md")
    assert unit.superseded_by == ("7002",)  # not also "2023", the date on the next line
    assert unit.valid_from == datetime(2023, 5, 1, tzinfo=UTC)


def test_a_paragraph_that_begins_as_prose_is_no_metadata() -> None:
    prose = "This record was discussed at length.\nNote: see the minutes"
    (unit,) = parse(f"# ADR-7001: Use rabbit\n\n{prose}{BODY}", "adr", "adr-7001.md")
    assert unit.observations[0] == "This record was discussed at length. Note: see the minutes"
    assert unit.extra["status"] == ""


@pytest.mark.parametrize("date", ["2023-02-30", "2023-13-45", "0000-01-01"])
def test_a_front_matter_date_no_calendar_has_is_an_unreadable_date(date: str) -> None:
    """PyYAML raised while building such a timestamp: a 500 (trial 8); now as a `Date:` line."""
    adr = (
        f"---\nstatus: accepted\ndate: {date}\n---\n# ADR 9: Use queues\n\n"
        "## Context\nWe need async work.\n\n## Decision\nWe will use RabbitMQ.\n"
    )
    (unit,) = parse(adr, "adr", "0009-queues.md")
    assert unit.valid_from is None
    assert unit.title.startswith("ADR 9")
    assert read_document(adr).meta["date"] == date
