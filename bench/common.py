"""Shared helpers of the suite (`scripts/bench --quick|--full`): percentiles, machine facts, timing.

Percentiles are computed with numpy's default (linear interpolation between closest ranks); with
n samples, p99 rests on the top `n/100` of them, so the tables always show n next to it.
"""

from __future__ import annotations

import inspect
import os
import platform
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from neo4j.vector import Vector

from service.domain.memories import build_memory_row
from service.domain.models import KIND_LABELS, Kind, Writer
from service.graph.cypher import QueryRegistry
from service.graph.query_names import DevQueryName
from service.graph.repository import Graph, Row, Tx

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"


def summary(samples_ms: Sequence[float]) -> dict[str, float]:
    """Return n, mean, p50, p95, p99 and max of latency samples in milliseconds."""
    if not samples_ms:
        nan = float("nan")
        return {"n": 0, "mean": nan, "p50": nan, "p95": nan, "p99": nan, "max": nan}
    a = np.asarray(samples_ms, dtype=float)
    p50, p95, p99 = np.percentile(a, [50, 95, 99])
    return {
        "n": len(a),
        "mean": float(a.mean()),
        "p50": float(p50),
        "p95": float(p95),
        "p99": float(p99),
        "max": float(a.max()),
    }


def timed(
    call: Callable[[Any], object], inputs: Sequence[Any], warmup: Sequence[Any]
) -> list[float]:
    """Run `call` on each warm-up input untimed, then on each input; return milliseconds."""
    for x in warmup:
        call(x)
    out = []
    for x in inputs:
        t0 = time.perf_counter()
        call(x)
        out.append((time.perf_counter() - t0) * 1000.0)
    return out


def loadavg() -> list[float]:
    """Return the 1, 5 and 15 minute load averages (the machine is shared: read them with the figures)."""
    return [round(x, 2) for x in os.getloadavg()]


def proc_status_kb(pid: int, field: str) -> int | None:
    """Return a `kB` field of /proc/<pid>/status (VmHWM = peak RSS, VmRSS = current), or None."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def neo4j_pid() -> int | None:
    """Return the pid of the local Neo4j started by `scripts/neo4j` (`.neo4j/run/neo4j.pid`), if any."""
    path = REPO / ".neo4j" / "run" / "neo4j.pid"
    try:
        pid = int(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if Path(f"/proc/{pid}").exists() else None


def process_cpu_s(pid: int) -> float | None:
    """Return the user + system CPU seconds process `pid` has used (/proc/<pid>/stat), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_quiet(
    pid: int | None, below: float = 0.05, window_s: float = 2.0, timeout_s: float = 300.0
) -> float:
    """Wait until process `pid` uses less than `below` of a core over `window_s`; return seconds waited.

    After a bulk load Neo4j keeps merging the vector and fulltext indexes' Lucene segments on
    background threads for a minute or more; a latency measured then measures the merges too.
    Returns at once when `pid` is None (no local server to watch); gives up after `timeout_s`.
    """
    started = time.perf_counter()
    if pid is None:
        return 0.0
    while time.perf_counter() - started < timeout_s:
        before = process_cpu_s(pid)
        time.sleep(window_s)
        after = process_cpu_s(pid)
        if before is None or after is None or (after - before) / window_s < below:
            break
    return time.perf_counter() - started


def search_floor(graph: Graph, embedding: Vector, namespace: str, k: int) -> list[Row]:
    """Run recall's vector floor: one filtered `SEARCH` of `namespace` for its top `k`.

    Args:
        graph: a `bench_graph` (the query is dev-only: `cypher/bench/search_vector_floor`).
        embedding: the query vector, packed once beforehand (`packed_vector`), as recall sends it.
        namespace: the tenant searched.
        k: the `SEARCH` limit (recall's `retrieval_vector_depth`).
    """
    return graph.run(
        DevQueryName.BENCH_SEARCH_VECTOR_FLOOR,
        {"embedding": embedding, "namespace": namespace, "k": k},
    )


def git_commit() -> str:
    """Return the checked-out commit and `+dirty` when the tree has changes (read-only git calls)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def machine() -> dict[str, Any]:
    """Return what the figures depend on: CPUs, memory, Python, torch threads, load average."""
    import torch

    mem_kb = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            mem_kb = int(line.split()[1])
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "mem_gb": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "torch_threads": torch.get_num_threads(),
        "loadavg_start": loadavg(),
        "commit": git_commit(),
    }


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with `n` torch intra-op threads in this process, then restore the count.

    Used for setup (building corpora, embedding LoCoMo turns): on a shared 2-core machine one
    thread embeds 2-3x faster than two, which wait on each other when one is preempted.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def memory_row(
    writer: Writer,
    kind: Kind,
    content: str,
    embedding: list[float],
    *,
    now: datetime,
    valid_from: datetime | None = None,
    metadata_json: str | None = None,
    **sequence: Any,
) -> dict[str, Any]:
    """Return one `$rows` entry of `bench/create_memories`: the label and the service's row.

    The properties come from the service's one builder (`build_memory_row`), so a benchmark
    corpus is stored exactly as the service stores a memory.

    Args:
        writer: namespace, origin and actor of the memory.
        kind: its kind (gives the label).
        content: clean synthetic text.
        embedding: list[float], len == settings.embedding_dim, L2-normalised.
        now: system time of the write (timezone-aware UTC datetime).
        valid_from: start of valid time; default `now`.
        metadata_json: serialised metadata, or None.
        **sequence: where the memory sits in its material (`episode`, `position`): passed to
            the builder when it accepts them (see `row_accepts`), dropped otherwise.

    Returns:
        `{label, props}`.
    """
    props = build_memory_row(
        writer,
        kind,
        content,
        embedding,
        now=now,
        valid_from=valid_from,
        metadata_json=metadata_json,
        **{k: v for k, v in sequence.items() if row_accepts(k)},
    )
    return {"label": KIND_LABELS[kind], "props": props}


@cache
def row_accepts(name: str) -> bool:
    """Whether the service's row builder takes the keyword `name` (e.g. `episode`)."""
    return name in inspect.signature(build_memory_row).parameters


@cache
def _dev_registry(cypher_dir: Path) -> QueryRegistry:
    return QueryRegistry.dev(cypher_dir)


def bench_graph(graph: Graph, cypher_dir: Path = REPO / "cypher") -> Graph:
    """Return a runner of the dev-only queries (`cypher/bench`) on the service graph's driver.

    Args:
        graph: the service's graph (driver, database, timeout are reused).
        cypher_dir: the `cypher/` folder.

    Returns:
        A `Graph` whose registry holds only `DevQueryName` queries.
    """
    return Graph(graph.driver, _dev_registry(cypher_dir), graph.database, graph.timeout_s)


def write_rows(tx: Tx, rows: list[dict[str, Any]]) -> Row | None:
    """Write one batch of `bench/create_memories` rows in the given transaction of a `bench_graph`."""
    return tx.one(DevQueryName.BENCH_CREATE_MEMORIES, {"rows": rows})
