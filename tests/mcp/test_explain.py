"""`explain` on recall and search over both transports: one "why:" line per item, as REST's."""

from __future__ import annotations

import random
import string

import pytest

from tests.client.conftest import Service
from tests.mcp.conftest import Connect, ok

pytestmark = pytest.mark.anyio


def word() -> str:
    """A made-up word (letters only, so no number the query could be about)."""
    return "".join(random.choices(string.ascii_lowercase, k=12))


@pytest.mark.parametrize("tool", ["recall", "search"])
async def test_explain_adds_one_why_line_per_item(
    connect: Connect, service: Service, tool: str
) -> None:
    """Trial 24: REST's `explain` had no MCP argument, so an agent could not see why."""
    token = word()
    async with connect(service.key_a) as client:
        memory, _ = await ok(
            client, "remember", kind="observation", content=f"The {token} upload test timed out"
        )
        query = f"{token} upload timed"
        plain, text = await ok(client, tool, query=query, limit=3)
        explained, why_text = await ok(client, tool, query=query, limit=3, explain=True)
    assert plain["items"][0]["memory_id"] == memory["memory_id"]
    assert all(item.get("explain") is None for item in plain["items"])
    assert "why:" not in text
    top = explained["items"][0]
    assert top["memory_id"] == memory["memory_id"]
    assert set(top["explain"]["matched_terms"]) == {token, "upload", "timed"}
    lines = why_text.splitlines()
    assert lines[1].startswith(f"1. [observation] The {token} upload test timed out")
    why = lines[2]
    assert why.startswith("   why: lexical ")
    assert f"(matched: {token}, upload, timed)" in why and ", vector " in why
    assert "{" not in why_text  # a line, not the raw dict
    assert why_text.count("\n   why: ") == len(explained["items"])
