"""Outcomes: recorded on decisions, challenging them, in lineage and challenge, confidence (issue 14)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import Driver

from service.domain.outcomes.store import MAX_CLOCK_SKEW
from tests.conftest import Tenant
from tests.factories import flaky_test_story, memory


def count_nodes(driver: Driver, namespace: str) -> tuple[int, int]:
    with driver.session() as s:
        record = s.run(
            "MATCH (n {namespace: $ns}) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, "
            "count(r) AS r",
            ns=namespace,
        ).single()
        assert record is not None
        return int(record["n"]), int(record["r"])


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def outcome(t: Tenant, decision_id: str, result: str, content: str, **kw: Any) -> dict[str, Any]:
    r = t.post(
        f"/v1/memories/{decision_id}/outcomes", json={"result": result, "content": content, **kw}
    )
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_seed_story_outcomes_end_to_end(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    decision = story["trace"]["produced"][0]
    did = decision["memory_id"]
    t0 = parse(decision["valid_from"])
    # The decision took effect just now and an outcome is never observed in the future: both
    # outcomes are observed between then and now.
    span = datetime.now(UTC) - t0

    ok = outcome(
        tenant,
        did,
        "success",
        "CI green for a week after the lock on the upload fixture",
        observed_at=iso(t0 + span / 3),
        actor="ci-bot",
    )
    assert ok["result"] == "success" and ok["challenged"] is False
    assert ok["decision"]["status"] == "active" and ok["decision"]["version"] == 1
    assert ok["observed_at"].startswith(iso(t0 + span / 3)[:19])
    assert ok["created_by"] == {"origin": "user", "actor": "ci-bot"}

    # the outcome is an observation memory like any other, bi-temporal, origin from the door
    obs = tenant.get(f"/v1/memories/{ok['outcome_id']}").json()
    assert obs["kind"] == "observation" and obs["created_by"]["origin"] == "user"
    assert obs["valid_from"] == ok["observed_at"]

    fail = outcome(
        tenant,
        did,
        "failure",
        "test_upload failed again in CI: connection reset during setup, three weeks on",
        observed_at=iso(t0 + span * 2 / 3),
        cites=[story["log"]["memory_id"]],
        actor="ci-bot",
    )
    assert fail["challenged"] is True and fail["decision_version"] == 1
    v2 = fail["decision"]
    assert (v2["version"], v2["status"]) == (2, "challenged")
    assert v2["created_by"] == decision["created_by"]
    assert v2["last_modified_by"] == {"origin": "user", "actor": "ci-bot"}
    assert fail["cites"] == [story["log"]["memory_id"]]

    listed = tenant.get(f"/v1/memories/{did}/outcomes").json()
    assert [o["result"] for o in listed["items"]] == ["success", "failure"]
    assert listed["count"] == 2

    lineage = tenant.get(f"/v1/memories/{did}/lineage").json()
    assert [o["outcome_id"] for o in lineage["outcomes"]] == [ok["outcome_id"], fail["outcome_id"]]
    assert lineage["outcome_record"]["summary"] == "1 success, 1 failure"
    assert lineage["outcome_record"]["last_result"] == "failure"
    assert len(lineage["traces"]) == 1 and len(lineage["traces"][0]["steps"]) == 9

    # challenge: the outcomes recorded since the trace; nothing to revisit yet
    ch = tenant.post(f"/v1/memories/{did}/challenge", json={"reason": "it failed again"}).json()
    assert [o["outcome_id"] for o in ch["outcomes_since"]] == [ok["outcome_id"], fail["outcome_id"]]
    assert ch["revisit"] == []
    assert ch["memory"]["version"] == 2  # already challenged: no new version

    # the log line is re-read: the step that cited it is to be revisited
    log_id = story["log"]["memory_id"]
    r = tenant.patch(
        f"/v1/memories/{log_id}",
        json={"content": "CI log: test_upload failed with a timeout during teardown"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200, r.text
    ch = tenant.post(f"/v1/memories/{did}/challenge", json={"reason": "log re-read"}).json()
    assert [(x["step"], x["memory_id"], x["change"]) for x in ch["revisit"]] == [
        (0, log_id, "superseded")
    ]
    assert fail["outcome_id"] in [o["outcome_id"] for o in ch["outcomes_since"]]

    # outcome-confidence: Beta(1,1) mean with 1 success, 1 failure = 0.5, times the drift
    # factor 1 - 0.5 x 1 changed / 5 cited = 0.9 -> 0.45
    run = tenant.post("/v1/maintenance/run", json={"job": "outcome-confidence"})
    assert run.status_code == 200, run.text
    report = run.json()
    assert (report["changed"], report["memory_ids"]) == (1, [did])
    (job_trace,) = report["trace_ids"]
    current = tenant.get(f"/v1/memories/{did}").json()
    assert current["confidence"] == 0.45 < decision["confidence"]
    assert current["created_by"] == decision["created_by"]
    assert current["last_modified_by"] == {
        "origin": "maintenance",
        "actor": "job:outcome-confidence",
    }
    assert current["status"] == "challenged"
    again = tenant.post("/v1/maintenance/run", json={"job": "outcome-confidence"}).json()
    assert again["changed"] == 0 and again["trace_ids"] == []
    assert tenant.get(f"/v1/memories/{did}").json()["version"] == current["version"]

    trace = tenant.get(f"/v1/reasoning/{job_trace}").json()
    assert trace["created_by"]["origin"] == "maintenance"
    cited = {c["memory_id"] for s in trace["steps"] for c in s["cites"]}
    assert {ok["outcome_id"], fail["outcome_id"]} <= cited
    assert "0.45" in trace["conclusion"]

    lineage = tenant.get(f"/v1/memories/{did}/lineage").json()
    assert job_trace in [t["trace_id"] for t in lineage["traces"]]
    query = "outcome confidence of the decision: the setup code has a race; the lock fixes it"
    found = tenant.post("/v1/search", json={"query": query, "limit": 20}).json()
    assert job_trace in [i["memory_id"] for i in found["items"]]
    recalled = tenant.post("/v1/recall", json={"query": query, "limit": 50}).json()
    ids = [i["memory_id"] for i in recalled["items"]]
    assert job_trace not in ids and did in ids

    # precedents: this decision first, with its outcome record
    prec = tenant.post(
        "/v1/precedents", json={"situation": "test_upload fails intermittently in CI"}
    )
    assert prec.status_code == 200, prec.text
    first = prec.json()["items"][0]
    assert first["decision"]["memory_id"] == did
    assert first["outcome_record"]["summary"] == "1 success, 1 failure"
    assert (first["outcome_record"]["successes"], first["outcome_record"]["failures"]) == (1, 1)
    assert first["decision"]["status"] == "challenged" and first["decision"]["confidence"] == 0.45
    (brief,) = first["reasoning"]  # the maintenance trace never stands for a precedent
    assert brief["trace_id"] == story["trace"]["trace_id"]
    assert brief["task"] == "Why does test_upload fail intermittently in CI?"
    assert [(h["step"], h["rejected_by"]) for h in brief["hypotheses"]] == [(1, 3), (2, 4)]
    assert {m["via"] for m in first["matched"]} <= {"decision", "reasoning"}
    assert "test_upload" in " ".join(t for m in first["matched"] for t in m["shared_terms"]) or any(
        m["similarity"] for m in first["matched"]
    )


def test_known_at_hides_later_outcomes(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    did = story["trace"]["produced"][0]["memory_id"]
    ok = outcome(tenant, did, "success", "CI green for a week after the lock")
    between = datetime.fromisoformat(ok["recorded_at"].replace("Z", "+00:00")) + timedelta(
        microseconds=1
    )
    fail = outcome(tenant, did, "failure", "test_upload failed again in CI three weeks later")
    assert parse(fail["recorded_at"]) > between

    lin = tenant.get(f"/v1/memories/{did}/lineage", params={"known_at": iso(between)}).json()
    assert [o["outcome_id"] for o in lin["outcomes"]] == [ok["outcome_id"]]
    assert lin["outcome_record"]["summary"] == "1 success"
    assert lin["memory"]["status"] == "active"  # the challenged version came later
    now = tenant.get(f"/v1/memories/{did}/lineage").json()
    assert now["outcome_record"]["summary"] == "1 success, 1 failure"

    listed = tenant.get(f"/v1/memories/{did}/outcomes", params={"known_at": iso(between)}).json()
    assert [o["outcome_id"] for o in listed["items"]] == [ok["outcome_id"]]

    body = {"situation": "test_upload fails intermittently in CI", "known_at": iso(between)}
    then = tenant.post("/v1/precedents", json=body).json()["items"][0]
    assert then["decision"]["memory_id"] == did
    assert then["outcome_record"]["summary"] == "1 success"
    assert then["decision"]["status"] == "active"


def test_mixed_challenges_and_success_does_not(tenant: Tenant) -> None:
    d = memory(tenant, "Use a retry wrapper around the flaky upload", kind="decision")
    r = outcome(tenant, d["memory_id"], "success", "The upload passed with the retry wrapper")
    assert r["decision"]["version"] == 1 and not r["challenged"]
    r = outcome(tenant, d["memory_id"], "mixed", "Passed, but the retries doubled CI time")
    assert r["challenged"] and r["decision"]["status"] == "challenged"
    r = outcome(tenant, d["memory_id"], "failure", "Failed even with three retries")
    assert not r["challenged"] and r["decision"]["version"] == 2  # already challenged


def test_repeat_outcome_is_idempotent(tenant: Tenant, neo4j_driver: Driver) -> None:
    d = memory(tenant, "Pin the fixture directory per worker", kind="decision")
    first = outcome(tenant, d["memory_id"], "failure", "Still failing on gw3")
    before = count_nodes(neo4j_driver, tenant.namespace)
    r = tenant.post(
        f"/v1/memories/{d['memory_id']}/outcomes",
        json={"result": "failure", "content": "Still  failing on gw3"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["created"] is False and r.json()["outcome_id"] == first["outcome_id"]
    assert count_nodes(neo4j_driver, tenant.namespace) == before


def test_the_same_outcome_seen_again_later_is_a_second_outcome(tenant: Tenant) -> None:
    # An outcome is an event: the same failure a week later is counted again (was merged into
    # the first: 200 created false, one failure on record).
    t0 = datetime.now(UTC) - timedelta(days=30)  # outcomes are observed in the past
    d = memory(tenant, "Deploy on Fridays", kind="decision", valid_from=iso(t0))
    ids = []
    for week in (1, 2, 3):
        r = outcome(
            tenant,
            d["memory_id"],
            "failure",
            "The deploy broke production",
            observed_at=iso(t0 + timedelta(days=7 * week)),
        )
        assert r["created"] is True
        ids.append(r["outcome_id"])
    assert len(set(ids)) == 3
    listed = tenant.get(f"/v1/memories/{d['memory_id']}/outcomes").json()
    assert [o["result"] for o in listed["items"]] == ["failure"] * 3
    # a retry of one of them (same text, result and observed_at) writes nothing
    again = tenant.post(
        f"/v1/memories/{d['memory_id']}/outcomes",
        json={
            "result": "failure",
            "content": "The deploy broke production",
            "observed_at": iso(t0 + timedelta(days=14)),
        },
    )
    assert again.status_code == 200 and again.json()["outcome_id"] == ids[1]


def test_one_decisions_outcome_is_never_anothers(tenant: Tenant) -> None:
    # Was: d2's outcome was d1's observation (its observed_at before d2 existed), and retracting
    # it through d2 took d1's outcome away too.
    d1 = memory(tenant, "Cache the wheels", kind="decision")
    first = outcome(tenant, d1["memory_id"], "success", "CI green in four minutes")
    d2 = memory(tenant, "Cache the node modules", kind="decision")
    second = outcome(tenant, d2["memory_id"], "success", "CI green in four minutes")
    assert second["created"] is True and second["outcome_id"] != first["outcome_id"]
    assert parse(second["observed_at"]) >= parse(d2["valid_from"])
    r = tenant.post(f"/v1/memories/{second['outcome_id']}/retract", json={"reason": "wrong run"})
    assert r.status_code == 200, r.text
    kept = tenant.get(f"/v1/memories/{d1['memory_id']}/outcomes").json()["items"]
    assert [o["outcome_id"] for o in kept] == [first["outcome_id"]]
    assert tenant.get(f"/v1/memories/{d2['memory_id']}/outcomes").json()["items"] == []


def test_bad_input_changes_nothing(
    tenant: Tenant, other_tenant: Tenant, neo4j_driver: Driver
) -> None:
    d = memory(tenant, "Add a file lock around the fixture setup", kind="decision")
    fact = memory(tenant, "The CI runs on four workers", kind="fact")
    theirs = memory(other_tenant, "Their decision", kind="decision")
    before = count_nodes(neo4j_driver, tenant.namespace)
    before_other = count_nodes(neo4j_driver, other_tenant.namespace)
    ok = {"result": "failure", "content": "It failed"}

    r = tenant.post("/v1/memories/no-such-decision/outcomes", json=ok)
    assert (r.status_code, r.json()["code"]) == (404, "memory.not_found")
    r = tenant.post(f"/v1/memories/{theirs['memory_id']}/outcomes", json=ok)
    assert (r.status_code, r.json()["code"]) == (404, "memory.not_found")
    r = tenant.post(f"/v1/memories/{fact['memory_id']}/outcomes", json=ok)
    assert (r.status_code, r.json()["code"]) == (422, "outcome.not_a_decision")
    r = tenant.post(
        f"/v1/memories/{d['memory_id']}/outcomes", json={**ok, "result": "partial-success"}
    )
    assert (r.status_code, r.json()["code"]) == (422, "input.invalid")
    r = tenant.post(
        f"/v1/memories/{d['memory_id']}/outcomes", json={**ok, "observed_at": "2024-01-01T00:00"}
    )
    assert r.status_code == 422
    r = tenant.post(f"/v1/memories/{d['memory_id']}/outcomes", json={**ok, "cites": ["nope"]})
    assert (r.status_code, r.json()["code"]) == (422, "reasoning.invalid_reference")
    r = tenant.post(f"/v1/memories/{d['memory_id']}/outcomes", json={**ok, "origin": "maintenance"})
    assert r.status_code == 422  # the origin comes from the door, never the payload

    assert count_nodes(neo4j_driver, tenant.namespace) == before
    assert count_nodes(neo4j_driver, other_tenant.namespace) == before_other
    assert tenant.get(f"/v1/memories/{d['memory_id']}").json()["version"] == 1
    r = tenant.get(f"/v1/memories/{fact['memory_id']}/outcomes")
    assert (r.status_code, r.json()["code"]) == (422, "outcome.not_a_decision")
    assert tenant.get(f"/v1/memories/{theirs['memory_id']}/outcomes").status_code == 404


def test_an_outcome_observed_in_the_future_is_refused_and_writes_nothing(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    # A fresh-user trial: a failure observed in 2099 gave 201 and challenged the decision now.
    d = memory(tenant, "Cache the build", kind="decision", valid_from="2024-01-01T00:00:00Z")
    path = f"/v1/memories/{d['memory_id']}/outcomes"
    before = count_nodes(neo4j_driver, tenant.namespace)
    body = {"result": "failure", "content": "The build cache broke the release"}
    r = tenant.post(path, json={**body, "observed_at": "2099-01-01T00:00:00Z"})
    assert (r.status_code, r.json()["code"]) == (422, "input.invalid"), r.text
    detail = r.json()["detail"]
    assert detail.startswith("observed_at: 2099-01-01T00:00:00Z is in the future"), detail
    said = re.search(r"the server's time is (\S+Z),", detail)
    assert said is not None, detail
    assert abs(parse(said.group(1)) - datetime.now(UTC)) < timedelta(minutes=1)
    assert count_nodes(neo4j_driver, tenant.namespace) == before
    current = tenant.get(f"/v1/memories/{d['memory_id']}").json()
    assert (current["version"], current["status"]) == (1, "active")
    # a caller's clock a little ahead of the server's is allowed
    soon = datetime.now(UTC) + MAX_CLOCK_SKEW / 2
    r = tenant.post(path, json={**body, "observed_at": iso(soon)})
    assert r.status_code == 201, r.text


def test_cli_records_an_outcome_and_finds_precedents(tenant: Tenant) -> None:
    import json

    from typer.testing import CliRunner

    from service.cli import app as cli_app

    story = flaky_test_story(tenant)
    did = story["trace"]["produced"][0]["memory_id"]
    runner = CliRunner()
    args = ["outcome", did, "failure", "test_upload failed again", "-n", tenant.namespace]
    result = runner.invoke(cli_app, [*args, "--actor", "ops"])
    assert result.exit_code == 0, result.output
    recorded = json.loads(result.output)
    assert recorded["challenged"] is True and recorded["outcome"]["result"] == "failure"
    assert recorded["outcome"]["created_by"] == {"origin": "user", "actor": "ops"}
    bad = runner.invoke(cli_app, ["outcome", did, "partial", "x", "-n", tenant.namespace])
    assert bad.exit_code == 2
    late = runner.invoke(cli_app, [*args, "--observed-at", "2024-01-01T00:00"])
    assert late.exit_code == 2
    found = runner.invoke(
        cli_app, ["precedents", "test_upload fails intermittently in CI", "-n", tenant.namespace]
    )
    assert found.exit_code == 0, found.output
    first = json.loads(found.output)["items"][0]
    assert first["decision"]["memory_id"] == did
    assert first["outcome_record"]["summary"] == "1 failure"


def test_ingested_superseded_adr_records_its_outcome(tenant: Tenant) -> None:
    from pathlib import Path

    path = Path("/work/shared/corpus/adrs/jabref/0045-use-input-flag-always-for-input-files.md")
    r = tenant.post(
        "/v1/ingest",
        json={
            "format": "adr",
            "content": path.read_text(encoding="utf-8"),
            "source_name": path.name,
        },
    )
    assert r.status_code in (200, 201), r.text
    trace = tenant.get(f"/v1/reasoning/{r.json()['trace_ids'][0]}").json()
    did = trace["produced"][0]["memory_id"]
    (o,) = tenant.get(f"/v1/memories/{did}/outcomes").json()["items"]
    assert o["result"] == "mixed" and "superseded" in o["content"]
    assert o["created_by"]["origin"] == "ingestion"
    assert o["outcome_id"] in r.json()["memory_ids"]
    assert tenant.get(f"/v1/memories/{did}").json()["status"] == "active"  # supersession decides


def test_material_outcomes_of_a_trajectory_ending_in_a_failed_run() -> None:
    from service.domain.ingestion.outcomes import material_outcomes
    from service.domain.models import IngestUnit

    unit = IngestUnit(key="t1", title="fix the parser", extra={"format": "swe-agent"})
    (o,) = material_outcomes(unit, ["ran it", "==== 2 failed, 10 passed in 0.3s ===="])
    assert (o.result, o.cites) == ("failure", ("obs:1",))
    assert material_outcomes(unit, ["==== 12 passed in 0.3s ===="]) == []
    adr = IngestUnit(
        key="a", title="X", extra={"format": "adr", "status": "accepted; supersedes ADR-1"}
    )
    assert material_outcomes(adr, []) == []
