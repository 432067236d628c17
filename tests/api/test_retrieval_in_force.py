"""A trace whose conclusion no longer holds ranks below the reasoning that replaced it.

Fresh-user trial 15: "which HTTP library should backend packages use?" put ADR013, superseded
by ADR014, first; its decision was closed by the supersession, but its trace (immutable) still
matched best, and nothing in the answer said it no longer applied.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import Tenant

OLD = """# ADR 13: Use node-fetch for HTTP requests in backend packages

## Status

Superseded by ADR 14

## Context

Backend packages use several HTTP libraries for fetching data; keeping them all up to date is
a burden.

## Decision

Backend packages use node-fetch for every HTTP request.

## Consequences

One HTTP library to keep up to date.
"""

NEW = """# ADR 14: Use native fetch for HTTP requests in backend packages

## Status

Accepted

Supersedes ADR 13

## Context

Node.js 20 ships a stable fetch built on undici; node-fetch has issues on newer Node.js.

## Decision

Backend packages use the native fetch of Node.js for HTTP requests.

## Consequences

No third-party HTTP library in backend packages.
"""


def ingest(tenant: Tenant, text: str, name: str) -> dict[str, Any]:
    r = tenant.post("/v1/ingest", json={"format": "adr", "content": text, "source_name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def test_the_trace_of_a_superseded_decision_ranks_below_its_successor(tenant: Tenant) -> None:
    old = ingest(tenant, OLD, "0013-use-node-fetch.md")
    new = ingest(tenant, NEW, "0014-use-native-fetch.md")
    query = "which library should backend packages use for HTTP requests?"
    for door in ("recall", "search"):
        items = tenant.post(f"/v1/{door}", json={"query": query, "limit": 10}).json()["items"]
        traces = [i for i in items if i["kind"] == "reasoning"]
        assert [t["memory_id"] for t in traces] == [*new["trace_ids"], *old["trace_ids"]], door
        assert [t["in_force"] for t in traces] == [True, False], door
        assert all(i.get("in_force") is None for i in items if i["kind"] != "reasoning"), door
    # A page of traces only (read whole, without list_hits) says so and ranks them alike.
    for door in ("recall", "search"):
        page = tenant.post(
            f"/v1/{door}", json={"query": query, "limit": 10, "kinds": ["reasoning"]}
        ).json()["items"]
        assert [t["memory_id"] for t in page] == [*new["trace_ids"], *old["trace_ids"]], door
        assert [t["in_force"] for t in page] == [True, False], door
    # A history read (superseded versions too) says nothing of what holds now.
    history = tenant.post(
        "/v1/search", json={"query": query, "limit": 10, "include_superseded": True}
    ).json()["items"]
    assert all(i.get("in_force") is None for i in history)


def test_mcp_says_a_traces_conclusion_no_longer_holds() -> None:
    from service.mcp import render

    item = {
        "kind": "reasoning",
        "score": 0.5,
        "origin": "ingestion",
        "in_force": False,
        "task": "ADR 13",
        "steps": [],
    }
    assert "its conclusion no longer holds" in render.ranked({"items": [item]}, "recall")
    assert "no longer holds" not in render.ranked({"items": [{**item, "in_force": True}]}, "recall")


STORE = """# ADR 3: Session store for the customer portal

## Status

Superseded by ADR 5

## Context

The customer portal keeps login sessions in the heap of each node; a deploy logs every user
out.

## Decision

The customer portal keeps its sessions in Redis (ElastiCache).
"""

MOVE = """# ADR 5: Move portal sessions from Redis to Valkey

## Status

Accepted

Supersedes ADR 3

## Context

Redis changed its licence; Valkey is cheaper for the same nodes.

## Decision

Portal sessions move to ElastiCache for Valkey.
"""


def test_the_replacement_ranks_first_when_the_superseded_one_matches_better(
    tenant: Tenant,
) -> None:
    """Trial 22: ADR 3's title is the question almost word for word; at half its score it
    still ranked above ADR 5, which replaced it."""
    old = ingest(tenant, STORE, "0003-session-store.md")
    new = ingest(tenant, MOVE, "0005-move-sessions-to-valkey.md")
    query = "which session store does the customer portal use"
    for door in ("recall", "search"):
        for kinds in (None, ["reasoning"]):
            items = tenant.post(
                f"/v1/{door}", json={"query": query, "limit": 10, "kinds": kinds}
            ).json()["items"]
            # A trace is an item, or rides with the decision it produced (`reasoning`).
            stories = [
                i["memory_id"]
                if i["kind"] == "reasoning"
                else (i.get("reasoning") or {}).get("trace_id")
                for i in items
            ]
            traces = [t for t in stories if t in {*new["trace_ids"], *old["trace_ids"]}]
            assert traces == [*new["trace_ids"], *old["trace_ids"]], (door, kinds)


def test_a_decision_no_longer_in_force_is_not_marked_challenged(tenant: Tenant) -> None:
    """Trial 22: challenging the superseded ADR 3 wrote a `challenged` v4 ending in the past."""
    for text, name in ((STORE, "0003-session-store.md"), (MOVE, "0005-move.md")):
        r = tenant.post("/v1/ingest", json={"format": "adr", "content": text, "source_name": name})
        assert r.status_code == 201, r.text
    found = tenant.post(
        "/v1/search",
        json={"query": "sessions in Redis", "kinds": ["decision"], "include_superseded": True},
    ).json()["items"]
    old = next(i for i in found if i["content"].startswith("ADR 3:"))
    before = tenant.get(f"/v1/memories/{old['memory_id']}/history").json()
    r = tenant.post(f"/v1/memories/{old['memory_id']}/challenge", json={"reason": "cost doubled"})
    assert r.status_code == 200, r.text
    assert r.json()["memory"]["status"] != "challenged"
    assert r.json()["memory"]["valid_to"] is not None
    assert tenant.get(f"/v1/memories/{old['memory_id']}/history").json() == before
