"""The MCP tools over both transports: a trace's lineage, challenge and recall; the gate; outcomes."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from mcp import Client

from service.api.errors import MAX_DETAIL_CHARS
from tests.client.conftest import Service
from tests.mcp.conftest import Connect, call, http_client, ok, refused, stdio_client, text_of

pytestmark = pytest.mark.anyio

TOOLS = {
    "remember",
    "record_reasoning",
    "recall",
    "search",
    "get_memory",
    "history",
    "update_memory",
    "lineage",
    "challenge",
    "dependents",
    "invalidate",
    "retract",
    "ingest",
    "record_outcome",
    "find_precedents",
}


def token_of(trace: dict[str, Any]) -> str:
    """Return the story's own token (in its task and decision), so a query can single it out."""
    return str(trace["task"]).rsplit("[", 1)[1].rstrip("]")


def unique(text: str) -> str:
    return f"{text} [{uuid.uuid4().hex[:10]}]"


async def observation(client: Client, content: str) -> str:
    memory, _ = await ok(client, "remember", kind="observation", content=unique(content))
    return str(memory["memory_id"])


async def flaky_story(client: Client) -> tuple[dict[str, Any], dict[str, str]]:
    """Record the flaky-test story through MCP; return the trace and the evidence ids."""
    evidence = {
        "log": await observation(client, "CI log: test_upload failed with connection reset"),
        "cache": await observation(client, "Cache hit rate was normal (98%) during the failures"),
        "race": await observation(client, "gw0 and gw1 both create /tmp/upload-fixture at once"),
    }
    steps = [
        {
            "kind": "observation",
            "content": "test_upload failed with connection reset during setup",
            "cites": [evidence["log"]],
        },
        {
            "kind": "thought",
            "content": "Maybe it is the cache serving a stale fixture",
            "status": "hypothesis",
        },
        {
            "kind": "observation",
            "content": "Cache hit rate was normal during the failures, so the cache is not it",
            "cites": [evidence["cache"]],
            "rejects": [1],
        },
        {
            "kind": "observation",
            "content": "Two workers create the same temp directory /tmp/upload-fixture at once",
            "cites": [evidence["race"]],
        },
        {"kind": "action", "content": "Add a file lock around the temp directory creation"},
        {
            "kind": "conclusion",
            "content": "The setup code has a race on the temp directory; the lock fixes it",
        },
    ]
    token = uuid.uuid4().hex[:10]
    trace, text = await ok(
        client,
        "record_reasoning",
        task=f"Why does test_upload fail intermittently in CI? [{token}]",
        steps=steps,
        produced={"kind": "decision", "content": f"Lock the upload fixture directory [{token}]"},
    )
    assert "Reasoning trace" in text and "(rejected by step 2)" in text
    return trace, evidence


async def test_tools_are_listed_with_descriptions_and_schemas(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as client:
        tools = (await client.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.description and len(tool.description) > 40, tool.name
        assert tool.input_schema["type"] == "object", tool.name
    steps = next(t for t in tools if t.name == "record_reasoning").input_schema
    assert steps["required"] == ["task", "steps"]


async def test_record_lineage_challenge_recall(connect: Connect, service: Service) -> None:
    async with connect(service.key_a) as client:
        trace, evidence = await flaky_story(client)
        decision = trace["produced"][0]
        assert trace["quality"]["verdict"] in ("accepted", "poor")

        lineage, text = await ok(client, "lineage", memory_id=decision["memory_id"])
        assert [t["trace_id"] for t in lineage["traces"]] == [trace["trace_id"]]
        assert "0. [observation] test_upload failed" in text
        assert "1. [thought, hypothesis] Maybe it is the cache" in text
        assert "(rejected by step 2)" in text
        assert f"cites {evidence['cache']} v1 (still valid)" in text

        await ok(client, "invalidate", memory_id=evidence["race"], reason="the logs were misread")
        challenged, text = await ok(
            client, "challenge", memory_id=decision["memory_id"], reason="fails again"
        )
        assert challenged["memory"]["status"] == "challenged"
        assert [(r["step"], r["memory_id"], r["change"]) for r in challenged["revisit"]] == [
            (3, evidence["race"], "invalidated")
        ]
        assert f"step 3: cited {evidence['race']} v1 was invalidated" in text

        recalled, text = await ok(
            client,
            "recall",
            query=f"why does test_upload fail intermittently in CI {token_of(trace)}",
            limit=20,
        )
        ids = [item["memory_id"] for item in recalled["items"]]
        assert trace["trace_id"] in ids
        assert recalled["count"] == len(ids)
        assert text.startswith(f"{len(ids)} recall result(s)")


async def test_gate_refusal_is_a_tool_error_naming_the_issues(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as client:
        ev = await observation(client, "cache metrics are normal")
        result = await call(
            client,
            "record_reasoning",
            task="why 500s?",
            steps=[
                {
                    "kind": "thought",
                    "content": "maybe the cache layer is broken",
                    "status": "hypothesis",
                },
                {
                    "kind": "observation",
                    "content": "cache metrics are normal, cache layer is fine",
                    "cites": [ev],
                    "rejects": [0],
                },
                {"kind": "conclusion", "content": "the cache layer is broken"},
            ],
        )
    assert result.is_error
    assert result.structured_content is not None
    error = result.structured_content["error"]
    assert (error["status"], error["code"]) == (422, "reasoning.rejected")
    issues = error["quality"]["issues"]
    assert issues
    text = text_of(result)
    assert "Refused: reasoning.rejected (HTTP 422)" in text
    for issue in issues:
        assert issue["code"] in text


async def test_get_memory_history_dependents_search_and_bad_input(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as client:
        trace, evidence = await flaky_story(client)
        log = evidence["log"]
        memory, text = await ok(client, "get_memory", memory_id=log)
        assert memory["memory_id"] == log and text.startswith("[observation] CI log")
        error = await refused(client, "get_memory", memory_id=log, known_at="2000-01-01T00:00:00Z")
        assert error["code"] == "memory.not_found"
        error = await refused(client, "get_memory", memory_id=log, as_of="yesterday")
        assert (error["status"], error["code"]) == (422, "input.invalid")

        # A trace comes whole, every step, however long its flattened text (trial 18: a
        # 135-step session showed steps 0-42, cut at the 20,000 characters of its content).
        long_steps = [
            {"kind": "observation", "content": f"worker {i} log: {uuid.uuid4().hex} " * 12}
            for i in range(40)
        ]
        long_steps.append({"kind": "conclusion", "content": "every worker log was read"})
        long, _ = await ok(
            client, "record_reasoning", task="Read every worker log", steps=long_steps
        )
        whole, text = await ok(client, "get_memory", memory_id=long["trace_id"])
        assert len(whole["content"]) <= 20_000 < sum(len(st["content"]) for st in long_steps)
        assert len(whole["steps"]) == 41
        assert "40. [conclusion] every worker log was read" in text
        history, _ = await ok(client, "history", memory_id=log)
        assert [v["version"] for v in history["items"]] == [1]
        dependents, text = await ok(client, "dependents", memory_id=log)
        assert [d["memory_id"] for d in dependents["items"]] == [trace["produced"][0]["memory_id"]]
        assert text.startswith("Decisions resting on it (1):")

        query = f"test_upload fails intermittently in CI {token_of(trace)}"
        found, _ = await ok(client, "search", query=query, limit=50)
        assert trace["trace_id"] in [i["memory_id"] for i in found["items"]]
        assert all("origin" in i for i in found["items"])

        retracted, text = await ok(client, "retract", memory_id=log, reason="wrong run")
        assert retracted["system_to"] is not None and text.startswith("Retracted: ")


async def test_remember_is_idempotent_and_ingest_reports(
    connect: Connect, service: Service
) -> None:
    content = unique("Alice lives in District 2")
    async with connect(service.key_a) as client:
        first, text = await ok(client, "remember", kind="fact", content=content)
        again, text_again = await ok(client, "remember", kind="fact", content=content)
        assert first["created"] is True and again["created"] is False
        assert again["memory_id"] == first["memory_id"]
        assert text.startswith("Created: [fact]") and text_again.startswith("Already known")

        note = unique("We chose PostgreSQL over MySQL because we need transactional DDL.")
        report, text = await ok(client, "ingest", content=note, source_name="notes.md")
        assert report["new"] is True and report["format"] == "text"
        assert report["memory_ids"]
        assert text.startswith("Ingested notes.md as text (new")


async def test_outcome_challenges_and_precedents_find_it(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as client:
        trace, _ = await flaky_story(client)
        decision = trace["produced"][0]["memory_id"]
        recorded, text = await ok(
            client,
            "record_outcome",
            decision_id=decision,
            result="failure",
            content="test_upload failed again in CI after the lock",
        )
        assert recorded["challenged"] is True and recorded["decision"]["status"] == "challenged"
        assert "made the decision challenged" in text

        lineage, text = await ok(client, "lineage", memory_id=decision)
        assert [o["outcome_id"] for o in lineage["outcomes"]] == [recorded["outcome_id"]]
        assert "Outcomes: " in text and "failure: test_upload failed again" in text

        found, text = await ok(
            client,
            "find_precedents",
            situation=f"test_upload fails intermittently in CI {token_of(trace)}",
            limit=20,
        )
        ids = [p["decision"]["memory_id"] for p in found["items"]]
        assert decision in ids
        assert "precedent(s), best first" in text


async def test_an_outcome_observed_in_the_future_is_refused(
    connect: Connect, service: Service
) -> None:
    # The tool records through the same domain check as REST (`outcomes.check_observed_at`).
    async with connect(service.key_a) as client:
        decision, _ = await ok(
            client,
            "remember",
            kind="decision",
            content=unique("Cache the build"),
            valid_from="2024-01-01T00:00:00Z",
        )
        error = await refused(
            client,
            "record_outcome",
            decision_id=decision["memory_id"],
            result="failure",
            content="The build cache broke the release",
            observed_at="2099-01-01T00:00:00Z",
        )
        assert error["code"] == "input.invalid"
        assert "2099-01-01T00:00:00Z is in the future" in error["detail"]
        current, _ = await ok(client, "get_memory", memory_id=decision["memory_id"])
        assert (current["version"], current["status"]) == (1, "active")


async def test_invalidating_an_invalidated_memory_is_the_rest_409(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as client:
        fact, _ = await ok(
            client,
            "remember",
            kind="fact",
            content=unique("The build cache lives on the runner's disk"),
            valid_from="2024-01-01T00:00:00Z",
        )
        memory_id = fact["memory_id"]
        await ok(
            client,
            "invalidate",
            memory_id=memory_id,
            reason="moved",
            valid_to="2024-06-01T00:00:00Z",
        )
        error = await refused(client, "invalidate", memory_id=memory_id, reason="moved again")
        assert error == {
            "status": 409,
            "code": "conflict",
            "detail": f"memory {memory_id} was already invalidated: it stopped being true at "
            "2024-06-01T00:00:00Z",
        }
        history, _ = await ok(client, "history", memory_id=memory_id)
        assert history["count"] == 2


async def test_both_transports_return_the_same_structured_content(service: Service) -> None:
    async with http_client(service, service.key_a) as client:
        trace, _ = await flaky_story(client)
        decision = trace["produced"][0]["memory_id"]
        over_http = await ok(client, "lineage", memory_id=decision)
    async with stdio_client(service, service.key_a) as client:
        over_stdio = await ok(client, "lineage", memory_id=decision)
    assert over_http == over_stdio


async def test_a_huge_unknown_id_is_not_echoed_whole(connect: Connect, service: Service) -> None:
    # REST cuts a domain error's detail at MAX_DETAIL_CHARS; the in-process HTTP mount did not.
    async with connect(service.key_a) as client:
        error = await refused(client, "get_memory", memory_id="z" * 60_000)
        assert error["code"] == "memory.not_found"
        assert len(error["detail"]) <= MAX_DETAIL_CHARS + 40
        result = await call(client, "get_memory", memory_id="z" * 60_000)
        assert len(text_of(result)) < 5_000


async def test_every_text_numbers_steps_from_0_as_rejects_does(
    connect: Connect, service: Service
) -> None:
    # Step 1 is the hypothesis that step 2 rules out (`"rejects": [1]`): the stored trace text
    # (get_memory, history) numbered it 1, lineage and record_reasoning 2.
    async with connect(service.key_a) as client:
        trace, _ = await flaky_story(client)
        _, stored = await ok(client, "get_memory", memory_id=trace["trace_id"])
        _, versions = await ok(client, "history", memory_id=trace["trace_id"])
        _, lineage = await ok(client, "lineage", memory_id=trace["produced"][0]["memory_id"])
    # The stored text, its later lines indented under the version's item.
    assert "\n   1. thought [hypothesis]: Maybe it is the cache" in versions
    for text in (stored, lineage):  # get_memory shows a trace whole, as lineage does
        assert "\n1. [thought, hypothesis] Maybe it is the cache serving a stale fixture " in text
        assert "(rejected by step 2)" in text
        assert "\n2. [observation] Cache hit rate was normal" in text
        assert "(rules out step 1)" in text


#: Ids no REST route takes (a "/" is decoded before routing; httpx resolves "." and "..").
#: `batch`: `/v1/memories/batch` is the batch resource (a 405 over stdio before, trial 10).
ODD_IDS = ("a/b", "a/b/history", "/", ".", "..", "x" * 2_000 + "/y", "batch")


async def test_an_id_no_rest_route_takes_is_answered_as_over_http(service: Service) -> None:
    # Over stdio the service's router answered a bare 404 `not_found` "Not Found" (or another
    # route's answer for "." and ".."), over HTTP the domain's `memory.not_found`.
    reads: list[tuple[str, dict[str, Any]]] = [
        (tool, {"memory_id": memory_id})
        for memory_id in ODD_IDS
        for tool in ("get_memory", "history", "lineage", "dependents")
    ]
    reads.append(("get_memory", {"memory_id": "a/b", "as_of": "2024-01-01T00:00:00Z"}))
    writes: list[tuple[str, dict[str, Any]]] = [
        (tool, {"memory_id": memory_id, "reason": "r"})
        for memory_id in ("a/b", "..")
        for tool in ("challenge", "invalidate", "retract")
    ]
    writes.append(("record_outcome", {"decision_id": "a/b", "result": "failure", "content": "x"}))
    writes.append(("invalidate", {"memory_id": "a/b", "reason": "r", "valid_to": "yesterday"}))
    answers: dict[str, list[dict[str, Any]]] = {}
    for opener in (http_client, stdio_client):
        for key in (service.key_a, service.key_a_read):
            async with opener(service, key) as client:
                answers[f"{opener.__name__} {key}"] = [
                    await refused(client, tool, **args) for tool, args in reads + writes
                ]
    for key in (service.key_a, service.key_a_read):
        over_stdio, over_http = answers[f"stdio_client {key}"], answers[f"http_client {key}"]
        assert over_stdio[:-1] == over_http[:-1]
        # The last is a bad `valid_to`: the 422 detail's form differs between the transports.
        assert over_stdio[-1]["code"] == over_http[-1]["code"]
    first = answers[f"stdio_client {service.key_a}"][0]
    assert first == {"status": 404, "code": "memory.not_found", "detail": "memory a/b not found"}
    assert answers[f"stdio_client {service.key_a}"][-1]["code"] == "input.invalid"
    read_only = answers[f"stdio_client {service.key_a_read}"]
    assert [e["code"] for e in read_only[len(reads) :]] == ["auth.forbidden"] * len(writes)
    async with stdio_client(service, "nope") as client:
        error = await refused(client, "get_memory", memory_id="a/b")
    assert (error["status"], error["code"]) == (401, "auth.invalid_key")


async def test_the_same_reasoning_again_says_it_was_already_recorded(
    connect: Connect, service: Service
) -> None:
    # A trial: the second identical record_reasoning had created: false in its structured
    # content but the same text as the first, so a model reading the text could not tell.
    task = unique("Why is the nightly export slow?")
    steps = [
        {"kind": "observation", "content": "The export scans the whole orders table"},
        {"kind": "conclusion", "content": "The export needs an index on orders.created_at"},
    ]
    async with connect(service.key_a) as client:
        first, text = await ok(client, "record_reasoning", task=task, steps=steps)
        again, text_again = await ok(client, "record_reasoning", task=task, steps=steps)
    assert first["created"] is True and text.startswith("Reasoning trace")
    assert again["created"] is False and again["trace_id"] == first["trace_id"]
    assert text_again.startswith("Already recorded (nothing written)")


async def test_record_reasoning_takes_the_produced_memory_s_valid_from(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as client:
        ev = await observation(client, f"pg_upgrade log: cluster on PostgreSQL 17 {uuid.uuid4()}")
        trace, _ = await ok(
            client,
            "record_reasoning",
            task="Which PostgreSQL version does the payments service run?",
            steps=[
                {"kind": "observation", "content": "pg_upgrade log: on 17", "cites": [ev]},
                {"kind": "conclusion", "content": "The payments service runs PostgreSQL 17"},
            ],
            produced={
                "content": "Run the payments service on PostgreSQL 17",
                "valid_from": "2024-05-01T12:00:00Z",
            },
        )
        assert trace["produced"][0]["valid_from"].startswith("2024-05-01T12:00:00")
        assert not trace["system_from"].startswith("2024-05-01")
