"""Lifecycle inputs: no `retracted` status, reasons are checked text, 404 and rejects messages read well."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver

from service.domain.models import DecisionStatus
from service.schemas import MemoryCreate, MemoryUpdate
from tests.conftest import Tenant
from tests.factories import memory


def count_nodes(driver: Driver, namespace: str) -> int:
    with driver.session() as s:
        record = s.run("MATCH (n {namespace: $ns}) RETURN count(n) AS c", ns=namespace).single()
        assert record is not None
        return int(record["c"])


def schema_statuses(schema: dict[str, Any]) -> list[str]:
    node = schema["properties"]["status"]
    node = next(n for n in node["anyOf"] if n.get("type") != "null")
    return list(node["enum"])


def assert_points_to_retract(r: Any) -> None:
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    [error] = r.json()["detail"]
    assert error["loc"][-1] == "status"
    assert "status: 'retracted' cannot be written" in error["msg"]
    assert "/retract" in error["msg"]


def test_written_statuses_are_the_domain_enum() -> None:
    expected = [s.value for s in DecisionStatus]
    assert expected == ["active", "challenged"]
    assert schema_statuses(MemoryCreate.model_json_schema()) == expected
    assert schema_statuses(MemoryUpdate.model_json_schema()) == expected


def test_retracted_is_not_a_status_on_create_or_patch(tenant: Tenant, neo4j_driver: Driver) -> None:
    r = tenant.post(
        "/v1/memories",
        json={"kind": "decision", "content": "born retracted", "status": "retracted"},
    )
    assert_points_to_retract(r)
    batch = tenant.post(
        "/v1/memories/batch",
        json={"items": [{"kind": "decision", "content": "b", "status": "retracted"}]},
    )
    assert batch.status_code == 422, batch.text
    assert "/retract" in batch.text
    assert count_nodes(neo4j_driver, tenant.namespace) == 0

    decision = memory(tenant, "use a lock", kind="decision", status="challenged")
    assert decision["status"] == "challenged"
    path = f"/v1/memories/{decision['memory_id']}"
    assert_points_to_retract(
        tenant.patch(path, json={"status": "retracted"}, headers={"If-Match": "1"})
    )
    assert tenant.get(path).json()["version"] == 1
    r = tenant.patch(path, json={"status": "active"}, headers={"If-Match": "1"})
    assert r.status_code == 200 and r.json()["status"] == "active", r.text


@pytest.mark.parametrize("reason", [" ", "\t\n", "\u200b"])
def test_a_blank_reason_is_refused_everywhere(
    tenant: Tenant, neo4j_driver: Driver, reason: str
) -> None:
    decision = memory(tenant, "cache the manifest", kind="decision")
    before = count_nodes(neo4j_driver, tenant.namespace)
    base = f"/v1/memories/{decision['memory_id']}"
    for action in ("invalidate", "retract", "challenge"):
        r = tenant.post(f"{base}/{action}", json={"reason": reason})
        assert r.status_code == 422, (action, r.text)
        assert r.json()["code"] == "input.invalid", action
        assert r.json()["detail"].startswith("reason: must not be empty"), action
    assert count_nodes(neo4j_driver, tenant.namespace) == before
    current = tenant.get(base).json()
    assert (current["version"], current["status"], current["valid_to"]) == (1, "active", None)


def test_not_found_at_times_prints_iso_and_only_the_times_given(tenant: Tenant) -> None:
    fact = memory(tenant, "the build runs on Node 20", kind="fact")
    path = f"/v1/memories/{fact['memory_id']}"
    r = tenant.get(path, params={"as_of": "2020-01-01T00:00:00Z"})
    assert r.status_code == 404, r.text
    assert r.json()["detail"] == (
        f"memory {fact['memory_id']} has no version valid at 2020-01-01T00:00:00Z"
    )
    r = tenant.get(path, params={"known_at": "2020-01-01T00:00:00Z"})
    assert r.status_code == 404, r.text
    assert r.json()["detail"] == (
        f"memory {fact['memory_id']} has no version as known at 2020-01-01T00:00:00Z"
    )
    r = tenant.get(
        path, params={"as_of": "2020-01-01T00:00:00Z", "known_at": "2021-06-01T12:00:00+02:00"}
    )
    assert r.status_code == 404, r.text
    assert r.json()["detail"].endswith(
        "valid at 2020-01-01T00:00:00Z as known at 2021-06-01T10:00:00Z"
    )
    assert "None" not in r.json()["detail"]


def test_rejects_message_names_the_steps(tenant: Tenant) -> None:
    def refusal(steps: list[dict[str, Any]]) -> str:
        r = tenant.post("/v1/reasoning", json={"task": "t", "steps": steps})
        assert r.status_code == 422, r.text
        return str(r.json()["detail"])

    first = refusal(
        [
            {"kind": "thought", "content": "maybe A", "status": "hypothesis", "rejects": [1]},
            {"kind": "conclusion", "content": "not A"},
        ]
    )
    assert first == (
        "steps[0].rejects: step 0 rejects step 1, but a step can only reject an earlier one "
        "and it has none"
    )
    later = refusal(
        [
            {"kind": "thought", "content": "maybe A", "status": "hypothesis"},
            {"kind": "thought", "content": "maybe B", "status": "hypothesis"},
            {"kind": "observation", "content": "A is fine", "rejects": [5]},
            {"kind": "conclusion", "content": "not A"},
        ]
    )
    assert later == (
        "steps[2].rejects: step 2 rejects step 5, but a step can only reject an earlier one "
        "(steps 0 to 1)"
    )


def test_an_offset_whose_plus_a_query_string_ate_is_named(tenant: Tenant) -> None:
    # A fresh-user trial: `?as_of=...+02:00` unencoded reached the service as "... 02:00" and
    # got pydantic's "unexpected extra characters", no hint to send the '+' as %2B.
    fact = memory(tenant, "the build runs on Node 22", kind="fact")
    r = tenant.get(f"/v1/memories/{fact['memory_id']}?as_of=2030-01-01T10:00:00+02:00")
    assert r.status_code == 422, r.text
    assert "%2B" in r.text
    r = tenant.get(f"/v1/memories/{fact['memory_id']}?as_of=2030-01-01T10:00:00%2B02:00")
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("sent", "reason"),
    [
        ("2030-01-01T24:00:00Z", "hour must be in 0..23"),
        ("2030-01-01T10:00:60Z", "second must be in 0..59"),
        ("2030-01-01T10:00:00+24:00", "offset must be between"),
        ("2030-13-01T10:00:00Z", "month must be in 1..12"),
        ("2030-01-01T10:00:00+05:60", "offset minutes must be in 0..59"),
        ("2030-01-01T10:00:00+05:45[Asia/Kathmandu]", "not ISO 8601"),
        # Trial 11: Python's reader takes seconds in an offset; ISO 8601 has none.
        ("2030-01-01T10:00:00+05:30:15", "hours and minutes only"),
        ("2030-01-01T10:00:00-05:30:15.5", "hours and minutes only"),
    ],
)
def test_a_time_out_of_range_says_why(tenant: Tenant, sent: str, reason: str) -> None:
    # A fresh-user trial: these got "unexpected extra characters at the end of the input".
    r = tenant.post("/v1/memories", json={"kind": "fact", "content": "x", "valid_from": sent})
    assert r.status_code == 422, r.text
    assert reason in r.text and sent in r.text, r.text


def test_a_lower_case_separator_is_read_like_a_lower_case_z(tenant: Tenant) -> None:
    sent_forms = ("2030-01-01t10:00:00Z", "2030-01-01t10:00:00z", "2030-01-01T10:00:00z")
    for i, sent in enumerate(sent_forms):
        r = tenant.post(
            "/v1/memories", json={"kind": "fact", "content": f"form {i}", "valid_from": sent}
        )
        assert r.status_code == 201, r.text
        assert r.json()["valid_from"] == "2030-01-01T10:00:00Z"


def test_an_hours_only_offset_is_read(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/memories",
        json={"kind": "fact", "content": "hours-only", "valid_from": "2030-01-01T10:00:00+05"},
    )
    assert r.status_code == 201, r.text
    assert r.json()["valid_from"] == "2030-01-01T05:00:00Z"
