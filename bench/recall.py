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
import statistics
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import typer
from fastapi.testclient import TestClient
from neo4j import RoutingControl
from rich.table import Table

from bench.common import timed
from bench.corpus import console, ensure_corpus, questions, stored
from service.container import Services
from service.domain.retrieval import RetrievalRequest, lucene_query
from service.embeddings import SentenceTransformerEmbedder
from service.main import create_app
from service.settings import Settings


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
        message = str(record.msg)
        if message.startswith("vector candidates:") and "round" in message:
            assert isinstance(record.args, tuple)
            try:
                rounds, k = int(str(record.args[1])), int(str(record.args[2]))
            except (ValueError, IndexError):
                return  # another line shape (recall without the over-fetch loop)
            self.rounds.append(rounds)
            self.ks.append(k)
            self.exact += len(record.args) > 3 and record.args[3] is True


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
            api_keys={key: {"namespace": namespace, "scopes": ["read"], "name": "bench"}},
            allowed_hosts=["testserver"],  # TestClient's Host
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
