"""`POST /v1/memories/batch` against the real Neo4j and model: one transaction, per-item results."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from tests.conftest import Tenant


def _count(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS n", ns=namespace
    )
    return int(records[0]["n"])


def _batch(t: Tenant, items: list[dict[str, Any]], **kw: Any) -> Any:
    return t.post("/v1/memories/batch", json={"items": items}, **kw)


def test_a_thousand_memories_in_one_request(tenant: Tenant, neo4j_driver: Driver) -> None:
    kinds = ["fact", "decision", "procedure", "observation"]
    items = [
        {"kind": kinds[i % 4], "content": f"Bulk memory number {i} about service shard {i % 37}"}
        for i in range(1000)
    ]
    r = _batch(tenant, items, headers={"Idempotency-Key": "bulk-1000"})
    assert r.status_code == 201, r.text
    answer = r.json()
    assert answer["count"] == 1000 == len(answer["items"])
    assert [i["index"] for i in answer["items"]] == list(range(1000))
    assert all(i["created"] for i in answer["items"])
    assert [i["memory"]["content"] for i in answer["items"]] == [m["content"] for m in items]
    assert [i["memory"]["kind"] for i in answer["items"]] == [m["kind"] for m in items]
    assert len({i["memory"]["memory_id"] for i in answer["items"]}) == 1000
    assert _count(neo4j_driver, tenant.namespace) == 1000
    sample = answer["items"][617]["memory"]
    assert tenant.get(f"/v1/memories/{sample['memory_id']}").json()["content"] == sample["content"]

    replay = _batch(tenant, items, headers={"Idempotency-Key": "bulk-1000"})
    assert replay.status_code == 201 and replay.headers["Idempotent-Replay"] == "true"
    assert replay.json() == answer

    again = _batch(tenant, items)  # no key: content idempotency, like single writes
    assert again.status_code == 200
    assert [i["created"] for i in again.json()["items"]] == [False] * 1000
    assert [i["memory"]["memory_id"] for i in again.json()["items"]] == [
        i["memory"]["memory_id"] for i in answer["items"]
    ]
    assert _count(neo4j_driver, tenant.namespace) == 1000


@pytest.mark.parametrize(
    ("bad", "status", "code"),
    [
        ({"kind": "fact", "content": "half a key", "subject": "alice"}, 422, "input.invalid"),
        ({"kind": "observation", "content": "x" * 40_000}, 413, "input.too_large"),
        ({"kind": "decision", "content": "  \n\t "}, 422, "input.invalid"),
    ],
)
def test_one_invalid_item_writes_nothing(
    tenant: Tenant, neo4j_driver: Driver, bad: dict[str, Any], status: int, code: str
) -> None:
    items: list[dict[str, Any]] = [{"kind": "fact", "content": f"good item {i}"} for i in range(5)]
    items.insert(3, bad)
    raw = json.dumps({"items": items})  # ASCII escapes carry the lone surrogate
    r = tenant.post("/v1/memories/batch", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == status, r.text
    assert r.json()["code"] == code
    assert r.json()["index"] == 3 and r.json()["detail"].startswith("items[3]: ")
    assert _count(neo4j_driver, tenant.namespace) == 0


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "reasoning", "content": "not writable here"},
        {"kind": "decision", "content": "lone \ud800 surrogate"},
        {"kind": "fact", "content": "a boolean is no number", "confidence": True},
    ],
)
def test_a_schema_invalid_item_is_named_by_index(
    tenant: Tenant, neo4j_driver: Driver, bad: dict[str, Any]
) -> None:
    items: list[dict[str, Any]] = [{"kind": "fact", "content": "fine"}] * 3
    raw = json.dumps({"items": [*items, bad]})  # ASCII escapes carry a lone surrogate
    r = tenant.post("/v1/memories/batch", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    assert {tuple(e["loc"][:3]) for e in r.json()["detail"]} == {("body", "items", 3)}
    assert r.json()["index"] == 3
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_equal_items_within_the_batch_are_one_memory(tenant: Tenant) -> None:
    items = [
        {"kind": "fact", "content": "The cache lives in Redis"},
        {"kind": "fact", "content": "the cache  lives in redis"},  # equal once normalised
        {"kind": "decision", "content": "The cache lives in Redis"},  # another kind: new
    ]
    out = _batch(tenant, items).json()["items"]
    assert [i["created"] for i in out] == [True, False, True]
    assert out[1]["memory"]["memory_id"] == out[0]["memory"]["memory_id"]
    assert out[2]["memory"]["memory_id"] != out[0]["memory"]["memory_id"]


def test_the_same_words_at_other_turns_are_other_memories(tenant: Tenant) -> None:
    """As one by one: an item's episode and position are part of it (`equality_of`)."""
    turn = {"kind": "observation", "content": "(no output)", "episode": "s1", "position": 2}
    stored = _batch(tenant, [turn]).json()["items"][0]["memory"]
    items = [turn, {**turn, "position": 5}, {**turn, "episode": "s2"}, {**turn, "episode": "s2"}]
    out = _batch(tenant, items).json()["items"]
    assert [i["created"] for i in out] == [False, True, True, False]
    ids = [i["memory"]["memory_id"] for i in out]
    assert ids[0] == stored["memory_id"] and ids[3] == ids[2]
    assert len(set(ids)) == 3


def test_keyed_facts_apply_in_order(tenant: Tenant) -> None:
    items = [
        {
            "kind": "fact",
            "content": "Alice lives in District 1",
            "subject": "alice",
            "attribute": "home",
            "valid_from": "2024-01-01T00:00:00Z",
        },
        {
            "kind": "fact",
            "content": "Alice lives in District 2",
            "subject": "alice",
            "attribute": "home",
            "valid_from": "2024-06-01T00:00:00Z",
        },
    ]
    out = _batch(tenant, items).json()["items"]
    first, second = (i["memory"] for i in out)
    old = tenant.get(f"/v1/memories/{first['memory_id']}").json()
    assert old["valid_to"].startswith("2024-06-01T00:00:00")  # closed by the next value
    current = tenant.get(f"/v1/memories/{second['memory_id']}").json()
    assert current["valid_to"] is None
    hist = tenant.get(f"/v1/memories/{first['memory_id']}/history").json()
    assert hist["count"] == 2


@pytest.fixture
def small_limit(tenant: Tenant) -> Iterator[None]:
    settings = tenant.client.app.state.services.settings  # type: ignore[attr-defined]
    before = settings.max_batch_items
    settings.max_batch_items = 3
    yield
    settings.max_batch_items = before


@pytest.mark.usefixtures("small_limit")
def test_over_the_limit_is_413(tenant: Tenant, neo4j_driver: Driver) -> None:
    items = [{"kind": "observation", "content": f"item {i}"} for i in range(4)]
    r = _batch(tenant, items)
    assert r.status_code == 413 and r.json()["code"] == "input.too_large"
    assert "limit of 3" in r.json()["detail"]
    assert _count(neo4j_driver, tenant.namespace) == 0
    assert _batch(tenant, items[:3]).status_code == 201


def test_empty_and_read_only(tenant: Tenant) -> None:
    assert _batch(tenant, []).status_code == 422
    reader = tenant.key_with(["read"])
    r = tenant.client.post(
        "/v1/memories/batch",
        json={"items": [{"kind": "fact", "content": "x"}]},
        headers={"Authorization": f"Bearer {reader}"},
    )
    assert r.status_code == 403 and r.json()["code"] == "auth.forbidden"


def test_cli_remember_writes_a_jsonl_file_in_batches(
    tenant: Tenant, neo4j_driver: Driver, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from service.cli import app as cli_app

    path = tmp_path / "memories.jsonl"
    lines = [{"kind": "observation", "content": f"CLI bulk line {i}"} for i in range(5)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(cli_app, ["remember", str(path), "-n", tenant.namespace])
    assert result.exit_code == 0, result.output
    assert "5 created, 0 existed already" in result.output
    assert _count(neo4j_driver, tenant.namespace) == 5
    again = runner.invoke(cli_app, ["remember", str(path), "-n", tenant.namespace])
    assert "0 created, 5 existed already" in again.output

    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"kind": "fact", "content": "fine"})
        + "\n"
        + json.dumps({"kind": "fact", "content": "half", "subject": "x"})
        + "\n",
        encoding="utf-8",
    )
    refused = runner.invoke(cli_app, ["remember", str(bad), "-n", tenant.namespace])
    assert refused.exit_code == 2
    assert f"{bad}:2:" in refused.output
    assert _count(neo4j_driver, tenant.namespace) == 5
