"""A document starting with a UTF-8 byte-order mark (or other invisible characters) ingests like
the same document without one; its source stays identified by the bytes handed in."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from neo4j import Driver

from tests.api.test_ingest_trial import CODEX
from tests.conftest import Tenant

ADR = (
    "\ufeff# ADR 15: Use PostgreSQL for persistence\n\n## Status\nAccepted\n## Context\n"
    "We need a database.\n## Decision\nWe will use PostgreSQL 16.\n"
)


def ingest_ok(t: Tenant, content: str, name: str, status: int = 201) -> dict[str, Any]:
    r = t.post("/v1/ingest", json={"format": "auto", "content": content, "source_name": name})
    assert r.status_code == status, r.text
    return r.json()  # type: ignore[no-any-return]


def nodes(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (n {namespace: $ns}) RETURN count(n) AS c", {"ns": namespace}
    )
    return int(records[0]["c"])


def test_an_adr_with_a_bom_keeps_its_title_and_number(tenant: Tenant, neo4j_driver: Driver) -> None:
    body = ingest_ok(tenant, ADR, "adr-bomonly.md")
    assert body["format"] == "adr"
    assert "an 'ADR n' title" in body["detection"]["signals"]
    assert body["sha256"] == hashlib.sha256(ADR.encode("utf-8")).hexdigest()  # bytes as sent
    trace = tenant.get(f"/v1/reasoning/{body['trace_ids'][0]}").json()
    assert trace["task"] == "ADR 15: Use PostgreSQL for persistence"
    decision = tenant.get(f"/v1/memories/{trace['produced'][0]['memory_id']}").json()
    # the file stem has no number, so the ADR's name is its title's number: the BOM did not
    # hide the title (a record numbered in its file name keeps that number)
    assert decision["metadata"]["adr_name"] == "15"
    assert decision["metadata"]["adr_file"] == "adr-bomonly"
    assert decision["content"].startswith("ADR 15: Use PostgreSQL for persistence: ")
    assert "\ufeff" not in decision["content"]
    # the same bytes again: the same source, nothing written
    before = nodes(neo4j_driver, tenant.namespace)
    again = ingest_ok(tenant, ADR, "adr-bomonly.md", 200)
    assert again["new"] is False and again["source_id"] == body["source_id"]
    assert sum(again["created"].values()) == 0
    assert nodes(neo4j_driver, tenant.namespace) == before


def test_a_session_with_a_bom_is_still_a_session(tenant: Tenant) -> None:
    text = CODEX.read_text(encoding="utf-8")
    body = ingest_ok(tenant, "\ufeff" + text, CODEX.name)
    assert body["format"] == "codex"
    assert [w["code"] for w in body["warnings"] if w["unit"] is None] == []
    assert len(body["trace_ids"]) == 2
    first_line = json.loads(text.splitlines()[0])
    assert first_line["type"] == "session_meta"  # the line the BOM used to corrupt


def test_a_known_sources_format_is_said_to_be_the_recorded_one(tenant: Tenant) -> None:
    """Sent again with `auto`, the stored format is used: it said `declared` (trial 9)."""
    first = ingest_ok(tenant, ADR, "adr-15.md")
    assert first["detection"]["format"] == "adr" and "declared" not in first["detection"]["signals"]
    again = ingest_ok(tenant, ADR, "adr-15.md", status=200)
    assert again["new"] is False
    assert again["detection"] == {"format": "adr", "signals": ["recorded"]}
