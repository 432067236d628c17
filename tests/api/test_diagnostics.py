"""Unrecognized origins: hidden from recall and search, logged once, counted by /v1/diagnostics (issue 5)."""

from __future__ import annotations

import logging
import uuid

import pytest
from neo4j import Driver

from tests.conftest import Tenant
from tests.factories import memory

RETRIEVAL_LOGGER = "service.domain.retrieval"


def test_unrecognized_origin_is_hidden_logged_once_and_counted(
    tenant: Tenant,
    other_tenant: Tenant,
    neo4j_driver: Driver,
    caplog: pytest.LogCaptureFixture,
) -> None:
    visible = memory(tenant, "The backup job runs at 02:00 UTC every night", kind="fact")
    robot = memory(tenant, "The backup job runs at 03:00 UTC every night", kind="fact")
    browser_id = str(uuid.uuid4())
    with neo4j_driver.session() as s:
        s.run(
            "MATCH (m:Memory {namespace: $ns, memory_id: $id}) SET m.created_by_origin = 'robot'",
            ns=tenant.namespace,
            id=robot["memory_id"],
        ).consume()
        # Typed straight into Neo4j Browser: no origin, no embedding (only the fulltext index sees it).
        s.run(
            "CREATE (:Memory:Fact {namespace: $ns, uid: randomUUID(), memory_id: $id, version: 1, kind: 'fact', "
            "content: 'The backup job runs at 04:00 UTC every night', valid_from: datetime(), system_from: datetime()})",
            ns=tenant.namespace,
            id=browser_id,
        ).consume()

    query = "when does the backup job run"
    with caplog.at_level(logging.WARNING, logger=RETRIEVAL_LOGGER):
        for _ in range(2):
            for path in ("/v1/recall", "/v1/search"):
                r = tenant.post(
                    path,
                    json={"query": query, "limit": 100, "include_superseded": True}
                    if path == "/v1/search"
                    else {"query": query, "limit": 100},
                )
                assert r.status_code == 200, r.text
                assert [i["memory_id"] for i in r.json()["items"]] == [visible["memory_id"]]
    warnings = [
        rec
        for rec in caplog.records
        if rec.name == RETRIEVAL_LOGGER
        and rec.levelno == logging.WARNING
        # Neo4j's SEARCH fault on a just-written index (the exact scan then answers) is
        # logged too, once; the suite met it once under load.
        and rec.getMessage().startswith("memory ")
    ]
    assert sorted(w.getMessage().split()[1] for w in warnings) == sorted(
        [robot["memory_id"], browser_id]
    )
    robot_warning = next(w.getMessage() for w in warnings if robot["memory_id"] in w.getMessage())
    assert "'robot'" in robot_warning
    assert tenant.namespace in robot_warning
    assert "no origin" in next(w.getMessage() for w in warnings if browser_id in w.getMessage())

    diag = tenant.get("/v1/diagnostics")
    assert diag.status_code == 200, diag.text
    body = diag.json()
    assert body["unrecognized_origins"]["count"] == 2
    assert sorted(body["unrecognized_origins"]["sample"]) == sorted(
        [robot["memory_id"], browser_id]
    )
    assert body["counts"] == {"fact": {"user": 1, "robot": 1, "(missing)": 1}}

    # another namespace sees none of it
    assert other_tenant.get("/v1/diagnostics").json() == {
        "unrecognized_origins": {"count": 0, "sample": []},
        "counts": {},
    }


def test_diagnostics_counts_current_versions_per_kind_and_origin(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    fact = memory(tenant, "Disk quota is 10 GB", kind="fact")
    memory(tenant, "Ship the cache fix on Monday", kind="decision")
    maint = memory(tenant, "Possible duplicate: disk quota facts", kind="observation")
    r = tenant.patch(
        f"/v1/memories/{fact['memory_id']}",
        json={"content": "Disk quota is 20 GB"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200
    with neo4j_driver.session() as s:
        s.run(
            "MATCH (m:Memory {namespace: $ns, memory_id: $id}) SET m.created_by_origin = 'maintenance'",
            ns=tenant.namespace,
            id=maint["memory_id"],
        ).consume()
    body = tenant.get("/v1/diagnostics").json()
    assert body == {
        "unrecognized_origins": {"count": 0, "sample": []},
        "counts": {"fact": {"user": 1}, "decision": {"user": 1}, "observation": {"maintenance": 1}},
    }


def test_diagnostics_needs_the_read_scope(tenant: Tenant) -> None:
    assert tenant.client.get("/v1/diagnostics").status_code == 401
    r = tenant.get(
        "/v1/diagnostics", headers={"Authorization": f"Bearer {tenant.key_with(['write'])}"}
    )
    assert r.status_code == 403
    assert r.json()["code"] == "auth.forbidden"
    r = tenant.get(
        "/v1/diagnostics", headers={"Authorization": f"Bearer {tenant.key_with(['read'])}"}
    )
    assert r.status_code == 200
