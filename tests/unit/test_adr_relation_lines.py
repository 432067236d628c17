"""A relation line (``Supersedes ADR-59``) among ADR metadata lines: it ends the value above it
and is read as a relation; in a Status section it is no status (rules: `adr_sections.key_values`,
`adr_meta.adr_status`; the other metadata rules: tests/unit/test_adr_metadata.py).
"""

from __future__ import annotations

import pytest

from service.domain.ingestion.formats import parse
from service.domain.ingestion.formats.adr_sections import key_line, key_values, relation_line
from service.domain.ingestion.formats.markdown import parse_blocks
from service.domain.models import IngestUnit

RECORD = "# ADR 60: Use X\n\n{meta}\n\n## Decision\n\nWe use X60.\n"


def adr(meta: str) -> IngestUnit:
    (unit,) = parse(RECORD.format(meta=meta), "adr", "0060-use-x.md")
    return unit


def test_a_relation_line_after_a_status_line_is_not_part_of_the_status() -> None:
    """The trial's record: title, status and relation on consecutive lines."""
    content = "# ADR 60: Use X\nStatus: Accepted\nSupersedes ADR-59\n\n## Decision\nWe use X60."
    (unit,) = parse(content, "adr", "0060-use-x.md")
    assert unit.extra["status"] == "Accepted"
    assert unit.supersedes == ("59",)
    assert unit.extra["lifecycle"] is None


def test_a_relation_line_after_a_date_line_leaves_the_date_readable() -> None:
    unit = adr("Status: Accepted\nDate: 2023-05-01\nSupersedes ADR-59")
    assert unit.valid_from is not None and unit.valid_from.date().isoformat() == "2023-05-01"
    assert unit.extra["warnings"] == []
    assert unit.extra["status"] == "Accepted"
    assert unit.supersedes == ("59",)


@pytest.mark.parametrize(
    ("meta", "status", "relation", "refs"),
    [
        ("Status: Accepted\nSupersedes ADR-59", "Accepted", "supersedes", ["59"]),
        ("Status: Superseded\nSuperseded by ADR-61", "Superseded", "superseded_by", ["61"]),
        ("Status: Accepted\nReplaces ADR-3", "Accepted", "supersedes", ["3"]),
        ("Status: Accepted\nAmends ADR-2", "Accepted", "amends", ["2"]),
        ("Status: Accepted\n**Supersedes** [ADR-59](0059-x.md)", "Accepted", "supersedes", ["59"]),
        ("Status: Accepted\nSupersedes ADR-59 and\nADR-58", "Accepted", "supersedes", ["59", "58"]),
        (
            "Status: Accepted\nSupersedes ADR-59\nDeciders: Ana",
            "Accepted",
            "supersedes",
            ["59"],
        ),
    ],
    ids=["supersedes", "superseded-by", "replaces", "amends", "emphasis-link", "wrapped", "key"],
)
def test_a_relation_line_ends_the_value_above_and_is_read_as_a_relation(
    meta: str, status: str, relation: str, refs: list[str]
) -> None:
    unit = adr(meta)
    assert unit.extra["status"] == status
    got = {
        "supersedes": list(unit.supersedes),
        "superseded_by": list(unit.superseded_by),
        "amends": unit.extra["amends"],
    }
    assert got[relation] == refs
    assert unit.observations == ()  # the metadata paragraph stays metadata


def test_key_values_keys_a_relation_line_by_its_phrase() -> None:
    blocks = parse_blocks("Status: Accepted\nDate: 2023-05-01\nSuperseded by ADR-61\nand ADR-62\n")
    assert key_values(blocks) == {
        "status": "Accepted",
        "date": "2023-05-01",
        "superseded by": "ADR-61 and ADR-62",
    }


def test_a_line_that_is_no_relation_still_continues_the_value_above() -> None:
    blocks = parse_blocks("Status: Accepted\nafter review\nDeciders: Ana,\nBo, extends to Cy\n")
    assert key_values(blocks) == {
        "status": "Accepted after review",
        "deciders": "Ana, Bo, extends to Cy",
    }


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Supersedes ADR-59", ("supersedes", "ADR-59")),
        ("superseded by [ADR-61](0061-y.md)", ("superseded by", "[ADR-61](0061-y.md)")),
        ("- **Replaces** ADR-3", ("replaces", "ADR-3")),
        ("Partly undoes ADR-4", ("partly undoes", "ADR-4")),
        ("Accepted, supersedes ADR-59", None),
        ("Supersedes", None),
        ("Status: Accepted", None),
    ],
)
def test_relation_line_reads_a_line_that_starts_with_a_relation_phrase(
    line: str, expected: tuple[str, str] | None
) -> None:
    assert relation_line(line) == expected


@pytest.mark.parametrize(
    ("section", "status", "history"),
    [
        ("Supersedes ADR-59\nAccepted", "Accepted", ["Supersedes ADR-59"]),
        ("Supersedes ADR-59\n\nAccepted", "Accepted", ["Supersedes ADR-59"]),
        ("- Supersedes ADR-59\n- Accepted", "Accepted", ["Supersedes ADR-59"]),
        ("Supersedes: ADR-59\nAccepted", "Accepted", ["Supersedes: ADR-59"]),
        ("Supersedes ADR-59", "Supersedes ADR-59", []),  # only relations: the first
    ],
    ids=["line", "paragraphs", "list", "key", "only-relations"],
)
def test_a_status_section_status_is_its_first_line_that_is_no_relation(
    section: str, status: str, history: list[str]
) -> None:
    unit = adr(f"## Status\n\n{section}")
    assert unit.extra["status"] == status
    assert unit.extra["status_history"] == history
    assert unit.supersedes == ("59",)


def test_a_status_section_superseded_by_line_gives_the_status() -> None:
    """It says the record ended: a status ``Superseded``, not only a link (`lifecycle` reads it)."""
    unit = adr("## Status\n\nSuperseded by ADR-61\nAccepted")
    assert unit.extra["status"] == "Superseded"
    assert unit.extra["status_history"] == ["Superseded by ADR-61", "Accepted"]
    assert unit.superseded_by == ("61",)
    assert unit.extra["lifecycle"] == "superseded"


# --- a relation line is a relation wherever a metadata line may be --------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Supersedes ADR-59 (see: x)", ("supersedes", "ADR-59 (see: x)")),
        ("Superseded by ADR-61, see: the minutes", ("superseded by", "ADR-61, see: the minutes")),
        ("**Amends** ADR-2: the date format", ("amends", "ADR-2: the date format")),
        ("Supersedes: ADR-59", ("supersedes", "ADR-59")),  # the phrase is the key
        ("Status: Accepted", ("status", "Accepted")),
        ("Accepted, supersedes ADR-59", None),
    ],
)
def test_key_line_keys_a_relation_line_by_its_phrase_not_by_its_text_up_to_a_colon(
    line: str, expected: tuple[str, str] | None
) -> None:
    assert key_line(line) == expected


@pytest.mark.parametrize(
    ("meta", "relation"),
    [
        ("Status: Accepted\nSupersedes ADR-59 (see: x)", "ADR-59 (see: x)"),
        ("Supersedes ADR-59 (see: x)\nStatus: Accepted", "ADR-59 (see: x)"),
        ("- Status: Accepted\n- Supersedes ADR-59 (see: x)", "ADR-59 (see: x)"),
        ("- Status: Accepted\n- Supersedes ADR-59", "ADR-59"),  # was lost: no key, no text
    ],
    ids=["paragraph", "paragraph-first", "list", "list-no-colon"],
)
def test_a_relation_line_with_a_colon_in_its_text_is_a_relation(meta: str, relation: str) -> None:
    assert key_values(parse_blocks(meta)) == {"status": "Accepted", "supersedes": relation}
    unit = adr(meta)
    assert unit.extra["status"] == "Accepted"
    assert unit.supersedes == ("59",)
    assert unit.observations == ()


# --- white space between a relation phrase's words ------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("superseded  by ADR-12", ("superseded by", "ADR-12")),
        ("Superseded\tby ADR-12", ("superseded by", "ADR-12")),
        ("SUPERSEDED \t BY [ADR-12](0012-x.md)", ("superseded by", "[ADR-12](0012-x.md)")),
        ("Replaced   by ADR-12", ("replaced by", "ADR-12")),
        ("Partly  undoes ADR-4", ("partly undoes", "ADR-4")),
        ("Builds\ton ADR-3", ("builds on", "ADR-3")),
        ("amended  by ADR-5", ("amended by", "ADR-5")),
    ],
)
def test_a_relation_phrase_takes_any_white_space_between_its_words(
    line: str, expected: tuple[str, str]
) -> None:
    assert relation_line(line) == expected


@pytest.mark.parametrize(
    ("meta", "relation", "refs"),
    [
        ("Status: Superseded\nsuperseded  by ADR-12", "superseded_by", ["12"]),
        ("Status: Accepted\nReplaces\tADR-3", "supersedes", ["3"]),
        ("Status: Accepted\nbuilds  on ADR-3", "amends", ["3"]),
        ("## Status\n\nSuperseded\nsuperseded \t by ADR-12", "superseded_by", ["12"]),
        ("## Status\n\nAccepted; superseded  by ADR-12", "superseded_by", ["12"]),
        ("Status: superseded  by ADR-12", "superseded_by", ["12"]),
    ],
    ids=["meta-line", "tab", "amends", "status-section", "clause", "status-value"],
)
def test_a_relation_with_white_space_runs_is_read_as_a_relation(
    meta: str, relation: str, refs: list[str]
) -> None:
    unit = adr(meta)
    got = {
        "supersedes": list(unit.supersedes),
        "superseded_by": list(unit.superseded_by),
        "amends": unit.extra["amends"],
    }
    assert got[relation] == refs


# --- a preamble paragraph that opens with a relation line -----------------------------------------


@pytest.mark.parametrize(
    ("meta", "same_as"),
    [
        ("Superseded by ADR-12\nDate: 2020-01-01", "Date: 2020-01-01\nSuperseded by ADR-12"),
        ("Status: Accepted\n\nSupersedes ADR-59", "Status: Accepted\nSupersedes ADR-59"),
        (
            "**Supersedes** [ADR-59](0059-x.md)\n\nStatus: Accepted",
            "Status: Accepted\nSupersedes ADR-59",
        ),
        (
            "Supersedes ADR-59 and\nADR-58\n\nStatus: Accepted",
            "Status: Accepted\nSupersedes ADR-59 and\nADR-58",
        ),
    ],
    ids=["relation-then-date", "own-paragraph", "link", "wrapped"],
)
def test_a_preamble_paragraph_opening_with_a_relation_line_is_metadata(
    meta: str, same_as: str
) -> None:
    unit, metadata_block = adr(meta), adr(same_as)
    assert unit.observations == ()  # metadata, not prose
    assert (unit.supersedes, unit.superseded_by) == (
        metadata_block.supersedes,
        metadata_block.superseded_by,
    )
    assert unit.valid_from == metadata_block.valid_from
    assert unit.extra["status"] == metadata_block.extra["status"]
    assert unit.extra["lifecycle"] == metadata_block.extra["lifecycle"]


@pytest.mark.parametrize(
    "text",
    [
        "Replaces the nightly cron job with a queue that retries failed exports.",
        "Extends our logging so that every request carries its trace id.",
    ],
)
def test_a_preamble_paragraph_opening_with_a_relation_word_but_no_record_stays_prose(
    text: str,
) -> None:
    unit = adr(text)
    assert unit.observations == (text,)
    assert unit.supersedes == () and unit.extra.get("amends", []) == []


def test_a_preamble_paragraph_naming_a_relation_later_stays_prose() -> None:
    unit = adr("This record supersedes ADR-59 after a long review.")
    assert unit.observations == ("This record supersedes ADR-59 after a long review.",)
    assert unit.supersedes == ("59",)


@pytest.mark.parametrize(
    "line", ["Superseded  by: ADR-61", "Superseded\tby: ADR-61"], ids=["spaces", "tab"]
)
def test_a_relation_key_with_white_space_runs_is_a_status_line_as_with_one_space(line: str) -> None:
    unit = adr(f"## Status\n\nAccepted\n{line}")
    assert unit.extra["status"] == "Accepted"
    assert unit.extra["status_history"] == [line]  # as "Superseded by: ADR-61" is
    assert unit.superseded_by == ("61",)


@pytest.mark.parametrize(
    "line",
    ["Superseded by ADR-12 on 2023-01-05", "Superseded by ADR-12 (2023-01-05T10:00:00Z)"],
)
def test_a_date_after_a_relation_names_no_record(line: str) -> None:
    """Helper review: the year of "Superseded by ADR-12 on 2023-01-05" was read as ADR 2023."""
    unit = adr(f"Status: Accepted\n{line}")
    assert unit.superseded_by == ("12",)
