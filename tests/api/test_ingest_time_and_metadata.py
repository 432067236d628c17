"""Ingestion findings of a fresh-user trial: an ADR dated at the end of time (a 500 that left an
`in_progress` source behind), any attempt an unexpected failure stops, and ADR metadata written
as consecutive `Key: value` lines.
"""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver

from service.domain.ingestion import writing
from service.domain.ingestion.writing import UnitWriter
from service.errors import GraphUnavailableError
from tests.api.test_ingest_trial import CODEX, SESSIONS
from tests.conftest import Tenant

LAST = "9999-12-31T23:59:59.999999Z"
BODY = (
    "# ADR-4242: Use max time\n\n## Context\nWe need a clock.\n## Decision\n"
    "We will use the max clock for everything.\n"
)
#: The trial's document (with status rejected and date LAST).
END_OF_TIME = "---\nstatus: {status}\ndate: {date}\n---\n" + BODY


def ingest(t: Tenant, content: str, name: str, fmt: str = "adr") -> Any:
    return t.post("/v1/ingest", json={"format": fmt, "source_name": name, "content": content})


def decision_of(t: Tenant, body: dict[str, Any]) -> dict[str, Any]:
    trace = t.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
    memory_id = trace["produced"][0]["memory_id"]
    return t.get(f"/v1/memories/{memory_id}").json()  # type: ignore[no-any-return]


def count(driver: Driver, namespace: str, label: str = "") -> int:
    records, _, _ = driver.execute_query(
        f"MATCH (n{label} {{namespace: $ns}}) RETURN count(n) AS c", {"ns": namespace}
    )
    return int(records[0]["c"])


def sources(driver: Driver, namespace: str) -> list[dict[str, Any]]:
    records, _, _ = driver.execute_query(
        "MATCH (s:Source {namespace: $ns}) RETURN s.status AS status, "
        "s.units_failed AS units_failed, s.attempts AS attempts",
        {"ns": namespace},
    )
    return [r.data() for r in records]


# --- 1. an ADR dated at the end of time ---------------------------------------------------------


@pytest.mark.parametrize("status", ["rejected", "superseded", "deprecated"])
def test_an_adr_that_ended_dated_the_last_instant_is_refused_and_writes_nothing(
    tenant: Tenant, neo4j_driver: Driver, status: str
) -> None:
    # Was a 500 (OverflowError in supersession) leaving a :Source `in_progress`, every time.
    content = END_OF_TIME.format(status=status, date=LAST)
    for _ in range(2):
        r = ingest(tenant, content, "adr-4242.md")
        assert r.status_code == 422, r.text
        assert r.json()["code"] == "input.invalid_format"
        assert LAST in r.json()["detail"] and status in r.json()["detail"]
        assert count(neo4j_driver, tenant.namespace) == 0  # no :Source, nothing at all


def test_an_adr_in_force_or_ending_a_microsecond_earlier_is_kept(tenant: Tenant) -> None:
    body = ingest(tenant, END_OF_TIME.format(status="accepted", date=LAST), "adr-4242.md")
    assert body.status_code == 201, body.text
    kept = decision_of(tenant, body.json())
    assert (kept["valid_from"], kept["valid_to"]) == (LAST, None)
    earlier = END_OF_TIME.format(status="rejected", date="9999-12-31T23:59:59.999998Z")
    body = ingest(tenant, earlier.replace("max clock", "next clock"), "adr-4243.md")
    assert body.status_code == 201, body.text
    assert body.json()["status"] == "complete"
    ended = decision_of(tenant, body.json())
    assert (ended["valid_from"], ended["valid_to"]) == ("9999-12-31T23:59:59.999998Z", LAST)
    assert ended["metadata"]["adr_closed"]["because"] == "rejected"


@pytest.mark.parametrize("date", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00"])
@pytest.mark.parametrize("layout", ["front matter", "line"])
def test_a_date_out_of_range_in_utc_is_no_date_not_a_500(
    tenant: Tenant, neo4j_driver: Driver, date: str, layout: str
) -> None:
    # Was a 500 (OverflowError converting to UTC for Neo4j) after the :Source was created.
    content = END_OF_TIME.format(status="rejected", date=date)
    if layout == "line":
        content = BODY.replace(
            "\n\n## Context", f"\n\nStatus: rejected\n\nDate: {date}\n\n## Context"
        )
    r = ingest(tenant, content, "adr-4242.md")
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "complete"
    decision = decision_of(tenant, r.json())
    assert decision["metadata"]["adr_status"] == "rejected"
    assert decision["valid_from"] > "2025"  # unreadable as a date: the ingestion's time
    assert sources(neo4j_driver, tenant.namespace)[0]["status"] == "complete"


# --- 1b. any unexpected failure during an ingest --------------------------------------------------


def test_an_unexpected_failure_leaves_a_partial_source_that_a_retry_completes(
    tenant: Tenant, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug in supersession")

    monkeypatch.setattr(writing, "supersede", broken)
    content = END_OF_TIME.format(status="rejected", date="2023-05-01")
    with pytest.raises(RuntimeError, match="a bug in supersession"):
        ingest(tenant, content, "adr-4242.md")  # a 500
    # the unit's transaction rolled back whole; the source says so, not `in_progress`
    assert count(neo4j_driver, tenant.namespace, ":Memory") == 0
    assert sources(neo4j_driver, tenant.namespace) == [
        {"status": "partial", "units_failed": ["adr-4242"], "attempts": 1}
    ]
    monkeypatch.undo()
    r = ingest(tenant, content, "adr-4242.md")
    assert r.status_code == 200, r.text  # the same source, retried
    body = r.json()
    assert (body["new"], body["status"], body["chunks"]["ok"]) == (False, "complete", 1)
    assert decision_of(tenant, body)["metadata"]["adr_closed"]["because"] == "rejected"
    assert sources(neo4j_driver, tenant.namespace) == [
        {"status": "complete", "units_failed": [], "attempts": 2}
    ]


def test_a_failure_midway_keeps_the_units_written_and_a_retry_writes_the_rest(
    tenant: Tenant, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = CODEX.read_text(encoding="utf-8")
    write_unit = UnitWriter._write_unit
    seen: list[str] = []

    def second_fails(
        self: UnitWriter, tx: Any, writer: Any, source_uid: str, unit: Any, *a: Any
    ) -> Any:
        seen.append(unit.key)
        if len(seen) == 2:
            raise RuntimeError("a bug in the second unit")
        return write_unit(self, tx, writer, source_uid, unit, *a)

    monkeypatch.setattr(UnitWriter, "_write_unit", second_fails)
    with pytest.raises(RuntimeError, match="a bug in the second unit"):
        ingest(tenant, content, CODEX.name, "auto")
    [source] = sources(neo4j_driver, tenant.namespace)
    assert source["status"] == "partial"
    assert seen[1] in source["units_failed"] and seen[0] not in source["units_failed"]
    written = count(neo4j_driver, tenant.namespace, ":Memory")
    assert written > 0  # the first unit is kept
    monkeypatch.undo()
    r = ingest(tenant, content, CODEX.name, "auto")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "complete" and body["chunks"]["failed"] == 0
    assert all(u["status"] == "ok" for u in body["units"])
    assert sources(neo4j_driver, tenant.namespace)[0]["units_failed"] == []
    assert count(neo4j_driver, tenant.namespace, ":Memory") > written


AIDER = SESSIONS / "aider-chat-history" / "afi-core.aider.chat.history.md"


def test_neo4j_gone_midway_fails_the_rest_untried_and_a_retry_writes_them(
    tenant: Tenant, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial 13: with Neo4j stopped during an ingest every remaining unit was tried, each
    failing with its own WARNING line (hundreds for FEVER). The first `graph.unavailable`
    stops the attempt: the rest fail untried, and a retry writes them."""
    content = AIDER.read_text(encoding="utf-8")  # 28 requests, one unit each
    write_unit = UnitWriter._write_unit
    seen: list[str] = []

    def gone_at_the_second(
        self: UnitWriter, tx: Any, writer: Any, source_uid: str, unit: Any, *a: Any
    ) -> Any:
        seen.append(unit.key)
        if len(seen) == 2:
            raise GraphUnavailableError("Neo4j is unavailable")
        return write_unit(self, tx, writer, source_uid, unit, *a)

    monkeypatch.setattr(UnitWriter, "_write_unit", gone_at_the_second)
    r = ingest(tenant, content, AIDER.name, "auto")
    assert r.status_code == 201, r.text
    units = r.json()["units"]
    assert len(units) > 2 and len(seen) == 2  # no unit after the failure was tried
    assert [u["status"] for u in units[:2]] == ["ok", "failed"]
    assert all(u["status"] == "failed" for u in units[2:])
    assert all(u["error"].startswith("graph.unavailable: not attempted") for u in units[2:])
    monkeypatch.undo()
    again = ingest(tenant, content, AIDER.name, "auto")
    assert again.status_code == 200, again.text
    assert again.json()["status"] == "complete"
    assert all(u["status"] == "ok" for u in again.json()["units"])


# --- 2. ADR metadata on consecutive `Key: value` lines -------------------------------------------

RABBIT = (
    "# ADR-7001: Use rabbit\n\n{meta}\n\n## Context\nQueues.\n\n## Decision\n"
    "We will use RabbitMQ.\n"
)


@pytest.mark.parametrize(
    "meta",
    [
        "Date: 2023-05-01\nStatus: rejected",
        "Status: rejected\nDate: 2023-05-01",
        "Date: 2023-05-01\n\nStatus: rejected",
        "- Date: 2023-05-01\n- Status: rejected",
    ],
    ids=["date-first", "status-first", "blank-line", "bullets"],
)
def test_adr_metadata_lines_each_give_their_key(tenant: Tenant, meta: str) -> None:
    # Consecutive lines were read as one: the date-first record became an active, current
    # decision (valid_from now, no adr_status); the status-first one had the status
    # "rejected Date: 2023-05-01" and no date.
    r = ingest(tenant, RABBIT.format(meta=meta), "adr-7001.md")
    assert r.status_code == 201, r.text
    decision = decision_of(tenant, r.json())
    assert decision["metadata"]["adr_status"] == "rejected"
    assert decision["valid_from"] == "2023-05-01T00:00:00Z"
    assert decision["valid_to"] == "2023-05-01T00:00:00.000001Z"  # rejected: it never held
    assert decision["metadata"]["adr_closed"] == {"because": "rejected", "by": "its own status"}


def test_an_adrs_status_history_is_kept_on_its_decision(tenant: Tenant) -> None:
    """The parser read a record's other status lines and changelog (`status_history`), and
    nothing stored them: the decision's metadata now has them, as written."""
    content = (
        "# ADR 31: Queue retries\n\n## Changelog\n\n- 2023-10-09: First draft\n"
        "- 2023-11-02: Accepted after review\n\n## Status\n\nAccepted\n\n"
        "## Context\n\nRetries double the load.\n\n## Decision\n\nWe will retry three times.\n"
    )
    r = ingest(tenant, content, "adr-31.md")
    assert r.status_code == 201, r.text
    metadata = decision_of(tenant, r.json())["metadata"]
    assert metadata["adr_status"] == "Accepted"
    assert metadata["adr_status_history"] == [
        "2023-10-09: First draft",
        "2023-11-02: Accepted after review",
    ]
