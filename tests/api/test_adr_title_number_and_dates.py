"""ADR ingestion end to end: an ADR numbered only in its title is found by the ADR that
supersedes it, and an unreadable or future date is reported (parser rules:
tests/unit/test_adr_metadata.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Tenant

OLDER = (
    "# {title}\n\nStatus: Accepted\n\nDate: 2021-03-01\n\n## Context\n\nWe need a database.\n\n"
    "## Decision\n\nWe will use Postgres for every service.\n"
)
NEWER = (
    "# ADR 9: Use CockroachDB\n\nStatus: Accepted\n\nDate: 2022-06-01\n\nSupersedes ADR-0007\n\n"
    "## Context\n\nOne Postgres no longer holds our writes.\n\n"
    "## Decision\n\nWe will use CockroachDB for every service.\n"
)


def ingest(t: Tenant, content: str, name: str) -> dict[str, Any]:
    r = t.post("/v1/ingest", json={"format": "adr", "source_name": name, "content": content})
    assert r.status_code in (200, 201), r.text
    return r.json()  # type: ignore[no-any-return]


def unit_warnings(body: dict[str, Any], code: str) -> list[str]:
    """The one unit's warnings with `code` (``"<code>: <detail>"``), also listed for the document."""
    [unit] = body["units"]
    assert [w["unit"] for w in body["warnings"] if w["code"].startswith(code)] == [unit["key"]]
    return [w for w in unit["warnings"] if w.startswith(f"{code}: ")]


def decision_of(t: Tenant, body: dict[str, Any]) -> dict[str, Any]:
    trace = t.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
    return t.get(f"/v1/memories/{trace['produced'][0]['memory_id']}").json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("title", ["ADR 7: Use Postgres", "7. Use Postgres"])
@pytest.mark.parametrize("newer_first", [False, True], ids=["older-first", "newer-first"])
def test_supersedes_finds_the_adr_whose_title_carries_the_number(
    tenant: Tenant, title: str, newer_first: bool
) -> None:
    files = [(OLDER.format(title=title), "use-postgres.md"), (NEWER, "use-cockroach.md")]
    bodies = [ingest(tenant, c, n) for c, n in (files[::-1] if newer_first else files)]
    older, newer = (bodies[1], bodies[0]) if newer_first else (bodies[0], bodies[1])
    old, new = decision_of(tenant, older), decision_of(tenant, newer)
    assert old["metadata"]["adr_name"] == "7"
    assert old["metadata"]["adr_file"] == "use-postgres"
    assert bodies[1]["supersedes"] == [
        {
            "memory_id": new["memory_id"],
            "supersedes_memory_id": old["memory_id"],
            "unit": "use-cockroach" if not newer_first else "use-postgres",
        }
    ]
    assert old["valid_to"] == new["valid_from"] == "2022-06-01T00:00:00Z"


def test_a_slug_adr_without_a_title_number_keeps_its_slug_name(tenant: Tenant) -> None:
    body = ingest(tenant, OLDER.format(title="Use Postgres"), "use-postgres.md")
    assert decision_of(tenant, body)["metadata"]["adr_name"] == "use-postgres"


def test_an_unreadable_date_is_reported_and_the_ingestion_time_kept(tenant: Tenant) -> None:
    content = OLDER.format(title="ADR 7: Use Postgres").replace("2021-03-01", "the 1st of March")
    body = ingest(tenant, content, "0007-use-postgres.md")
    [text] = unit_warnings(body, "ingest.adr_date_unreadable")
    assert "0007-use-postgres.md" in text and "'the 1st of March'" in text
    assert decision_of(tenant, body)["valid_from"] > "2025"  # the ingestion's time


def test_a_title_numbered_adr_is_still_found_by_its_slug(tenant: Tenant) -> None:
    """Its name became the title's number; a record citing its file's slug still finds it."""
    older = ingest(tenant, OLDER.format(title="ADR 7: Use Postgres"), "use-postgres.md")
    slug_newer = NEWER.replace("Supersedes ADR-0007", "Supersedes use-postgres")
    newer = ingest(tenant, slug_newer, "use-cockroach.md")
    old, new = decision_of(tenant, older), decision_of(tenant, newer)
    assert old["metadata"]["adr_name"] == "7"
    assert [link["supersedes_memory_id"] for link in newer["supersedes"]] == [old["memory_id"]]
    assert old["valid_to"] == new["valid_from"] == "2022-06-01T00:00:00Z"


def test_a_future_date_is_kept_and_reported(tenant: Tenant) -> None:
    """A typo'd year (3023) keeps its valid time (a decision may take effect later) but says so."""
    content = OLDER.format(title="ADR 7: Use Postgres").replace("2021-03-01", "3023-03-05")
    body = ingest(tenant, content, "0007-use-postgres.md")
    assert unit_warnings(body, "ingest.adr_date_in_future") == [
        "ingest.adr_date_in_future: 0007-use-postgres.md: dated 3023-03-05, later than now: the "
        "decision is not in force until then"
    ]
    assert decision_of(tenant, body)["valid_from"] == "3023-03-05T00:00:00Z"
