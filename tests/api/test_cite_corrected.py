"""Citing a closed memory says why it is closed: corrected (and by which memory) or retracted."""

from __future__ import annotations

from typing import Any

from tests.conftest import Tenant
from tests.factories import memory

FACT = {
    "kind": "fact",
    "subject": "carol",
    "attribute": "employer",
    "valid_from": "2024-06-01T00:00:00Z",
}


def corrected_pair(t: Tenant) -> tuple[str, str]:
    """Write a keyed value and its correction (same key, same valid start); return both ids."""
    first = memory(t, "Carol works at Acme", **FACT)["memory_id"]
    second = memory(t, "Carol works at Initech", **FACT)["memory_id"]
    got = t.get(f"/v1/memories/{first}")
    assert got.status_code == 404 and f"by memory {second}" in got.json()["detail"], got.text
    return first, second


def steps(cites: list[str]) -> list[dict[str, Any]]:
    return [
        {"kind": "observation", "content": "Carol's badge says Acme", "cites": cites},
        {"kind": "conclusion", "content": "Carol's employer is on her badge"},
    ]


def test_citing_a_corrected_value_says_it_was_corrected_and_by_which_memory(
    tenant: Tenant,
) -> None:
    # A fresh-user trial: the refusal said "retracted" where GET said "corrected ... by memory".
    first, second = corrected_pair(tenant)
    gone = memory(tenant, "Carol's badge was scanned at the front door")["memory_id"]
    r = tenant.post(f"/v1/memories/{gone}/retract", json={"reason": "wrong person"})
    assert r.status_code == 200, r.text
    r = tenant.post(
        "/v1/reasoning", json={"task": "Where does Carol work?", "steps": steps([first, gone])}
    )
    assert (r.status_code, r.json()["code"]) == (422, "reasoning.invalid_reference"), r.text
    assert r.json()["detail"] == (
        f"cited memories were corrected (cite the new value): {first} by memory {second}; "
        f"cited memories were retracted (no current version to cite): {gone}"
    )
    assert sorted(r.json()["missing"]) == sorted([first, gone])
    decision = memory(tenant, "Send Carol's invoice to Initech", kind="decision")["memory_id"]
    r = tenant.post(
        f"/v1/memories/{decision}/outcomes",
        json={"result": "success", "content": "invoice paid", "cites": [first]},
    )
    assert (r.status_code, r.json()["code"]) == (422, "reasoning.invalid_reference"), r.text
    assert r.json()["detail"].startswith("cited memories were corrected"), r.text


def test_producing_a_corrected_value_says_it_was_corrected_and_by_which_memory(
    tenant: Tenant,
) -> None:
    first, second = corrected_pair(tenant)
    ev = memory(tenant, "Carol's badge says Initech")["memory_id"]
    r = tenant.post(
        "/v1/reasoning",
        json={"task": "Where does Carol work?", "steps": steps([ev]), "produced_memory_id": first},
    )
    assert (r.status_code, r.json()["code"]) == (422, "reasoning.invalid_reference"), r.text
    detail = r.json()["detail"]
    assert detail.startswith(f"produced_memory_id {first} was corrected at 20"), detail
    assert detail.endswith(f"Z by memory {second}: a trace produces a current memory"), detail
    assert r.json()["missing"] == [first]
