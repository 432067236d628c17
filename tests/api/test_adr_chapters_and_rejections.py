"""ADR ingestion end to end (trial 22): an arc42 chapter's record is titled and dated by its own
heading and Status line, and a rejected record's lineage says why it was rejected (parser rules:
tests/unit/test_adr_chapters_and_rejections.py).
"""

from __future__ import annotations

from typing import Any

from tests.conftest import Tenant

ARC42 = (
    "# 9. Architecture Decisions\n\n## 9.2 ADR-2: Cache lookups in memory\n\n### Problem\n\n"
    "Lookups hit the database on every request.\n\n### Considerations\n\n"
    "* An in-process LRU cache is simple but per node.\n* A shared cache service adds a hop.\n\n"
    "### Decision\n\nWe cache lookups in an in-process LRU cache.\n\n### Status\n\n"
    "Accepted, 2022-04-09.\n"
)
REJECTED = (
    "# ADR-012: Use a message broker between orders and stock\n\n* Status: rejected\n"
    "* Date: 2021-05-04\n\n## Context\n\nOrders must reach the stock service.\n\n## Decision\n\n"
    "Introduce a message broker between orders and stock.\n\n## Rationale for rejection\n\n"
    "Nobody can run a broker, and a database queue already delivers at this volume.\n"
)


def ingest(t: Tenant, content: str, name: str) -> dict[str, Any]:
    r = t.post("/v1/ingest", json={"format": "adr", "source_name": name, "content": content})
    assert r.status_code in (200, 201), r.text
    return r.json()  # type: ignore[no-any-return]


def test_an_arc42_record_is_titled_and_dated_by_its_own_heading(tenant: Tenant) -> None:
    body = ingest(tenant, ARC42, "0002-cache-lookups.md")
    assert not [w for w in body["warnings"] if w["code"] == "adr.unplaced_section"]
    trace = tenant.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
    assert trace["task"] == "ADR 2: Cache lookups in memory"
    assert [s["status"] for s in trace["steps"]].count("hypothesis") == 2
    decision = tenant.get(f"/v1/memories/{trace['produced'][0]['memory_id']}").json()
    assert decision["valid_from"] == "2022-04-09T00:00:00Z"


def test_a_rejected_records_lineage_says_why(tenant: Tenant) -> None:
    body = ingest(tenant, REJECTED, "0012-message-broker.md")
    assert not [w for w in body["warnings"] if w["code"] == "adr.unplaced_section"]
    trace = tenant.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
    decision_id = trace["produced"][0]["memory_id"]
    r = tenant.get(f"/v1/memories/{decision_id}/lineage")
    assert r.status_code == 200, r.text
    [lineage] = r.json()["traces"]
    *_, reason, conclusion = lineage["steps"]
    assert reason["content"].startswith("Rationale for rejection: Nobody can run a broker")
    assert conclusion["kind"] == "conclusion"
