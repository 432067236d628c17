"""The gate refuses conclusions that negate the evidence, explain themselves or restate the task."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver

from tests.conftest import Tenant
from tests.factories import memory


def count_nodes(driver: Driver, namespace: str) -> int:
    with driver.session() as s:
        record = s.run("MATCH (n {namespace: $ns}) RETURN count(n) AS c", ns=namespace).single()
        assert record is not None
        return int(record["c"])


def trace(task: str, observed: str, concluded: str, **extra: Any) -> dict[str, Any]:
    return {
        "task": task,
        "steps": [
            {"kind": "observation", "content": observed, **extra},
            {"kind": "conclusion", "content": concluded},
        ],
        "produced": {"kind": "fact", "content": concluded},
    }


@pytest.mark.parametrize(
    ("code", "body"),
    [
        (
            "contradicts_evidence",
            trace(
                "Check the cache setting",
                "the cache is enabled in config",
                "the cache is not enabled in config",
            ),
        ),
        (
            "circular",
            trace(
                "Check the build",
                "the build is slow because it is slow",
                "the build is slow because it is slow",
            ),
        ),
        (
            "circular",
            trace(
                "Why is the build slow?",
                "the build takes 40 minutes on the CI runner",
                "the build is slow",
            ),
        ),
    ],
    ids=["negates_evidence", "explains_itself", "restates_the_question"],
)
def test_gate_refuses_and_writes_nothing(
    tenant: Tenant, neo4j_driver: Driver, code: str, body: dict[str, Any]
) -> None:
    before = count_nodes(neo4j_driver, tenant.namespace)
    r = tenant.post("/v1/reasoning", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "reasoning.rejected"
    found = [(i["code"], i["step"], i["severity"]) for i in r.json()["quality"]["issues"]]
    assert (code, 1, "serious") in found, found
    assert count_nodes(neo4j_driver, tenant.namespace) == before


def test_shared_one_letter_name_is_supported_evidence(tenant: Tenant) -> None:
    log = memory(tenant, "Y evidence seen in logs")
    body = trace(
        "Why is the queue stuck?",
        "Y evidence seen in logs",
        "Y implies the queue is stuck",
        cites=[log["memory_id"]],
    )
    r = tenant.post("/v1/reasoning", json=body)
    assert r.status_code == 201, r.text
    assert r.json()["quality"]["verdict"] == "accepted"
