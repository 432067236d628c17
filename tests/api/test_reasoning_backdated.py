"""`POST /v1/reasoning`'s `produced.valid_from`: what reasoning led to, true since before it was recorded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.conftest import Tenant
from tests.factories import memory


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _trace(t: Tenant, evidence: str, produced: dict[str, Any]) -> Any:
    return t.post(
        "/v1/reasoning",
        json={
            "task": "Which PostgreSQL version does the payments service run now?",
            "steps": [
                {
                    "kind": "observation",
                    "content": "pg_upgrade log shows the payments cluster upgrade to "
                    "PostgreSQL 17 succeeded four days ago",
                    "cites": [evidence],
                },
                {
                    "kind": "conclusion",
                    "content": "The payments service runs PostgreSQL 17 since the upgrade "
                    "four days ago",
                },
            ],
            "produced": produced,
        },
    )


def test_a_produced_fact_is_valid_from_when_it_became_true(tenant: Tenant) -> None:
    now = datetime.now(UTC)
    upgraded, before = now - timedelta(days=4), now - timedelta(days=10)
    old = memory(
        tenant,
        kind="fact",
        content="The payments service runs PostgreSQL 16.4",
        subject="payments-service",
        attribute="database",
        valid_from=iso(before),
    )
    log = memory(
        tenant,
        kind="observation",
        content="pg_upgrade log: payments cluster upgraded to PostgreSQL 17",
        valid_from=iso(upgraded),
    )
    r = _trace(
        tenant,
        log["memory_id"],
        {
            "kind": "fact",
            "content": "The payments service runs PostgreSQL 17",
            "subject": "payments-service",
            "attribute": "database",
            "valid_from": iso(upgraded),
        },
    )
    assert r.status_code == 201, r.text
    trace = r.json()
    fact = trace["produced"][0]
    assert parse(fact["valid_from"]) == upgraded
    # The trace itself is recorded now, valid from now.
    assert parse(trace["system_from"]) >= now and parse(trace["valid_from"]) >= now

    # As of two days ago the answer is 17, not the value the write replaced.
    between = iso(now - timedelta(days=2))
    got = tenant.get(f"/v1/memories/{fact['memory_id']}", params={"as_of": between})
    assert got.status_code == 200 and got.json()["content"].endswith("PostgreSQL 17")
    closed = tenant.get(f"/v1/memories/{old['memory_id']}").json()
    assert parse(closed["valid_to"]) == upgraded


def test_an_outcome_observed_before_the_recording_is_accepted(tenant: Tenant) -> None:
    now = datetime.now(UTC)
    decided = now - timedelta(days=3)
    log = memory(tenant, kind="observation", content="pg_upgrade log: cluster on PostgreSQL 17")
    r = _trace(
        tenant,
        log["memory_id"],
        {"content": "Run the payments service on PostgreSQL 17", "valid_from": iso(decided)},
    )
    assert r.status_code == 201, r.text
    decision = r.json()["produced"][0]
    assert decision["kind"] == "decision" and parse(decision["valid_from"]) == decided
    out = tenant.post(
        f"/v1/memories/{decision['memory_id']}/outcomes",
        json={
            "result": "success",
            "content": "a day after the upgrade the payments p95 was unchanged",
            "observed_at": iso(now - timedelta(days=2)),
        },
    )
    assert out.status_code == 201, out.text


def test_a_future_or_naive_start_is_refused(tenant: Tenant) -> None:
    log = memory(tenant, kind="observation", content="pg_upgrade log: cluster on PostgreSQL 17")
    later = iso(datetime.now(UTC) + timedelta(hours=1))
    r = _trace(tenant, log["memory_id"], {"content": "Use PostgreSQL 17", "valid_from": later})
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    assert r.json()["detail"].startswith("produced.valid_from: ")
    assert "in the future" in r.json()["detail"]
    naive = _trace(
        tenant,
        log["memory_id"],
        {"content": "Use PostgreSQL 17", "valid_from": "2024-05-01T00:00:00"},
    )
    assert naive.status_code == 422
    assert naive.json()["detail"][0]["loc"] == ["body", "produced", "valid_from"]
    # Nothing produced was written.
    found = tenant.post("/v1/search", json={"query": "Use PostgreSQL 17", "kinds": ["decision"]})
    assert found.status_code == 200 and found.json()["count"] == 0
