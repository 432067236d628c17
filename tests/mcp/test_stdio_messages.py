"""Over stdio, every line the SDK cannot read is answered with its JSON-RPC error, as over HTTP."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from tests.client.conftest import Service
from tests.mcp.conftest import REPO, http_client, ok
from tests.mcp.test_auth import INIT
from tests.mcp.test_tools import unique

pytestmark = pytest.mark.anyio


def remember(content: str, message_id: str) -> str:
    call = {"name": "remember", "arguments": {"kind": "fact", "content": content}}
    return f'{{"jsonrpc": "2.0", "id": {message_id}, "method": "tools/call", "params": {json.dumps(call)}}}'


async def test_stdio_answers_each_line_it_cannot_read_and_writes_nothing(service: Service) -> None:
    """Trial 18: not JSON, an object or null id and a batch got no answer at all over stdio."""
    content = unique("stdio odd id")
    refused = [
        ("not json", None, -32700, "not JSON"),
        ('{"jsonrpc": "2.0", "id": 3, "method": "ping", "id": 4}', None, -32700, "duplicate key"),
        (remember(content, '{"a": 1}'), None, -32600, "the id is an object"),
        (remember(content, "null"), None, -32600, "the id is null"),
        (remember(content, "1.5"), None, -32600, "a number with a fraction"),
        (remember(content, "1e2"), None, -32600, "or exponent"),
        (f"[{remember(content, '5')}]", None, -32600, "a batch"),
        ('{"jsonrpc": "1.0", "id": 11, "method": "ping"}', 11, -32600, "jsonrpc"),
        ('{"id": "twelve"}', "twelve", -32600, "Invalid Request"),
        ("5", None, -32600, "not a message object"),
        # Trial 20: bytes that are not UTF-8 were read as U+FFFD, and the memory stored.
        (remember(content, "13").replace("odd id", "odd id \udcff"), None, -32700, "utf-8"),
        # Trial 21: a byte-order mark before the JSON got no answer at all.
        ("\ufeff" + '{"jsonrpc": "2.0", "id": 14, "method": "ping"}', None, -32700, "byte-order"),
    ]
    command = [sys.executable, "-m", "service.cli", "mcp", "--url", service.base_url]
    env = {**os.environ, "RATIONALE_API_KEY": service.key_a}
    async with await anyio.open_process(command, cwd=REPO, env=env) as process:
        assert process.stdin is not None and process.stdout is not None
        answers = BufferedByteReceiveStream(process.stdout)

        async def exchange(line: str) -> dict[str, object]:
            sent = line.encode("utf-8", "surrogateescape")  # \udcff: the byte 0xff
            await process.stdin.send(sent + b"\n")  # type: ignore[union-attr]
            with anyio.fail_after(60):
                answer: dict[str, object] = json.loads(await answers.receive_until(b"\n", 1 << 20))
            return answer

        assert "result" in await exchange(json.dumps(INIT))
        await process.stdin.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for line, message_id, code, said in refused:
            answer = await exchange(line)
            error = answer["error"]
            assert isinstance(error, dict), (line, answer)
            assert (answer["id"], error["code"]) == (message_id, code), (line, answer)
            assert said in error["message"], (line, answer)
        # Still serving, in order: the next request is answered as usual.
        assert await exchange('{"jsonrpc": "2.0", "id": 7, "method": "ping"}') == {
            "jsonrpc": "2.0",
            "id": 7,
            "result": {},
        }
        await process.stdin.aclose()
    async with http_client(service, service.key_a) as client:
        found, _ = await ok(client, "search", query=content, limit=5)
    assert not [i for i in found["items"] if content in str(i)], found
