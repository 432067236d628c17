"""A session's request comes back once: as the trace that works on it, not also as its observation.

Ingestion keeps a request as the trace's task and as an observation (`"User: <request>"`, the
evidence the trace's first step cites). Fresh-user trial 15: a recall for the request returned
both in its top 5, the observation first.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Tenant

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
SESSION = (
    CORPUS
    / "sessions"
    / "claude-code-jsonl"
    / "ccviewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
)


def test_a_request_is_one_item_led_by_its_trace(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/ingest",
        json={"content": SESSION.read_text(encoding="utf-8"), "source_name": SESSION.name},
    )
    assert r.status_code == 201, r.text
    page = tenant.post(
        "/v1/search", json={"query": "session request", "limit": 20, "kinds": ["reasoning"]}
    ).json()["items"]
    tasks = {t["trace_id"]: t["task"] for t in page}
    assert tasks
    for trace_id, task in tasks.items():
        items = tenant.post("/v1/recall", json={"query": task[:300], "limit": 5}).json()["items"]
        said = [i for i in items if i["kind"] == "observation" and i["content"] == f"User: {task}"]
        assert not said, (task, [i.get("content") or i.get("task") for i in items])
        lead = next(i for i in items if i["kind"] == "reasoning" and i["trace_id"] == trace_id)
        assert items.index(lead) == 0, (task, [i.get("content") or i.get("task") for i in items])
        assert lead["duplicates"] is not None and lead["duplicates"]["count"] >= 1, lead
