"""The synthetic benchmark corpus: its vocabulary, memory i, queries, and building `bench_<N>`."""

from __future__ import annotations

import random
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from functools import partial
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from bench.common import bench_graph, memory_row, write_rows
from service.domain.models import Kind, Writer
from service.embeddings import Embedder
from service.graph.query_names import QueryName
from service.graph.repository import Graph

#: Wide enough for the table when stdout is a file or a pipe (rich would use 80 columns).
console = Console(width=None if sys.stdout.isatty() else 180)

# fmt: off
SERVICES = [
    "payments", "checkout", "search", "auth", "billing", "inventory", "notifications", "ledger",
    "recommendations", "gateway", "scheduler", "reporting", "media-upload", "profile", "shipping",
    "catalog", "fraud-detection", "analytics", "email", "feature-flags", "session", "pricing",
    "warehouse", "loyalty", "chat", "geo", "audit", "export", "webhooks", "identity",
]
EVENTS = [
    "deploy failed", "latency spiked", "returned 500 errors", "ran out of memory",
    "lost its leader", "dropped connections", "hit the rate limit", "stalled on a lock",
    "served stale data", "crashed on start-up", "leaked file handles",
    "timed out talking to the database", "filled the disk", "skipped a cron run",
    "double-charged a customer", "lagged on replication",
]
CAUSES = [
    "a bad config push", "an expired TLS certificate", "a slow SQL migration", "a noisy neighbour",
    "a DNS change", "a retry storm", "a full connection pool", "a schema change without backfill",
    "a kernel upgrade", "a missing index", "clock skew between hosts", "a cache stampede",
    "a dependency upgrade", "a feature flag flipped too early", "an oversized batch job",
    "a network partition", "a leaked credential rotation", "a race in the start-up code",
]
ENVS = [
    "production", "staging", "eu-west", "us-east", "the canary fleet", "the nightly CI",
]
TECH = [
    "PostgreSQL 16", "Redis", "Kafka", "Elasticsearch", "S3", "gRPC", "Celery", "Neo4j", "Nginx",
    "Envoy", "Terraform", "Kubernetes 1.30", "RabbitMQ", "ClickHouse", "SQLite", "DynamoDB",
]
ACTIONS = [
    "roll back the release", "add a circuit breaker", "raise the pool size", "pin the dependency",
    "add an index", "move the job off-peak", "shard the table", "turn on request hedging",
    "add a file lock", "rotate the certificate early", "page the platform team",
    "cap the batch size", "add jitter to retries", "split the service", "enable read replicas",
]
TEAMS = [
    "platform", "payments", "search", "SRE", "data", "security", "mobile", "growth",
]
QUESTIONS = [
    "why did {service} {event} in {env}?", "what do we do when {service} {event}?",
    "which database does {service} use?", "what caused the {service} outage after {cause}?",
    "how did we fix {service} when it {event}?", "who owns {service} incidents?",
    "what did we decide about {tech} for {service}?",
]
# fmt: on


def synthetic(i: int) -> tuple[Kind, str, str]:
    """Return memory i of the benchmark corpus: (kind, content, origin), the same on every run."""
    rng = random.Random(i)
    service, event, cause = rng.choice(SERVICES), rng.choice(EVENTS), rng.choice(CAUSES)
    env, tech, action, team = (
        rng.choice(ENVS),
        rng.choice(TECH),
        rng.choice(ACTIONS),
        rng.choice(TEAMS),
    )
    roll = rng.random()
    if roll < 0.45:
        kind, text = (
            Kind.OBSERVATION,
            f"{service} {event} in {env} after {cause} (incident INC-{i})",
        )
    elif roll < 0.7:
        kind, text = (
            Kind.FACT,
            f"{service} uses {tech} in {env}; owned by the {team} team (ref {i})",
        )
    elif roll < 0.9:
        kind, text = (
            Kind.DECISION,
            f"Decided to {action} for {service} because of {cause} (ADR-{i})",
        )
    else:
        kind, text = (
            Kind.PROCEDURE,
            f"When {service} {event}, {action} and tell the {team} team (runbook {i})",
        )
    origin = (
        "user" if rng.random() < 0.85 else ("ingestion" if rng.random() < 0.67 else "maintenance")
    )
    return kind, text, origin


def questions(n: int, seed: int = 2009) -> list[str]:
    """Return n question-like queries over the same vocabulary (none copies a stored text)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        template = rng.choice(QUESTIONS)
        out.append(
            template.format(
                service=rng.choice(SERVICES),
                event=rng.choice(EVENTS),
                cause=rng.choice(CAUSES),
                env=rng.choice(ENVS),
                tech=rng.choice(TECH),
            )
        )
    return out


def rows_for(namespace: str, start: int, stop: int, embedder: Embedder) -> list[dict[str, Any]]:
    """Build the `$rows` of `bench/create_memories` for memories start..stop-1 (embedded here)."""
    items = [synthetic(i) for i in range(start, stop)]
    vectors = embedder.encode([text for _, text, _ in items])
    now = datetime.now(UTC)
    return [
        memory_row(Writer(namespace, origin, "bench"), kind, text, vector, now=now)
        for (kind, text, origin), vector in zip(items, vectors, strict=True)
    ]


def stored(graph: Graph, namespace: str) -> int:
    """Return how many current memories `namespace` holds (via `diagnostics/count_origins`)."""
    return sum(
        int(r["n"])
        for r in graph.run(QueryName.DIAGNOSTICS_COUNT_ORIGINS, {"namespace": namespace})
    )


def write_batch(graph: Graph, rows: list[dict[str, Any]]) -> None:
    """Write one batch in one transaction."""
    bench_graph(graph).write(partial(write_rows, rows=rows))


def ensure_corpus(
    graph: Graph, embedder: Embedder, namespace: str, size: int, batch: int
) -> tuple[int, float]:
    """Top `namespace` up to `size` memories; return (how many were written, seconds it took).

    Embedding (CPU, this thread) overlaps with the previous batch's write (Neo4j, one worker).
    """
    have = stored(graph, namespace)
    if have >= size:
        console.print(f"[green]{namespace}[/]: {have} memories already stored, reused")
        return 0, 0.0
    started = time.perf_counter()
    pending: Future[Any] | None = None
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with (
        ThreadPoolExecutor(max_workers=1) as writer,
        Progress(*columns, console=console) as progress,
    ):
        task = progress.add_task(f"building {namespace}", total=size, completed=have)
        for start in range(have, size, batch):
            rows = rows_for(namespace, start, min(start + batch, size), embedder)
            if pending is not None:
                pending.result()
            pending = writer.submit(write_batch, graph, rows)
            progress.advance(task, len(rows))
        if pending is not None:
            pending.result()
    return size - have, time.perf_counter() - started
