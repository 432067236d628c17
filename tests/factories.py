"""Test data made through the API, as a client would (no raw Cypher)."""

from __future__ import annotations

from typing import Any

from service.domain.memories import utcnow
from service.domain.retrieval.candidates import lucene_query
from service.domain.retrieval.models import Candidates, RetrievalQuery
from tests.conftest import Tenant


def memory(t: Tenant, content: str, kind: str = "observation", **fields: Any) -> dict[str, Any]:
    r = t.post("/v1/memories", json={"kind": kind, "content": content, **fields})
    assert r.status_code in (200, 201), r.text
    return r.json()  # type: ignore[no-any-return]


def small_trace(t: Tenant, task: str, steps: list[str]) -> str:
    """Record a trace of observations ending in a conclusion (the last step); return its id."""
    body = {
        "task": task,
        "steps": [{"kind": "observation", "content": s} for s in steps[:-1]]
        + [{"kind": "conclusion", "content": steps[-1]}],
    }
    r = t.post("/v1/reasoning", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["trace_id"])


def flaky_test_story(t: Tenant) -> dict[str, Any]:
    """The seed's story: a flaky CI test, two rejected hypotheses, a race, a lock, 50 green runs."""
    log = memory(t, "CI log: test_upload failed with connection reset during setup")
    cache = memory(t, "Cache hit rate was normal (98%) during the failing runs")
    tz = memory(
        t, "Failing runs happened at 09:14, 13:40 and 22:05 UTC, no pattern around midnight or DST"
    )
    tmpdir = memory(
        t, "Worker logs show gw0 and gw1 both creating /tmp/upload-fixture at the same moment"
    )
    green = memory(t, "50 consecutive CI runs green after adding the lock")
    steps = [
        {
            "kind": "observation",
            "content": "test_upload failed with connection reset during setup",
            "cites": [log["memory_id"]],
        },
        {
            "kind": "thought",
            "content": "Maybe it is the cache serving a stale fixture",
            "status": "hypothesis",
        },
        {
            "kind": "thought",
            "content": "Could be a timezone issue in the fixture dates",
            "status": "hypothesis",
        },
        {
            "kind": "observation",
            "content": "Cache hit rate was normal during the failures, so the cache is not it",
            "cites": [cache["memory_id"]],
            "rejects": [1],
        },
        {
            "kind": "observation",
            "content": "Failures are spread over the day with no midnight or DST pattern, so not timezones",
            "cites": [tz["memory_id"]],
            "rejects": [2],
        },
        {
            "kind": "observation",
            "content": "Two workers create the same temp directory /tmp/upload-fixture in setup at once",
            "cites": [tmpdir["memory_id"]],
        },
        {
            "kind": "action",
            "content": "Add a file lock around the temp directory creation in the setup code",
        },
        {
            "kind": "observation",
            "content": "50 consecutive runs green after the lock",
            "cites": [green["memory_id"]],
        },
        {
            "kind": "conclusion",
            "content": "The setup code has a race on the temp directory; the lock fixes it",
        },
    ]
    r = t.post(
        "/v1/reasoning",
        json={
            "task": "Why does test_upload fail intermittently in CI?",
            "steps": steps,
            "produced": {
                "kind": "decision",
                "content": "The setup code has a race; the lock fixes it",
                "confidence": 0.9,
            },
        },
    )
    assert r.status_code == 201, r.text
    return {
        "trace": r.json(),
        "log": log,
        "cache": cache,
        "tz": tz,
        "tmpdir": tmpdir,
        "green": green,
    }


def fulltext_candidates(
    services: Any, namespace: str, text: str, read: str = "recall"
) -> Candidates:
    """The fulltext candidates of `text` (limit 10, the origins `read` may see)."""
    query = RetrievalQuery(
        text=text,
        limit=10,
        kinds=None,
        as_of=utcnow(),
        known_at=None,
        origins=services.policy.origins(read),
    )
    finder = services.retrieval.candidates
    lucene = lucene_query(text)
    return services.graph.read(lambda tx: finder.fulltext(tx, namespace, query, lucene))  # type: ignore[no-any-return]
