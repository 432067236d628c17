"""The `lineage` tool honours `as_of` (valid time) as the REST route does, over both transports."""

from __future__ import annotations

import pytest

from tests.client.conftest import Service
from tests.mcp.conftest import Connect, ok, refused
from tests.mcp.test_tools import flaky_story

pytestmark = pytest.mark.anyio


async def test_lineage_as_of_reads_the_version_valid_then(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as client:
        trace, _ = await flaky_story(client)
        decision = trace["produced"][0]
        error = await refused(
            client, "lineage", memory_id=decision["memory_id"], as_of="2000-01-01T00:00:00Z"
        )
        assert (error["status"], error["code"]) == (404, "memory.not_found")
        lineage, _ = await ok(
            client, "lineage", memory_id=decision["memory_id"], as_of=decision["valid_from"]
        )
        assert lineage["memory"]["memory_id"] == decision["memory_id"]
        assert [t["trace_id"] for t in lineage["traces"]] == [trace["trace_id"]]
