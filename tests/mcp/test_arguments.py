"""Tool arguments over both transports: schema breaches are the REST 422, unknown ones refused."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.client.conftest import Service
from tests.mcp.conftest import Connect, call, ok, refused, text_of

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("tool", "arguments", "argument"),
    [
        ("recall", {"query": "x", "limit": 101}, "limit"),
        ("recall", {"query": "x", "kinds": []}, "kinds"),
        ("search", {"query": "x", "limit": 0}, "limit"),
        ("remember", {"kind": "fact"}, "content"),
        ("remember", {"kind": "observation", "content": "x", "position": 2**63}, "position"),
        ("remember", {"kind": "observation", "content": "x", "position": -1}, "position"),
        ("find_precedents", {"situation": "x", "limit": 101}, "limit"),
        ("find_precedents", {"situation": "x", "kinds": []}, "kinds"),
        ("record_reasoning", {"task": "t", "steps": []}, "steps"),
        ("get_memory", {"memory_id": "m", "bogus": 1}, "bogus"),
        ("search", {"query": "x", "origins": []}, "origins"),
        ("search", {"query": "x", "origins": ["robot"]}, "origins.0"),
        # No coercions, as REST bodies (JsonInt, strict booleans and numbers):
        ("recall", {"query": "x", "limit": "5"}, "limit"),
        ("recall", {"query": "x", "limit": True}, "limit"),
        ("recall", {"query": "x", "limit": 5.5}, "limit"),
        ("search", {"query": "x", "limit": "5"}, "limit"),
        ("search", {"query": "x", "include_superseded": "true"}, "include_superseded"),
        ("search", {"query": "x", "include_superseded": 1}, "include_superseded"),
        ("find_precedents", {"situation": "x", "limit": "5"}, "limit"),
        ("remember", {"kind": "observation", "content": "x", "position": "3"}, "position"),
        ("remember", {"kind": "observation", "content": "x", "confidence": "0.5"}, "confidence"),
        (
            "record_reasoning",
            {"task": "t", "steps": [{"kind": "observation", "content": "a", "rejects": ["0"]}]},
            "steps.0.rejects.0",
        ),
        (
            "record_reasoning",
            {
                "task": "t",
                "steps": [{"kind": "observation", "content": "a"}],
                "produced": {"content": "d", "confidence": "0.9"},
            },
            "produced.confidence",
        ),
    ],
)
async def test_a_schema_breach_is_the_rest_422_naming_the_argument(
    connect: Connect, service: Service, tool: str, arguments: dict[str, Any], argument: str
) -> None:
    async with connect(service.key_a) as client:
        result = await call(client, tool, **arguments)
    assert result.is_error
    assert result.structured_content is not None, text_of(result)
    error = result.structured_content["error"]
    assert (error["status"], error["code"]) == (422, "input.invalid")
    assert [".".join(map(str, e["loc"])) for e in error["detail"]] == [argument]
    text = text_of(result)
    assert text.startswith("Refused: input.invalid (HTTP 422)")
    assert f"- {argument}: " in text
    assert "pydantic" not in text and "validation error for" not in text


async def test_unknown_arguments_are_refused_and_nothing_is_written(
    connect: Connect, service: Service
) -> None:
    content = f"bogus argument probe {uuid.uuid4().hex}"
    async with connect(service.key_a) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            assert tool.input_schema.get("additionalProperties") is False, tool.name
        error = await refused(client, "remember", kind="observation", content=content, bogus=1)
        assert (error["status"], error["code"]) == (422, "input.invalid")
        assert [e["loc"] for e in error["detail"]] == [["bogus"]]
        found, _ = await ok(client, "search", query=content, limit=100)
    assert content not in [item.get("content") for item in found["items"]]  # traces: none


async def test_remember_takes_episode_position_and_context_like_rest(
    connect: Connect, service: Service
) -> None:
    token = uuid.uuid4().hex[:10]
    async with connect(service.key_a) as client:
        memory, _ = await ok(
            client,
            "remember",
            kind="observation",
            content=f"the deploy finished at noon ({token})",
            episode=f"session-{token}",
            position=2**63 - 1,
            context=f"Deploy log of run zq{token}",
        )
        got, _ = await ok(client, "get_memory", memory_id=memory["memory_id"])
        found, _ = await ok(client, "search", query=f"zq{token}", limit=5)
    assert memory["created"] is True
    for answer in (memory, got):
        assert answer["episode"] == f"session-{token}"
        assert answer["position"] == 2**63 - 1
    # The context is not part of the content, but it is indexed with it for lexical search.
    assert got["content"] == f"the deploy finished at noon ({token})"
    assert memory["memory_id"] in [item["memory_id"] for item in found["items"]]


async def test_a_coerced_argument_writes_nothing_and_an_integral_float_is_an_integer(
    connect: Connect, service: Service
) -> None:
    content = f"coercion probe {uuid.uuid4().hex}"
    async with connect(service.key_a) as client:
        error = await refused(
            client, "remember", kind="decision", content=content, confidence="0.9"
        )
        assert (error["status"], error["code"]) == (422, "input.invalid")
        assert [e["loc"] for e in error["detail"]] == [["confidence"]]
        found, _ = await ok(client, "search", query=content, limit=5.0)
    # REST takes `"limit": 5.0` (JSON Schema's integer); the tools do too.
    assert content not in [item.get("content") for item in found["items"]]
