"""A visible trace never carries cited evidence its reader may not see (DESIGN §5), real Neo4j."""

from __future__ import annotations

import json
from typing import Any

from neo4j import Driver

from tests.conftest import Tenant
from tests.factories import flaky_test_story, memory

QUERY = "why is the nightly zephyrquill backup slower since the storage move"


def run_job(t: Tenant, job: str) -> dict[str, Any]:
    r = t.post("/v1/maintenance/run", json={"job": job})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def set_origin(driver: Driver, namespace: str, memory_id: str, origin: str | None) -> None:
    """Set (or, with None, remove) `created_by_origin` on every version, as seeds and old data do."""
    with driver.session() as s:
        s.run(
            "MATCH (m:Memory {namespace: $ns, memory_id: $id}) SET m.created_by_origin = $origin",
            ns=namespace,
            id=memory_id,
            origin=origin,
        ).consume()


def user_trace(t: Tenant, cites: list[str]) -> dict[str, Any]:
    r = t.post(
        "/v1/reasoning",
        json={
            "task": "Why is the nightly zephyrquill backup slower since the storage move?",
            "steps": [
                {
                    "kind": "observation",
                    "content": "the nightly zephyrquill backup is slower since the storage move",
                    "cites": cites,
                },
                {
                    "kind": "conclusion",
                    "content": "the zephyrquill backup is slower because the new storage is remote",
                },
            ],
            "produced": {"kind": "decision", "content": "Move the zephyrquill backup window"},
        },
    )
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def cites_of(trace: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["memory_id"]: c for s in trace["steps"] for c in s["cites"]}


def recalled_trace(t: Tenant, path: str, trace_id: str, **body: Any) -> tuple[dict[str, Any], str]:
    r = t.post(path, json={"query": QUERY, "limit": 20, **body})
    assert r.status_code == 200, r.text
    [item] = [i for i in r.json()["items"] if i["memory_id"] == trace_id]
    return item, r.text


def test_cited_memories_of_hidden_origins_keep_their_shape_but_not_their_content(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    texts = {
        "maintenance": "maintenance note quillmaint: the backup confidence was lowered",
        "robot": "robot note quillrobot: the backup ran on the slow array",
        None: "seeded note quillmissing: the backup storage is remote",
        "user": "user note quilluser: the backup storage moved to the remote array",
    }
    ids = {origin: memory(tenant, text)["memory_id"] for origin, text in texts.items()}
    for origin in ("maintenance", "robot", None):
        set_origin(neo4j_driver, tenant.namespace, ids[origin], origin)
    trace = user_trace(tenant, list(ids.values()))
    trace_id, decision_id = trace["trace_id"], trace["produced"][0]["memory_id"]
    hidden_words = {"quillmaint", "quillrobot", "quillmissing"}

    def check(cites: dict[str, dict[str, Any]], visible: set[str | None]) -> None:
        assert set(cites) == set(ids.values())  # the trace's shape is unchanged
        for origin, memory_id in ids.items():
            cite = cites[memory_id]
            assert (cite["version"], cite["still_valid"]) == (1, True)
            if origin in visible:
                assert (cite["content"], cite["hidden"]) == (texts[origin], False)
            else:
                assert (cite["content"], cite["hidden"]) == (None, True)

    # recall (grouped page and the traces-only page): no maintenance or unknown content anywhere
    for body in ({}, {"kinds": ["reasoning"]}):
        item, text = recalled_trace(tenant, "/v1/recall", trace_id, **body)
        check(cites_of(item), {"user"})
        assert not any(word in text for word in hidden_words), body
        assert "quilluser" in text
    # search and the trace by id: maintenance is search-visible, unknown origins are not
    item, text = recalled_trace(tenant, "/v1/search", trace_id)
    check(cites_of(item), {"user", "maintenance"})
    assert "quillrobot" not in text and "quillmissing" not in text
    r = tenant.get(f"/v1/reasoning/{trace_id}")
    assert r.status_code == 200, r.text
    check(cites_of(r.json()), {"user", "maintenance"})
    assert "quillrobot" not in r.text and "quillmissing" not in r.text
    # lineage still shows the maintenance evidence
    r = tenant.get(f"/v1/memories/{decision_id}/lineage")
    assert r.status_code == 200, r.text
    [lineage_trace] = r.json()["traces"]
    check(cites_of(lineage_trace), {"user", "maintenance"})
    assert "quillmaint" in r.text
    assert "quillrobot" not in r.text and "quillmissing" not in r.text


def test_a_user_trace_citing_a_maintenance_trace_never_recalls_its_reasoning(
    tenant: Tenant,
) -> None:
    story = flaky_test_story(tenant)
    log_id = story["log"]["memory_id"]
    r = tenant.patch(
        f"/v1/memories/{log_id}",
        json={"content": "CI log: test_upload failed with a timeout during teardown"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200, r.text
    [maintenance_id] = run_job(tenant, "evidence-drift")["trace_ids"]
    maintenance = tenant.get(f"/v1/reasoning/{maintenance_id}").json()
    assert maintenance["created_by"]["origin"] == "maintenance"
    marker = maintenance["steps"][0]["content"]
    assert marker

    trace = user_trace(tenant, [maintenance_id])
    trace_id, decision_id = trace["trace_id"], trace["produced"][0]["memory_id"]

    for body in ({}, {"kinds": ["reasoning"]}):
        item, text = recalled_trace(tenant, "/v1/recall", trace_id, **body)
        cite = cites_of(item)[maintenance_id]
        assert (cite["version"], cite["content"], cite["hidden"]) == (1, None, True)
        assert marker not in text and "Evidence drift" not in text, body
        assert maintenance_id not in [i["memory_id"] for i in json.loads(text)["items"]]

    r = tenant.get(f"/v1/memories/{decision_id}/lineage")
    assert r.status_code == 200, r.text
    [lineage_trace] = r.json()["traces"]
    cite = cites_of(lineage_trace)[maintenance_id]
    assert cite["hidden"] is False
    assert cite["content"] and marker in cite["content"]
