"""Bulk writes over HTTP: `POST /v1/memories/batch` against one `POST /v1/memories` per memory, one run.

`scripts/bench batch` starts the service in its own process (real Neo4j, real model) with two
fresh namespaces, `bench_batch_one_<hex>` and `bench_batch_many_<hex>`, writes the same `--count`
distinct memories to each (one by one, then in batches of `--batch-size`), and prints memories
per second for both and their ratio, with the load average beside them (the machine is shared).
Both namespaces are deleted afterwards.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import httpx
import typer
from neo4j import GraphDatabase
from rich.console import Console
from rich.table import Table

from bench.common import loadavg
from bench.service_process import ServiceProcess
from service.settings import get_settings

SUBJECTS = ["the build", "the cache", "the deploy", "the session store", "the nightly backup"]
VERBS = ["runs on", "depends on", "was moved to", "is owned by", "reports to"]
OBJECTS = ["shard {n}", "host {n}", "team {n}", "region {n}", "queue {n}"]


def memories(count: int, token: str) -> list[dict[str, Any]]:
    """Return `count` distinct memories of the four writable kinds (synthetic, deterministic)."""
    kinds = ["fact", "decision", "procedure", "observation"]
    out = []
    for i in range(count):
        text = (
            f"{SUBJECTS[i % 5]} {VERBS[(i // 5) % 5]} {OBJECTS[(i // 25) % 5].format(n=i)}"
            f" (run {token}, item {i})"
        )
        out.append({"kind": kinds[i % 4], "content": text})
    return out


def _drop(namespace: str) -> None:
    settings = get_settings()
    with (
        GraphDatabase.driver(
            settings.neo4j_uri,
            auth=(settings.neo4j_username, settings.neo4j_password.get_secret_value()),
        ) as driver,
        driver.session(database=settings.neo4j_database) as session,
    ):
        # CALL ... IN TRANSACTIONS needs an auto-commit transaction (session.run).
        session.run(
            "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS",
            ns=namespace,
        ).consume()


def one_by_one(client: httpx.Client, key: str, items: list[dict[str, Any]]) -> float:
    """Write each memory with its own `POST /v1/memories`; return the seconds taken."""
    headers = {"Authorization": f"Bearer {key}"}
    started = time.perf_counter()
    for item in items:
        r = client.post("/v1/memories", json=item, headers=headers)
        r.raise_for_status()
    return time.perf_counter() - started


def batched(client: httpx.Client, key: str, items: list[dict[str, Any]], size: int) -> float:
    """Write the memories with `POST /v1/memories/batch`, `size` per request; return seconds."""
    headers = {"Authorization": f"Bearer {key}"}
    started = time.perf_counter()
    for at in range(0, len(items), size):
        r = client.post(
            "/v1/memories/batch", json={"items": items[at : at + size]}, headers=headers
        )
        r.raise_for_status()
        assert r.json()["count"] == len(items[at : at + size])
    return time.perf_counter() - started


def main(
    count: int = typer.Option(500, help="Memories written each way."),
    batch_size: int = typer.Option(500, help="Memories per batch request (at most 1000)."),
    json_out: bool = typer.Option(False, "--json", help="Print the figures as JSON too."),
) -> None:
    """Batch vs one-by-one write throughput (memories per second) in one run."""
    token = uuid.uuid4().hex[:8]
    one_ns, many_ns = f"bench_batch_one_{token}", f"bench_batch_many_{token}"
    one_key, many_key = f"bb1-{token}", f"bbm-{token}"
    items_one = memories(count, f"{token}-1")
    items_many = memories(count, f"{token}-m")
    console = Console()
    try:
        with (
            ServiceProcess({one_key: one_ns, many_key: many_ns}) as service,
            httpx.Client(base_url=service.base_url, timeout=600.0) as client,
        ):
            load_before = loadavg()
            single_s = one_by_one(client, one_key, items_one)
            batch_s = batched(client, many_key, items_many, batch_size)
            load_after = loadavg()
    finally:
        _drop(one_ns)
        _drop(many_ns)
    figures = {
        "count": count,
        "batch_size": batch_size,
        "one_by_one_s": round(single_s, 2),
        "batch_s": round(batch_s, 2),
        "one_by_one_per_s": round(count / single_s, 1),
        "batch_per_s": round(count / batch_s, 1),
        "speedup": round(single_s / batch_s, 2),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
    }
    table = Table(title=f"bulk writes: {count} memories each way (load {load_before[0]:.1f})")
    table.add_column("path")
    table.add_column("seconds", justify="right")
    table.add_column("memories/s", justify="right")
    table.add_row("POST /v1/memories x N", f"{single_s:.1f}", f"{count / single_s:.1f}")
    table.add_row(
        f"POST /v1/memories/batch ({batch_size}/request)",
        f"{batch_s:.1f}",
        f"{count / batch_s:.1f}",
    )
    console.print(table)
    console.print(f"batch is {single_s / batch_s:.1f}x one-by-one")
    if json_out:
        console.print_json(json.dumps(figures))
