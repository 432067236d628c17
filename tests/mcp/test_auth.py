"""MCP keys: namespace B never sees A's data through any tool; no key, unknown key, read-only key."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from tests.client.conftest import Service
from tests.mcp.conftest import Connect, http_client, ok, refused, stdio_client
from tests.mcp.test_tools import flaky_story, unique

pytestmark = pytest.mark.anyio

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


async def test_namespace_b_never_sees_a_through_any_tool(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as a:
        trace, evidence = await flaky_story(a)
        decision = trace["produced"][0]["memory_id"]
        await ok(a, "record_outcome", decision_id=decision, result="success", content="green")
    ids = {trace["trace_id"], decision, *evidence.values()}
    async with connect(service.key_b) as b:
        for memory_id in (decision, evidence["log"]):
            for tool in ("get_memory", "history", "lineage", "dependents"):
                error = await refused(b, tool, memory_id=memory_id)
                assert (error["status"], error["code"]) == (404, "memory.not_found"), tool
            for tool, extra in (
                ("challenge", {"reason": "r"}),
                ("invalidate", {"reason": "r"}),
                ("retract", {"reason": "r"}),
            ):
                error = await refused(b, tool, memory_id=memory_id, **extra)
                assert error["status"] == 404, (tool, error)
        error = await refused(
            b, "record_outcome", decision_id=decision, result="failure", content="x"
        )
        assert error["status"] == 404
        query = "why does test_upload fail intermittently in CI temp directory lock"
        for tool, args in (
            ("recall", {"query": query, "limit": 100}),
            ("search", {"query": query, "limit": 100, "include_superseded": True}),
        ):
            answer, text = await ok(b, tool, **args)
            assert not ids & {i["memory_id"] for i in answer["items"]}, tool
            assert not any(i in text for i in ids), tool
        answer, text = await ok(b, "find_precedents", situation=query, limit=100)
        assert decision not in {p["decision"]["memory_id"] for p in answer["items"]}
        assert decision not in text
    async with connect(service.key_a) as a:  # A still sees it all: nothing B did touched it
        lineage, _ = await ok(a, "lineage", memory_id=decision)
        assert lineage["memory"]["status"] == "active"
        assert [v["version"] for v in lineage["versions"]] == [1]


async def test_read_only_key_is_refused_on_write_tools(connect: Connect, service: Service) -> None:
    async with connect(service.key_a) as a:
        trace, evidence = await flaky_story(a)
    decision = trace["produced"][0]["memory_id"]
    writes: dict[str, dict[str, Any]] = {
        "remember": {"kind": "fact", "content": unique("read-only keys write nothing")},
        "record_reasoning": {"task": "t", "steps": [{"kind": "conclusion", "content": "c"}]},
        "challenge": {"memory_id": decision, "reason": "r"},
        "update_memory": {"memory_id": evidence["log"], "version": 1, "content": "edited"},
        "invalidate": {"memory_id": evidence["log"], "reason": "r"},
        "retract": {"memory_id": evidence["log"], "reason": "r"},
        "ingest": {"content": unique("some notes"), "source_name": "n.md"},
        "record_outcome": {"decision_id": decision, "result": "failure", "content": "x"},
    }
    async with connect(service.key_a_read) as reader:
        for tool, args in writes.items():
            error = await refused(reader, tool, **args)
            assert (error["status"], error["code"]) == (403, "auth.forbidden"), tool
        lineage, _ = await ok(reader, "lineage", memory_id=decision)
        assert lineage["memory"]["status"] == "active"  # the refused challenge wrote nothing
        memory, _ = await ok(reader, "get_memory", memory_id=evidence["log"])
        assert memory["valid_to"] is None and memory["system_to"] is None
        assert memory["version"] == 1  # the refused update wrote nothing
        await ok(reader, "recall", query="test_upload")


async def test_a_key_without_the_scope_is_refused_before_its_arguments(
    connect: Connect, service: Service
) -> None:
    """As REST (`ScopedRoute`): a read-only key learnt a write tool's schema from its 422 (trial 4)."""
    bad: dict[str, dict[str, Any]] = {
        "remember": {"kind": "nonsense", "content": ""},
        "record_reasoning": {"task": 5},
        "invalidate": {"memory_id": "x", "reason": "r", "unknown": 1},
        "ingest": {"content": 3},
        "record_outcome": {"decision_id": "x", "result": "maybe"},
        "challenge": {"memory_id": ""},
        "update_memory": {"memory_id": "x", "version": "1"},
    }
    async with connect(service.key_a_read) as reader:
        for tool, args in bad.items():
            error = await refused(reader, tool, **args)
            assert (error["status"], error["code"]) == (403, "auth.forbidden"), (tool, error)
        # A tool of its scope still answers bad arguments with the 422.
        error = await refused(reader, "recall", query="x", limit="5")
        assert (error["status"], error["code"]) == (422, "input.invalid"), error
    async with connect(service.key_a) as writer:
        error = await refused(writer, "remember", kind="nonsense", content="")
        assert (error["status"], error["code"]) == (422, "input.invalid"), error


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            yield from _leaves(sub)
    else:
        yield exc


async def test_http_without_a_valid_key_is_401_like_rest(service: Service) -> None:
    url = f"{service.base_url}/mcp"
    async with httpx.AsyncClient(timeout=30.0) as http:
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic x"}):
            r = await http.post(url, json=INIT, headers={**MCP_HEADERS, **headers})
            assert r.status_code == 401, r.text
            assert r.json()["code"] == "auth.invalid_key"
            assert r.headers["www-authenticate"] == "Bearer"
            rest = await http.get(f"{service.base_url}/v1/diagnostics", headers=headers)
            assert rest.status_code == 401 and rest.json()["code"] == "auth.invalid_key"
        r = await http.post(
            url, json=INIT, headers={**MCP_HEADERS, "Authorization": f"Bearer {service.key_a}"}
        )
        assert r.status_code == 200, r.text
    with pytest.raises(BaseExceptionGroup) as caught:
        async with http_client(service, None) as client:
            await client.list_tools()
    # The SDK client reports the refused HTTP exchange as an MCP error (no status in it).
    leaves = list(_leaves(caught.value))
    assert [type(e) for e in leaves] == [MCPError], leaves


async def test_http_coded_body_is_401_without_a_key_and_415_with_one(service: Service) -> None:
    url = f"{service.base_url}/mcp"
    coded = {**MCP_HEADERS, "Content-Type": "application/json", "Content-Encoding": "gzip"}
    body = gzip.compress(json.dumps(INIT).encode())
    async with httpx.AsyncClient(timeout=30.0) as http:
        r = await http.post(url, content=body, headers=coded)
        assert r.status_code == 401, r.text
        r = await http.post(
            url, content=body, headers={**coded, "Authorization": f"Bearer {service.key_a}"}
        )
        assert r.status_code == 415, r.text
        assert r.json()["code"] == "input.unsupported_media_type"
        assert r.headers["accept-encoding"] == "identity"


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
async def test_http_body_not_json_is_415_like_rest(
    service: Service, content_type: str | None
) -> None:
    # A fresh-user trial: the SDK answered 400 with the plain text "Invalid Content-Type header".
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {service.key_a}"}
    if content_type is not None:
        headers["Content-Type"] = content_type
    async with httpx.AsyncClient(timeout=30.0) as http:
        r = await http.post(f"{service.base_url}/mcp", content=json.dumps(INIT), headers=headers)
    assert r.status_code == 415, r.text
    assert r.json()["code"] == "input.unsupported_media_type"
    assert "application/json" in r.json()["detail"]


async def test_http_get_and_delete_are_405_allowing_post_after_the_key_check(
    service: Service,
) -> None:
    # Stateless: no server-initiated stream (GET held an idle SSE stream open for ever).
    url = f"{service.base_url}/mcp"
    stream = {"Accept": "text/event-stream"}
    key = {"Authorization": f"Bearer {service.key_a}"}
    async with httpx.AsyncClient(timeout=30.0) as http:
        for method in ("GET", "DELETE"):
            r = await http.request(method, url, headers=stream)
            assert r.status_code == 401, (method, r.text)
            assert r.json()["code"] == "auth.invalid_key"
        for method in ("GET", "DELETE", "PUT"):
            async with http.stream(method, url, headers={**stream, **key}) as r:
                assert r.status_code == 405, method
                assert r.headers["allow"] == "POST"
                assert r.headers["content-type"] == "application/json"
                body = json.loads(await r.aread())
            assert set(body) == {"detail", "code"}
            assert body["code"] == "method_not_allowed" and "POST" in body["detail"]
        r = await http.post(url, json=INIT, headers={**MCP_HEADERS, **key})
        assert r.status_code == 200, r.text


async def test_stdio_without_a_valid_key_refuses_every_call(service: Service) -> None:
    for key in (None, "nope"):
        async with stdio_client(service, key) as client:
            for tool, args in (
                ("recall", {"query": "anything"}),
                ("remember", {"kind": "fact", "content": "no key, no write"}),
            ):
                error = await refused(client, tool, **args)
                assert (error["status"], error["code"]) == (401, "auth.invalid_key"), (key, tool)


#: Arguments that break each tool's input schema (a 422 `input.invalid` for a known key).
BAD_ARGUMENTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("recall", {"query": "anything", "limit": "5"}),
    ("remember", {"kind": "fact"}),
    ("get_memory", {"memory_id": "m", "bogus": 1}),
    ("invalidate", {"memory_id": "m", "reason": ""}),
)


async def test_stdio_checks_the_key_before_the_arguments(service: Service) -> None:
    # As REST and the HTTP /mcp: a caller without a known key learns nothing of the arguments.
    for key in (None, "nope"):
        async with stdio_client(service, key) as client:
            for tool, args in BAD_ARGUMENTS:
                error = await refused(client, tool, **args)
                assert (error["status"], error["code"]) == (401, "auth.invalid_key"), (key, tool)
    async with stdio_client(service, service.key_a) as client:
        for tool, args in BAD_ARGUMENTS:
            error = await refused(client, tool, **args)
            assert (error["status"], error["code"]) == (422, "input.invalid"), tool


async def test_http_a_key_named_twice_is_a_parse_error_and_writes_nothing(
    service: Service,
) -> None:
    """The SDK kept the last of two `content`s and stored it; REST refuses such a body (trial 10)."""
    headers = {
        **MCP_HEADERS,
        "Authorization": f"Bearer {service.key_a}",
        "Content-Type": "application/json",
    }
    content = unique("mcp twice")
    call = (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "remember", '
        '"arguments": {"kind": "fact", "content": "'
        + content
        + ' A", "content": "'
        + content
        + ' B"}}}'
    )
    async with httpx.AsyncClient(timeout=30.0) as http:
        r = await http.post(f"{service.base_url}/mcp", content=call, headers=headers)
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["code"] == -32700 and "duplicate key 'content'" in error["message"], error
        # Trial 11: a lone surrogate was "unexpected end of hex escape" (high) and "lone
        # leading surrogate" (low, a trailing one); each is named as it was sent.
        for half in ("\\ud800", "\\udc00"):
            lone = (
                '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": '
                f'"remember", "arguments": {{"kind": "fact", "content": "{content} {half}"}}}}}}'
            )
            r = await http.post(f"{service.base_url}/mcp", content=lone, headers=headers)
            assert r.status_code == 400, r.text
            message = r.json()["error"]["message"]
            assert f"lone surrogate {half}" in message, message
        # Trial 15: an object id was read as a notification (202, nothing done). MCP ids are
        # strings or integers; anything else is an Invalid Request, and nothing is written.
        for bad in ('{"a": 1}', "[1]", "1.5", "true", "null"):
            odd = (
                f'{{"jsonrpc": "2.0", "id": {bad}, "method": "tools/call", "params": {{"name": '
                f'"remember", "arguments": {{"kind": "fact", "content": "{content} odd id"}}}}}}'
            )
            r = await http.post(f"{service.base_url}/mcp", content=odd, headers=headers)
            assert r.status_code == 400, (bad, r.status_code, r.text)
            error = r.json()["error"]
            assert error["code"] == -32600 and "MCP ids are strings or integers" in error["message"]
        # Trial 18: a batch (a JSON array) was a -32602 with four validation errors.
        batch = '[{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}]'
        r = await http.post(f"{service.base_url}/mcp", content=batch, headers=headers)
        assert r.status_code == 400, r.text
        assert r.json()["error"]["code"] == -32600 and "a batch" in r.json()["error"]["message"]
        # Trial 20: a message the SDK cannot read (another jsonrpc, no method) was its -32602
        # with every union member's errors; it is an Invalid Request, answered with its id.
        for odd in ('{"jsonrpc": "1.0", "id": 4, "method": "ping"}', '{"jsonrpc": "2.0", "id": 5}'):
            r = await http.post(f"{service.base_url}/mcp", content=odd, headers=headers)
            assert r.status_code == 400, r.text
            assert r.json()["error"]["code"] == -32600 and r.json()["id"] in (4, 5), r.text
        # A body the strict reader cannot read at all is a parse error.
        broken = await http.post(f"{service.base_url}/mcp", content="{", headers=headers)
        assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700
        deep = await http.post(f"{service.base_url}/mcp", content="[" * 5000, headers=headers)
        assert deep.status_code == 400, deep.text
    async with http_client(service, service.key_a) as client:
        answer, _ = await ok(client, "search", query=content, limit=5)
    assert not [i for i in answer["items"] if content in str(i)], answer


async def test_http_is_served_at_mcp_with_a_slash_too(service: Service) -> None:
    """The app redirects no slashes (a REST path with one is a 404); `/mcp/` is a route of its
    own, so a client configured with it is still served."""
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {service.key_a}"}
    async with httpx.AsyncClient(timeout=30.0) as http:
        r = await http.post(f"{service.base_url}/mcp/", json=INIT, headers=headers)
        assert r.status_code == 200, r.text
        assert r.json()["result"]["serverInfo"]["name"]
        rest = await http.get(f"{service.base_url}/v1/memories/x/", headers=headers)
    assert rest.status_code == 404 and rest.json()["code"] == "not_found", rest.text
