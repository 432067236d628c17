"""The Neo4j Browser queries (`cypher/browser/`) on a real story: what a person sees is true.

Trial 22: `latest_decisions_table` listed a superseded and a rejected ADR as current decisions,
and `decision_story_table` called an invalidated citation "replaced or retracted".
"""

from __future__ import annotations

from neo4j import Driver

from service.graph.cypher import QueryRegistry
from service.graph.query_names import DevQueryName
from service.graph.repository import Graph
from service.settings import Settings
from tests.conftest import Tenant
from tests.factories import flaky_test_story, memory

SUPERSEDED = """# ADR 3: Keep sessions in Redis

## Status

Superseded by ADR 5

## Decision

The customer portal keeps its sessions in Redis.
"""

SUCCESSOR = """# ADR 5: Move sessions to Valkey

## Status

Accepted

Supersedes ADR 3

## Decision

Portal sessions move to Valkey.
"""


def graph(driver: Driver, settings: Settings) -> Graph:
    return Graph(
        driver,
        QueryRegistry.dev(settings.cypher_dir),
        settings.neo4j_database,
        settings.query_timeout_s,
    )


def test_latest_decisions_lists_the_decisions_in_force(
    tenant: Tenant, neo4j_driver: Driver, settings: Settings
) -> None:
    for text, name in ((SUPERSEDED, "0003-sessions.md"), (SUCCESSOR, "0005-valkey.md")):
        r = tenant.post("/v1/ingest", json={"format": "adr", "content": text, "source_name": name})
        assert r.status_code == 201, r.text
    kept = memory(tenant, "Invoices are stored in Postgres", kind="decision")
    params = {"namespace": tenant.namespace, "limit": 10}
    rows = graph(neo4j_driver, settings).run(DevQueryName.BROWSER_LATEST_DECISIONS_TABLE, params)
    decisions = sorted(str(r["decision"]) for r in rows)
    assert decisions == sorted(
        [kept["content"], "ADR 5: Move sessions to Valkey: Portal sessions move to Valkey."]
    )
    row = graph(neo4j_driver, settings).one(DevQueryName.BROWSER_LATEST_DECISIONS, params)
    assert row is not None
    assert sorted(d["content"] for d in row["decisions"]) == decisions


def test_the_story_says_how_each_citation_stands(
    tenant: Tenant, neo4j_driver: Driver, settings: Settings
) -> None:
    story = flaky_test_story(tenant)
    base = "/v1/memories/{}/"
    r = tenant.post(base.format(story["cache"]["memory_id"]) + "invalidate", json={"reason": "x"})
    assert r.status_code == 200, r.text
    r = tenant.post(base.format(story["tz"]["memory_id"]) + "retract", json={"reason": "wrong"})
    assert r.status_code == 200, r.text
    r = tenant.patch(
        f"/v1/memories/{story['green']['memory_id']}",
        json={"content": "60 consecutive CI runs green after adding the lock"},
        headers={"If-Match": '"1"'},
    )
    assert r.status_code == 200, r.text
    rows = graph(neo4j_driver, settings).run(
        DevQueryName.BROWSER_DECISION_STORY_TABLE,
        {"namespace": tenant.namespace, "decision": story["trace"]["produced"][0]["memory_id"]},
    )
    cites: dict[int, str] = {int(r["step"]): " ".join(r["cites"]) for r in rows if r["cites"]}
    assert "(no longer valid: invalidated " in cites[3]
    assert "(no longer valid: retracted " in cites[4]
    assert "(still valid)" in cites[5]
    assert "(replaced by v2 " in cites[7]
