"""The tools on the in-process backend (what `/mcp` runs), driven by the SDK's in-memory client."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import Context

from service.api.auth import authenticate
from service.mcp.backend import Backend
from service.mcp.local import LocalBackend
from service.mcp.tools import RationaleServer
from tests.conftest import Tenant
from tests.mcp.conftest import ok, refused
from tests.mcp.test_tools import flaky_story

pytestmark = pytest.mark.anyio


def server_for(tenant: Tenant, key: str) -> RationaleServer:
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    principal = authenticate(services.settings, f"Bearer {key}")

    async def backend_for(ctx: Context[Any, Any]) -> Backend:
        return LocalBackend(services, principal)

    return RationaleServer(backend_for)


async def test_in_process_backend_records_reads_and_refuses(tenant: Tenant) -> None:
    async with Client(server_for(tenant, tenant.key)) as client:
        trace, evidence = await flaky_story(client)
        decision = trace["produced"][0]["memory_id"]
        lineage, text = await ok(client, "lineage", memory_id=decision)
        assert lineage["traces"][0]["trace_id"] == trace["trace_id"]
        assert "(rejected by step 2)" in text
        error = await refused(client, "get_memory", memory_id=evidence["log"], as_of="soon")
        assert (error["status"], error["code"]) == (422, "input.invalid")
    reader = tenant.key_with(["read"])
    async with Client(server_for(tenant, reader)) as client:
        error = await refused(client, "retract", memory_id=evidence["log"], reason="r")
        assert (error["status"], error["code"]) == (403, "auth.forbidden")
        memory, _ = await ok(client, "get_memory", memory_id=evidence["log"])
        assert memory["system_to"] is None
