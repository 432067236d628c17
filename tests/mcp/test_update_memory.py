"""`update_memory` over both transports (REST's PATCH with If-Match), and the shortened lineage."""

from __future__ import annotations

import httpx
import pytest

from tests.client.conftest import Service
from tests.mcp.conftest import Connect, call, ok, refused, text_of
from tests.mcp.test_tools import flaky_story, token_of, unique

pytestmark = pytest.mark.anyio


async def test_update_memory_writes_a_new_version_of_the_version_read(
    connect: Connect, service: Service
) -> None:
    """Trial 24: no tool could clear a decision's `challenged` or correct a memory's text."""
    async with connect(service.key_a) as client:
        decision, _ = await ok(
            client, "remember", kind="decision", content=unique("Cache the build")
        )
        memory_id = decision["memory_id"]
        updated, text = await ok(
            client, "update_memory", memory_id=memory_id, version=1, status="challenged"
        )
        assert (updated["version"], updated["status"]) == (2, "challenged")
        assert updated["content"] == decision["content"]
        assert text.startswith("Updated: [decision] Cache the build") and "v2, challenged" in text

        fixed = unique("Cache the build, keyed by the lockfile")
        updated, _ = await ok(
            client,
            "update_memory",
            memory_id=memory_id,
            version=2,
            status="active",
            content=fixed,
            confidence=0.8,
            metadata={"ticket": "OPS-7"},
            actor="agent:trial",
        )
        assert (updated["version"], updated["status"], updated["content"]) == (3, "active", fixed)
        assert updated["confidence"] == 0.8 and updated["metadata"] == {"ticket": "OPS-7"}
        assert updated["last_modified_by"]["actor"] == "agent:trial"

        same, text = await ok(
            client, "update_memory", memory_id=memory_id, version=3, status="active"
        )
        assert same["version"] == 3 and text.startswith("Nothing changed (same values)")

        error = await refused(client, "update_memory", memory_id=memory_id, version=0, content="x")
        assert (error["status"], error["code"]) == (422, "input.invalid")
        error = await refused(client, "update_memory", memory_id=memory_id, version=3)
        assert (error["code"], error["detail"]) == (
            "input.invalid",
            "nothing to change: send at least one field",
        )


async def test_a_stale_version_is_the_rest_409_telling_to_read_again(
    connect: Connect, service: Service
) -> None:
    async with connect(service.key_a) as client:
        fact, _ = await ok(client, "remember", kind="fact", content=unique("Builds run on arm64"))
        memory_id = fact["memory_id"]
        await ok(client, "update_memory", memory_id=memory_id, version=1, confidence=0.5)
        result = await call(
            client, "update_memory", memory_id=memory_id, version=1, content="Builds on x86"
        )
        current, _ = await ok(client, "get_memory", memory_id=memory_id)
    assert current["version"] == 2 and current["content"] == fact["content"]
    async with httpx.AsyncClient(base_url=service.base_url, timeout=30.0) as http:
        rest = await http.patch(
            f"/v1/memories/{memory_id}",
            json={"content": "Builds on x86"},
            headers={"Authorization": f"Bearer {service.key_a}", "If-Match": '"1"'},
        )
    assert rest.status_code == 409
    assert result.is_error and result.structured_content is not None
    error = result.structured_content["error"]
    assert error == {"status": 409, **rest.json()}
    assert (error["code"], error["current_version"]) == ("memory.version_conflict", 2)
    text = text_of(result)
    assert text.startswith("Refused: memory.version_conflict (HTTP 409): memory ")
    assert "is at version 2, not 1" in text
    assert "Read it again (get_memory)" in text


async def test_update_memory_needs_the_write_scope(connect: Connect, service: Service) -> None:
    async with connect(service.key_a) as client:
        fact, _ = await ok(client, "remember", kind="fact", content=unique("Runners have 8 GB"))
    async with connect(service.key_a_read) as reader:
        for args in (
            {"memory_id": fact["memory_id"], "version": 1, "content": "Runners have 16 GB"},
            {"memory_id": fact["memory_id"], "version": "one"},  # before its arguments
        ):
            error = await refused(reader, "update_memory", **args)
            assert (error["status"], error["code"]) == (403, "auth.forbidden")
        memory, _ = await ok(reader, "get_memory", memory_id=fact["memory_id"])
    assert (memory["version"], memory["content"]) == (1, fact["content"])
    async with connect(service.key_b) as other:  # another namespace's memory is not found
        error = await refused(
            other, "update_memory", memory_id=fact["memory_id"], version=1, content="x"
        )
        assert (error["status"], error["code"]) == (404, "memory.not_found")


async def test_lineage_and_history_write_a_text_once(connect: Connect, service: Service) -> None:
    """Trial 24: a decision's lineage (4 versions, 3 traces) was 8.5k characters, each version
    and each trace's produced version repeating the decision's whole text."""
    async with connect(service.key_a) as client:
        trace, _ = await flaky_story(client)
        decision = trace["produced"][0]["memory_id"]
        old = f"Lock the upload fixture directory [{token_of(trace)}]"
        new = unique("Give each worker its own upload fixture directory")
        await ok(client, "update_memory", memory_id=decision, version=1, status="challenged")
        await ok(client, "update_memory", memory_id=decision, version=2, status="active")
        await ok(client, "update_memory", memory_id=decision, version=3, content=new)
        lineage, text = await ok(client, "lineage", memory_id=decision)
        _, history = await ok(client, "history", memory_id=decision)
    assert [v["version"] for v in lineage["versions"]] == [1, 2, 3, 4]
    assert text.count(old) == 1 and text.count(new) == 2  # the header and v4
    assert text.count("[decision] same text as v1 (id") == 3  # v2, v3 and the produced v1
    assert "Now: [decision] same text as v4 (id" in text
    assert history.count(old) == 1 and history.count(new) == 1
    assert "2. [decision] same text as v1 (id" in history
    assert "3. [decision] same text as v1 (id" in history
