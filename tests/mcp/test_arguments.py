"""Tool arguments over both transports: schema breaches are the REST 422, unknown ones refused."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.client.conftest import Service
from tests.mcp.conftest import Connect, call, http_client, ok, refused, stdio_client, text_of
from tests.mcp.test_auth import MCP_HEADERS

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
        # REST's location (`query`, `body`) is no argument: stdio names the argument as /mcp.
        ("get_memory", {"memory_id": "m", "as_of": "soon"}, "as_of"),
        ("lineage", {"memory_id": "m", "known_at": "soon"}, "known_at"),
        ("remember", {"kind": "fact", "content": "x", "valid_from": "soon"}, "valid_from"),
        (
            "record_outcome",
            {"decision_id": "m", "result": "success", "content": "x", "observed_at": "soon"},
            "observed_at",
        ),
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


async def test_a_refusal_of_an_argument_is_the_same_over_both_transports(
    service: Service,
) -> None:
    # A fresh-user trial: stdio said `loc: ["query", "as_of"]` (REST's), /mcp `["as_of"]`.
    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_memory", {"memory_id": "m", "as_of": "soon"}),
        ("lineage", {"memory_id": "m", "as_of": "2024-01-01T00:00:00Z", "known_at": "then"}),
        ("remember", {"kind": "fact", "content": "x", "valid_to": "2024-13-01T00:00:00Z"}),
    ]
    errors = []
    for opener in (http_client, stdio_client):
        async with opener(service, service.key_a) as client:
            errors.append([await refused(client, tool, **args) for tool, args in calls])
    over_http, over_stdio = errors
    assert over_stdio == over_http
    assert [[e["loc"] for e in error["detail"]] for error in over_http] == [
        [["as_of"]],
        [["known_at"]],
        [["valid_to"]],
    ]


#: Raw JSON (which the SDK clients cannot send): Python's parser reads NaN and Infinity.
NON_FINITE = [
    ("remember", '{"kind": "fact", "content": "x", "confidence": NaN}', "confidence"),
    ("remember", '{"kind": "fact", "content": "x", "confidence": -Infinity}', "confidence"),
    ("remember", '{"kind": "observation", "content": "x", "position": Infinity}', "position"),
    ("recall", '{"query": "x", "limit": NaN}', "limit"),
    ("search", '{"query": "x", "limit": Infinity}', "limit"),
    ("find_precedents", '{"situation": "x", "limit": NaN}', "limit"),
    (
        "record_reasoning",
        '{"task": "t", "steps": [{"kind": "observation", "content": "a", "rejects": [NaN]}]}',
        "steps.0.rejects.0",
    ),
    (
        "record_reasoning",
        '{"task": "t", "steps": [{"kind": "observation", "content": "a"}], '
        '"produced": {"content": "d", "confidence": NaN}}',
        "produced.confidence",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "argument"), NON_FINITE)
async def test_a_non_finite_number_is_refused_as_rest_refuses_it(
    service: Service, tool: str, arguments: str, argument: str
) -> None:
    # A fresh-user trial: `"confidence": NaN` was "less than or equal to 1" on /mcp and "a
    # finite number" on REST.
    headers = {
        **MCP_HEADERS,
        "Authorization": f"Bearer {service.key_a}",
        "Content-Type": "application/json",
    }
    message = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
        f'"params": {{"name": "{tool}", "arguments": {arguments}}}}}'
    )
    async with httpx.AsyncClient(timeout=30.0) as http:
        r = await http.post(f"{service.base_url}/mcp", content=message, headers=headers)
        rest = await http.post(
            f"{service.base_url}/v1/memories",
            content='{"kind": "fact", "content": "x", "confidence": NaN}',
            headers={
                "Authorization": f"Bearer {service.key_a}",
                "Content-Type": "application/json",
            },
        )
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert result["isError"] is True, result
    error = result["structuredContent"]["error"]
    assert (error["status"], error["code"]) == (422, "input.invalid")
    issues = [(".".join(map(str, e["loc"])), e["msg"]) for e in error["detail"]]
    assert [loc for loc, _ in issues] == [argument]
    assert issues[0][1].startswith("Input should be a finite number"), issues
    assert rest.status_code == 422, rest.text
    if argument.endswith("confidence"):  # the same message as REST's for its own NaN
        assert issues[0][1] == rest.json()["detail"][0]["msg"]
