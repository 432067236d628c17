"""Recall latency at scale, measured against its floors: one raw vector-index call and one Bolt round trip.

For each size N (`--sizes 10000,100000`) the benchmark

1. makes sure namespace `bench_<N>` holds N synthetic memories (reused when it already does;
   topped up when it holds fewer). Texts are generated deterministically from a vocabulary
   (memory i is always the same text), embedded with the real model in batches, and written
   with one bulk Cypher per batch (`cypher/bench/create_memories.cypher`, `UNWIND $rows`).
   Origins are mixed like a real tenant: 85% user, 10% ingestion, 5% maintenance (hidden
   from recall). Other namespaces in the database stay, so the global index is what it is.
2. times, over `--queries` question-like queries (after `--warmup` untimed ones):
   - `POST /v1/recall` through the whole app in-process (FastAPI `TestClient`: routing,
     auth, validation, JSON), and the same `RetrievalService.recall` call without HTTP;
   - its parts: embedding the query alone, and one raw fulltext-index call;
   - the floors: one raw `db.index.vector.queryNodes` call with the same precomputed
     embedding and the same first-round `k` (`limit x vector_overfetch`), and one Bolt
     `RETURN 1`, both on the service's driver;
3. prints one table per size: p50 and p95 in milliseconds and each p50 as a multiple of the
   two floors' p50, plus how many over-fetch rounds the vector side needed.

The data stays for the next run (`--drop` deletes the namespace afterwards). Timings are
wall-clock on whatever else the machine is doing; no test asserts them.
"""

from __future__ import annotations

import logging
import random
import statistics
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

import typer
from fastapi.testclient import TestClient
from neo4j import RoutingControl
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from bench.common import bench_graph, memory_row, timed, write_rows
from service.container import Services
from service.domain.models import Kind, Writer
from service.domain.retrieval import RetrievalRequest, lucene_query
from service.embeddings import Embedder, SentenceTransformerEmbedder
from service.graph.repository import Graph
from service.main import create_app
from service.settings import Settings

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
        int(r["n"]) for r in graph.run("diagnostics/count_origins", {"namespace": namespace})
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


def p50_p95(samples: Sequence[float]) -> tuple[float, float]:
    """Return the median and the 95th percentile (inclusive method) of the samples."""
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return statistics.median(samples), cuts[94]


class RoundLog(logging.Handler):
    """Collects the retrieval service's debug lines `vector candidates: kept after n round(s), k=`."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.rounds: list[int] = []
        self.ks: list[int] = []
        self.exact = 0

    def emit(self, record: logging.LogRecord) -> None:
        """Record the rounds and the final k of one recall."""
        if record.getMessage().startswith("vector candidates:") and isinstance(record.args, tuple):
            self.rounds.append(int(str(record.args[1])))
            self.ks.append(int(str(record.args[2])))
            self.exact += record.args[3] is True


@contextmanager
def recall_rounds(*, quiet: bool) -> Iterator[RoundLog]:
    """Collect the retrieval service's vector-round debug lines for the block.

    Args:
        quiet: also stop the lines from propagating to the root logger (no console noise).

    Yields:
        The `RoundLog` filled while the block runs; the logger is restored afterwards.
    """
    rounds = RoundLog()
    log = logging.getLogger("service.domain.retrieval")
    log.addHandler(rounds)
    previous, propagate = log.level, log.propagate
    log.setLevel(logging.DEBUG)
    if quiet:
        log.propagate = False
    try:
        yield rounds
    finally:
        log.removeHandler(rounds)
        log.setLevel(previous)
        log.propagate = propagate


@dataclass
class Row:
    """One line of the result table."""

    name: str
    samples: list[float]
    note: str = ""


def measure(
    services: Services,
    client: TestClient,
    headers: dict[str, str],
    namespace: str,
    queries: list[str],
    warmup: list[str],
    limit: int,
    repeat: int,
) -> tuple[list[Row], RoundLog]:
    """Time recall and its parts and floors over the queries; see the module docstring."""
    settings = services.settings
    driver = services.graph.driver
    k = limit * settings.vector_overfetch
    runs = queries * repeat
    vectors = dict(zip(queries + warmup, services.embedder.encode(queries + warmup), strict=True))
    body = {"limit": limit}
    rows: list[Row] = []
    returned: list[int] = []

    def http(q: str) -> None:
        r = client.post("/v1/recall", json={"query": q, **body}, headers=headers)
        r.raise_for_status()
        returned.append(r.json()["count"])

    with recall_rounds(quiet=False) as rounds:
        rows.append(
            Row(
                "recall, POST /v1/recall (TestClient)",
                timed(http, runs, warmup),
                "whole app, in-process",
            )
        )
    rows.append(
        Row(
            "recall, RetrievalService.recall",
            timed(
                lambda q: services.retrieval.recall(
                    namespace, RetrievalRequest(query=q, limit=limit)
                ),
                runs,
                warmup,
            ),
            "no HTTP",
        )
    )
    rows.append(
        Row(
            "  embed the query (model)",
            timed(lambda q: services.embedder.encode([q]), runs, warmup),
        )
    )
    rows.append(
        Row(
            f"  raw fulltext queryNodes, k={k}",
            timed(
                lambda q: driver.execute_query(
                    "CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node, score "
                    "RETURN node.uid AS uid, score",
                    {"index": settings.fulltext_index, "query": lucene_query(q) or "x", "k": k},
                    routing_=RoutingControl.READ,
                    database_=settings.neo4j_database,
                ),
                runs,
                warmup,
            ),
        )
    )
    rows.append(
        Row(
            f"floor: raw vector queryNodes, k={k}",
            timed(
                lambda q: driver.execute_query(
                    "CALL db.index.vector.queryNodes($index, $k, $embedding) YIELD node, score "
                    "RETURN node.uid AS uid, score",
                    {"index": settings.vector_index, "k": k, "embedding": vectors[q]},
                    routing_=RoutingControl.READ,
                    database_=settings.neo4j_database,
                ),
                runs,
                warmup,
            ),
            "precomputed embedding",
        )
    )
    rows.append(
        Row(
            "floor: Bolt RETURN 1",
            timed(
                lambda q: driver.execute_query(
                    "RETURN 1", routing_=RoutingControl.READ, database_=settings.neo4j_database
                ),
                runs,
                warmup,
            ),
        )
    )
    short = sum(1 for n in returned if n < limit)
    rows[0].note += f"; {short} of {len(returned)} answers short of {limit}"
    return rows, rounds


def table(
    size: int, stored_n: int, rows: list[Row], rounds: RoundLog, build: tuple[int, float]
) -> Table:
    """Render one size's results as a rich table."""
    vector = next(r for r in rows if r.name.startswith("floor: raw vector"))
    bolt = next(r for r in rows if r.name.startswith("floor: Bolt"))
    v50, v95 = p50_p95(vector.samples)
    b50, b95 = p50_p95(bolt.samples)
    written, seconds = build
    built = f"built {written} in {seconds:.0f} s" if written else "reused"
    mean_rounds = statistics.mean(rounds.rounds) if rounds.rounds else float("nan")
    title = (
        f"recall latency, namespace bench_{size} ({stored_n} memories, {built}); "
        f"vector rounds per recall: mean {mean_rounds:.2f}, max k {max(rounds.ks, default=0)}, "
        f"exact scans {rounds.exact}"
    )
    t = Table(title=title, title_justify="left")
    for col in (
        "what",
        "n",
        "p50 ms",
        "p95 ms",
        "p50 / vector floor",
        "p95 / vector floor",
        "p50 / Bolt floor",
        "p95 / Bolt floor",
        "note",
    ):
        t.add_column(col, justify="left" if col in ("what", "note") else "right")
    for r in rows:
        p50, p95 = p50_p95(r.samples)
        t.add_row(
            r.name,
            str(len(r.samples)),
            f"{p50:.1f}",
            f"{p95:.1f}",
            f"{p50 / v50:.1f}x",
            f"{p95 / v95:.1f}x",
            f"{p50 / b50:.1f}x",
            f"{p95 / b95:.1f}x",
            r.note,
        )
    return t


def drop(services: Services, namespace: str) -> None:
    """Delete every node of `namespace` (in batches)."""
    with services.graph.driver.session(database=services.settings.neo4j_database) as session:
        session.run(
            "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
            ns=namespace,
        ).consume()


def parse_sizes(text: str) -> list[int]:
    """Parse `10000,100000` (underscores and `k` allowed: `10k,100_000`)."""
    out = []
    for part in text.split(","):
        part = part.strip().lower().replace("_", "")
        if part:
            out.append(int(float(part[:-1]) * 1000) if part.endswith("k") else int(part))
    if not out or min(out) < 1:
        raise typer.BadParameter("sizes must be positive integers, e.g. 10000,100000")
    return out


def main(
    sizes: str = typer.Option("10000", help="Comma-separated corpus sizes, e.g. 10000,100000."),
    queries: int = typer.Option(50, min=5, help="Timed queries per size."),
    warmup: int = typer.Option(5, min=0, help="Untimed warm-up queries per measurement."),
    repeat: int = typer.Option(1, min=1, help="Times each query is asked (more samples for p95)."),
    limit: int = typer.Option(10, min=1, max=100, help="Recall limit."),
    batch: int = typer.Option(512, min=1, help="Memories embedded and written per batch."),
    drop_after: bool = typer.Option(
        False, "--drop", help="Delete the bench namespaces afterwards."
    ),
) -> None:
    """Recall p50/p95 latency at each corpus size, against a raw vector-index call and a Bolt round trip."""
    wanted = parse_sizes(sizes)
    embedder = SentenceTransformerEmbedder(Settings().embedding_model)
    texts = questions(queries + warmup)
    timed_queries, warmup_queries = texts[:queries], texts[queries:]
    for size in wanted:
        namespace = f"bench_{size}"
        key = f"bench-{uuid.uuid4().hex}"
        settings = Settings(
            api_keys={key: {"namespace": namespace, "scopes": ["read"], "name": "bench"}}
        )
        app = create_app(settings, embedder=embedder)
        with TestClient(app) as client:
            services: Services = app.state.services
            build = ensure_corpus(services.graph, embedder, namespace, size, batch)
            stored_n = stored(services.graph, namespace)
            rows, rounds = measure(
                services,
                client,
                {"Authorization": f"Bearer {key}"},
                namespace,
                timed_queries,
                warmup_queries,
                limit,
                repeat,
            )
            console.print(table(size, stored_n, rows, rounds, build))
            if drop_after:
                drop(services, namespace)
                console.print(f"dropped {namespace}")
