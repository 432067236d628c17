"""ADR records a fresh user wrote (trial 22): an arc42 chapter holding one record, a rejected
record's reasons, titles written ``ADR n: ...``, numbered lists kept numbered.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.domain.ingestion.formats import parse, parse_document
from service.domain.ingestion.formats.adr_status_dates import split_status_date
from service.domain.ingestion.formats.markdown import parse_blocks
from service.domain.models import IngestUnit, StepKind, StepStatus

ARC42 = """# 9. Architecture Decisions

## 9.2 ADR-2: Cache lookups in memory

### Problem

Lookups hit the database on every request.

### Considerations

* An in-process LRU cache is simple but per node.
* A shared cache service adds a network hop.

### Decision

We cache lookups in an in-process LRU cache.

### Status

Accepted, 2022-04-09.

### Consequences

Nodes may serve stale lookups for a minute.
"""

REJECTED = """# ADR-012: Use a message broker between orders and stock

* Status: rejected
* Date: 2021-05-04

## Context

Orders must reach the stock service.

## Decision

Introduce a message broker between orders and stock.

## {heading}

Nobody can run a broker, and a database queue already delivers at this volume.
"""


def adr(content: str, name: str) -> IngestUnit:
    (unit,) = parse(content, "adr", name)
    return unit


def steps_of(unit: IngestUnit) -> list[tuple[str, str, str]]:
    assert unit.trace is not None
    return [(s.kind, s.status, s.content) for s in unit.trace.steps]


# --- 1. an arc42 chapter ------------------------------------------------------------------------


def test_an_arc42_records_adr_heading_titles_it_not_the_chapter() -> None:
    unit = adr(ARC42, "0002-cache-lookups.md")
    assert unit.title == "ADR 2: Cache lookups in memory"
    assert unit.trace is not None and unit.trace.task == unit.title
    assert unit.trace.produced is not None
    assert unit.trace.produced.content.startswith("ADR 2: Cache lookups in memory: We cache")


def test_an_arc42_chapter_is_detected_as_an_adr_with_its_title() -> None:
    parsed = parse_document(ARC42, "auto", "0002-cache-lookups.md")
    assert parsed.format == "adr"
    assert "an 'ADR n' title" in parsed.signals


def test_a_status_line_ending_in_a_full_stop_still_dates_the_record() -> None:
    unit = adr(ARC42, "0002-cache-lookups.md")
    assert unit.extra["status"] == "Accepted"
    assert unit.valid_from == datetime(2022, 4, 9, tzinfo=UTC)
    dated = split_status_date("Accepted, 2023-09-02.")
    assert dated is not None and (dated.status, dated.date) == ("Accepted", "2023-09-02")


def test_a_considerations_section_lists_the_options() -> None:
    unit = adr(ARC42, "0002-cache-lookups.md")
    assert unit.extra["options"] == [
        "An in-process LRU cache is simple but per node.",
        "A shared cache service adds a network hop.",
    ]
    hypotheses = [c for k, st, c in steps_of(unit) if st == StepStatus.HYPOTHESIS]
    assert hypotheses == unit.extra["options"]
    assert unit.extra["unplaced_sections"] == [] and unit.extra["warnings"] == []


def test_a_chapter_of_several_records_keeps_its_chapter_title() -> None:
    """Two ``ADR n`` headings: the chapter is no one record, its title is not a record's."""
    two = ARC42.replace("### Consequences", "## 9.3 ADR-3: Log lookups\n\n### Consequences")
    assert adr(two, "0002-decisions.md").title == "ADR 2: 9. Architecture Decisions"


def test_an_adr_heading_under_a_section_with_a_role_is_no_title() -> None:
    content = (
        "# Cache lookups\n\n## Context\n\nSlow.\n\n## Decision\n\nWe cache.\n\n"
        "## Related decisions\n\n### ADR-3: Log lookups\n\nSee there.\n"
    )
    assert adr(content, "0002-cache-lookups.md").title == "ADR 2: Cache lookups"


def test_an_unplaced_section_is_named_by_its_warning() -> None:
    content = (
        "# Cache\n\n## Context\n\nSlow.\n\n## Decision\n\nWe cache.\n\n## Team notes\n\nAsk Bo.\n"
    )
    unit = adr(content, "0002-cache.md")
    assert unit.extra["unplaced_sections"] == ["Team notes"]
    [warning] = unit.extra["warnings"]
    assert warning.startswith("adr.unplaced_section: section 'Team notes' has no known role")


# --- 2. a rejected record's reasons -------------------------------------------------------------


@pytest.mark.parametrize("heading", ["Rationale for rejection", "Reasons for rejection"])
def test_a_rejected_records_reasons_are_the_step_before_its_conclusion(heading: str) -> None:
    unit = adr(REJECTED.format(heading=heading), "0012-message-broker.md")
    assert unit.extra["lifecycle"] == "rejected"
    *_, (kind, _, reason), (last, _, conclusion) = steps_of(unit)
    assert kind == StepKind.THOUGHT
    assert reason == (
        f"{heading}: Nobody can run a broker, and a database queue already delivers at this volume."
    )
    assert (last, conclusion) == (
        StepKind.CONCLUSION,
        "Introduce a message broker between orders and stock.",
    )
    assert unit.extra["unplaced_sections"] == [] and unit.extra["warnings"] == []
    assert not any(o.startswith(heading) for o in unit.observations)


# --- 3. titles and numbered lists ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "name", "expected"),
    [
        ("ADR-006: Use Kafka", "0006-use-kafka.md", "ADR 6: Use Kafka"),
        ("ADR006 - Use Kafka", "0006-use-kafka.md", "ADR 6: Use Kafka"),
        ("6. Use Kafka", "0006-use-kafka.md", "ADR 6: Use Kafka"),
        ("0006 - Use Kafka", "use-kafka.md", "ADR 6: Use Kafka"),
        ("Use Kafka", "0006-use-kafka.md", "ADR 6: Use Kafka"),
        # kept: the number elsewhere, another number first, no record number
        ("ADR 114: Partly Undo ADR 109", "adr-114-undo.md", "ADR 114: Partly Undo ADR 109"),
        ("9. Use Kafka", "0006-use-kafka.md", "ADR 6: 9. Use Kafka"),
        ("ADR-006: Use Kafka", "20210504-use-kafka.md", "ADR-006: Use Kafka"),
        ("RFC 6: Use Kafka", "0006-use-kafka.md", "RFC 6: Use Kafka"),
    ],
)
def test_a_numbered_title_is_written_adr_n(title: str, name: str, expected: str) -> None:
    content = f"# {title}\n\n## Context\n\nOrders.\n\n## Decision\n\nWe use Kafka.\n"
    assert adr(content, name).title == expected


def test_a_numbered_decision_list_keeps_its_numbers() -> None:
    content = (
        "# Cache\n\n## Context\n\nSlow.\n\n## Decision\n\n"
        "1. Add a cache.\n2. Expire entries after a minute.\n\n3) Warm it on start.\n"
    )
    unit = adr(content, "0002-cache.md")
    *_, (_, _, conclusion) = steps_of(unit)
    assert conclusion == "1. Add a cache.\n2. Expire entries after a minute.\n3) Warm it on start."


def test_an_ordered_list_block_is_numbered_from_its_start() -> None:
    [ordered, bullets] = parse_blocks("4. four\n5. five\n\n* a\n* b\n")
    assert (ordered.text, ordered.items) == ("4. four\n5. five", ("four", "five"))
    assert (bullets.text, bullets.items) == ("- a\n- b", ("a", "b"))
