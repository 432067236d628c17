"""`GET /metrics` scraped after real recall, gate refusal, maintenance and hidden-origin traffic."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from neo4j import Driver, GraphDatabase
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from service.errors import GraphUnavailableError
from service.graph.cypher import QueryRegistry
from service.graph.repository import Graph
from service.settings import Settings
from tests.conftest import Tenant

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(t: Tenant, headers: dict[str, str] | None = None) -> Samples:
    r = t.client.get("/metrics", headers=headers or {})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    out: Samples = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    """Sum the samples of `name` whose labels include `labels` (0 when none)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= set(ls))


def test_metrics_show_recall_refusals_maintenance_and_hidden_origins(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    before = scrape(tenant)
    ev = tenant.post(
        "/v1/memories", json={"kind": "fact", "content": "The nightly backup runs at 02:00 UTC"}
    ).json()
    robot = tenant.post(
        "/v1/memories", json={"kind": "fact", "content": "The nightly backup runs at 03:00 UTC"}
    ).json()
    neo4j_driver.execute_query(
        "MATCH (m:Memory {namespace: $ns, memory_id: $id}) SET m.created_by_origin = 'robot'",
        ns=tenant.namespace,
        id=robot["memory_id"],
    )
    assert tenant.post("/v1/recall", json={"query": "when does the nightly backup run"}).is_success
    refused = tenant.post(
        "/v1/reasoning",
        json={
            "task": "why 500s?",
            "steps": [
                {"kind": "observation", "content": "500 errors", "cites": [ev["memory_id"]]},
                {"kind": "thought", "content": "looking at the deploy diff next"},
            ],
        },
    )
    assert refused.status_code == 422 and refused.json()["code"] == "reasoning.rejected"
    codes = {i["code"] for i in refused.json()["quality"]["issues"]}
    run = tenant.post("/v1/maintenance/run", json={"job": "evidence-drift"})
    assert run.status_code == 200, run.text

    after = scrape(tenant)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    # HTTP latency per route template (not per concrete path).
    assert grew("http_request_duration_seconds_count", handler="/v1/recall", method="POST") == 1
    assert grew("http_request_duration_seconds_count", handler="/v1/memories", status="201") == 2
    # Recall stages.
    for stage in ("embed", "candidates", "fuse", "read_back"):
        assert grew("rationale_recall_stage_seconds_count", read="recall", stage=stage) == 1
    # Gate refusals by issue code.
    assert "missing_conclusion" in codes
    for code in codes:
        assert grew("rationale_gate_refusals_total", code=code) == 1
    # Maintenance runs and changes.
    assert grew("rationale_maintenance_runs_total", job="evidence-drift", result="ok") == 1
    assert value(after, "rationale_maintenance_changes_total") >= value(
        before, "rationale_maintenance_changes_total"
    )
    # The memory with an unknown origin was hidden from recall, and met for the first time.
    assert grew("rationale_memories_hidden_total", read="recall", origin="unrecognized") == 1
    assert grew("rationale_unrecognized_origins_total") == 1
    assert value(after, "rationale_neo4j_up") == 1


def test_neo4j_errors_and_outages_are_counted(tenant: Tenant, settings: Settings) -> None:
    before = scrape(tenant)
    # A real driver towards a port nothing listens on: the server is unreachable.
    driver = GraphDatabase.driver("bolt://127.0.0.1:9", auth=("neo4j", "x"))
    try:
        graph = Graph(driver, QueryRegistry.production(settings.cypher_dir), "neo4j", 2.0)
        assert graph.ping() is False
        with pytest.raises(GraphUnavailableError):
            graph.run("diagnostics/count_origins", {"namespace": tenant.namespace})  # type: ignore[arg-type]
    finally:
        driver.close()
    down = scrape(tenant)
    assert (
        value(down, "rationale_neo4j_errors_total", kind="unavailable")
        == value(before, "rationale_neo4j_errors_total", kind="unavailable") + 2
    )
    assert value(down, "rationale_neo4j_outages_total") == (
        value(before, "rationale_neo4j_outages_total") + 1  # two errors, one outage
    )
    assert value(down, "rationale_neo4j_up") == 0
    assert tenant.get("/v1/diagnostics").status_code == 200  # the real server answers again
    assert value(scrape(tenant), "rationale_neo4j_up") == 1


@pytest.fixture
def metrics_key(tenant: Tenant) -> Iterator[str]:
    settings = tenant.client.app.state.services.settings  # type: ignore[attr-defined]
    settings.metrics_key = SecretStr("scrape-secret")
    yield "scrape-secret"
    settings.metrics_key = None


def test_metrics_key_is_required_when_set(tenant: Tenant, metrics_key: str) -> None:
    r = tenant.client.get("/metrics")
    assert r.status_code == 401 and r.json()["code"] == "auth.invalid_key"
    assert tenant.client.get("/metrics", headers=tenant.headers).status_code == 401  # tenant key
    assert (
        "rationale_neo4j_up"
        in tenant.client.get("/metrics", headers={"Authorization": f"Bearer {metrics_key}"}).text
    )


def test_handler_labels_are_the_openapi_paths(tenant: Tenant) -> None:
    # A fresh-user trial: GET/PATCH of a memory was labelled `/v1/memories/{memory_id:memory_id}`
    # (the path convertor's syntax), where /openapi.json names `/v1/memories/{memory_id}`.
    before = scrape(tenant)
    mid = tenant.post("/v1/memories", json={"kind": "fact", "content": "Racks are in hall 3"})
    mid = mid.json()["memory_id"]
    assert tenant.get(f"/v1/memories/{mid}").status_code == 200
    r = tenant.patch(
        f"/v1/memories/{mid}", json={"content": "Racks are in hall 4"}, headers={"If-Match": "1"}
    )
    assert r.status_code == 200, r.text
    assert tenant.get(f"/v1/memories/{mid}/history").status_code == 200
    after = scrape(tenant)
    for method in ("GET", "PATCH"):
        labels = {"handler": "/v1/memories/{memory_id}", "method": method}
        grew = value(after, "http_requests_total", **labels) - value(
            before, "http_requests_total", **labels
        )
        assert grew == 1, method
    handlers = {dict(ls)["handler"] for (_, ls) in after if "handler" in dict(ls)}
    paths = set(tenant.client.get("/openapi.json").json()["paths"])
    assert {"/v1/memories/{memory_id}", "/v1/memories/{memory_id}/history"} <= handlers
    assert not [h for h in handlers if ":" in h], handlers
    assert {h for h in handlers if h.startswith("/v1/")} <= paths
