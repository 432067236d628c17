"""Speed and scale of the real service against the physical floors, at one corpus size per call."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

from bench.common import bench_graph, memory_row, neo4j_pid, proc_status_kb, write_rows
from bench.corpus import synthetic
from bench.encoders import ENCODERS
from bench.scale_measure import (
    measure_batches,
    measure_lineage,
    measure_reads,
    measure_traces,
    measure_writes,
)
from bench.scale_report import Measured, c1_throughput, fastest_encode, size_rows
from bench.scale_run import LOAD_ACTOR, ScaleProfile, load_corpus, start_run
from bench.service_process import ServiceProcess
from bench.workload import LOAD_OFFSET
from service.container import Services
from service.domain.models import Kind, Writer


def cleanup(services: Services, namespace: str) -> int:
    """Delete what the load wrote in `namespace` (actor `bench-load`, their steps, orphan tasks)."""
    assert namespace.startswith("bench_")
    deleted = 0
    with services.graph.driver.session(database=services.settings.neo4j_database) as session:
        for query in (
            "MATCH (t:ReasoningTrace {namespace: $ns}) WHERE t.created_by_actor = $actor "
            "MATCH (t)-[:HAS_STEP]->(s:ReasoningStep) "
            "CALL (s) { DETACH DELETE s } IN TRANSACTIONS OF 2000 ROWS",
            "MATCH (m:Memory {namespace: $ns}) WHERE m.created_by_actor = $actor "
            "CALL (m) { DETACH DELETE m } IN TRANSACTIONS OF 2000 ROWS",
            "MATCH (k:Task {namespace: $ns}) WHERE NOT (k)<-[:SERVED]-() "
            "CALL (k) { DETACH DELETE k } IN TRANSACTIONS OF 2000 ROWS",
        ):
            summary_ = session.run(query, ns=namespace, actor=LOAD_ACTOR).consume()
            deleted += summary_.counters.nodes_deleted
    return deleted


def bulk_rows(namespace: str, start: int, stop: int, nonce: str) -> list[tuple[Kind, str, str]]:
    """Return (kind, content, origin) of bulk-load memories start..stop-1 (unique per run)."""
    out = []
    for i in range(start, stop):
        kind, text, origin = synthetic(2 * LOAD_OFFSET + i)
        out.append((kind, f"{text} [bulk {nonce}]", origin))
    return out


def measure_bulk(
    services: Services, namespace: str, total: int, nonce: str, batch: int = 128
) -> dict[str, Any]:
    """Embed then write `total` memories in batches, timing the two apart (memories/s each).

    Batches alternate between the process's torch thread count (as the service runs) and one
    thread, so both embedding rates are measured in the same minutes of machine load. The
    end-to-end rate is with the process's thread count.
    """
    import torch

    threads = torch.get_num_threads()
    embed_s = {threads: 0.0, 1: 0.0}
    embedded = {threads: 0, 1: 0}
    write_s = 0.0
    for n, start in enumerate(range(0, total, batch)):
        items = bulk_rows(namespace, start, min(start + batch, total), nonce)
        use = 1 if n % 2 else threads
        torch.set_num_threads(use)
        try:
            t0 = time.perf_counter()
            vectors = services.embedder.encode([text for _, text, _ in items])
            embed_s[use] += time.perf_counter() - t0
            embedded[use] += len(items)
        finally:
            torch.set_num_threads(threads)
        now = datetime.now(UTC)
        rows = [
            memory_row(Writer(namespace, origin, LOAD_ACTOR), kind, text, vector, now=now)
            for (kind, text, origin), vector in zip(items, vectors, strict=True)
        ]
        t2 = time.perf_counter()
        bench_graph(services.graph).write(partial(write_rows, rows=rows))
        write_s += time.perf_counter() - t2
    embed_rate = embedded[threads] / embed_s[threads] if embed_s[threads] else float("nan")
    embed_rate_1 = embedded[1] / embed_s[1] if embed_s[1] and threads != 1 else embed_rate
    write_rate = total / write_s
    return {
        "memories": total,
        "batch": batch,
        "torch_threads": threads,
        "write_s": write_s,
        "embed_per_s": embed_rate,
        "embed_per_s_1_thread": embed_rate_1,
        "write_per_s": write_rate,
        "end_to_end_per_s": 1.0 / (1.0 / embed_rate + 1.0 / write_rate),
        "end_to_end_per_s_1_thread": 1.0 / (1.0 / embed_rate_1 + 1.0 / write_rate),
        "embed_share": (1.0 / embed_rate) / (1.0 / embed_rate + 1.0 / write_rate),
    }


def measure_size(
    size: int,
    services: Services,
    svc: ServiceProcess,
    key: str,
    profile: ScaleProfile,
    *,
    say: Callable[[str], None],
    batch: int = 512,
) -> dict[str, Any]:
    """Build or reuse `bench_<size>`, run every measurement below, clean up.

    Speed and scale of the real service against the physical floors, at one corpus size per call.

    For a size N the namespace `bench_<N>` holds N synthetic memories (built and reused exactly as
    `bench.corpus.ensure_corpus`). Then, in one run:

    Concurrency 1, interleaved (`Interleaved`: round i calls every probe once, so a request and
    its floor are measured in the same minute of a shared machine's load):
        - floors, in this process on its own driver and model: one Bolt `RETURN 1`, one
          filtered vector `SEARCH` of the namespace (`bench.common.search_floor`) with a
          precomputed embedding and recall's vector depth (`retrieval_vector_depth`), one query
          encode: the fastest of ONNX Runtime and PyTorch with 1 and 2 threads (`bench.encoders`); parts: each of those four, the service's own
          embedder as configured, one raw fulltext call;
        - over HTTP against `rationale serve` in its own process (`ServiceProcess`):
          `POST /v1/recall`, `POST /v1/search`, `POST /v1/memories`, `POST /v1/reasoning` with 20-
          and 100-step traces, `GET /v1/memories/{id}/lineage` of the decisions they produced;
        - in-process, to split where the time goes: `RetrievalService.recall` (no HTTP), the same
          with the query embedding precomputed (Neo4j + Python only), `MemoryService.create`.

    Each figure's floor is the least work its request must do: recall/search = encode + vector,
    a memory write = encode + Bolt, a trace write = encode of its two texts + Bolt, lineage = Bolt.

    Concurrency 8 (`bench.load`, closed loop, 8 threads with one keep-alive client each): the same
    HTTP requests in batches; the ratio is to the concurrency-1 floor, so it includes queueing.

    Bulk writes (the API has no batch endpoint for memories): the corpus path, `UNWIND $rows`
    through `cypher/bench/create_memories.cypher`, embedding and writing timed apart.

    Everything the load wrote (key name `bench-load`, so `created_by_actor = 'bench-load'`) is
    deleted at the end of the size, so the corpus stays N memories for the next run.

    Phases: load (`load_corpus`), warm-up inputs (`start_run`), measurements
    (`bench.scale_measure`), bulk writes (`measure_bulk`), report (`bench.scale_report`).

    Returns:
        `{size, namespace, stored, global_memories, build, floors_ms, rows[], writes{}, rss{},
        seconds}`.
    """
    namespace = f"bench_{size}"
    started = time.perf_counter()
    corpus = load_corpus(services, namespace, size, batch, say)
    run = start_run(size, services, svc, key, profile)
    reads = measure_reads(run, say)
    writes_c1 = measure_writes(run)
    traces = measure_traces(run)
    lineage_c1 = measure_lineage(run, traces.produced)
    run.client.close()
    say("  concurrency 1 done")
    batches = measure_batches(run, traces)
    say("  concurrency 8 done")

    bulk = measure_bulk(services, namespace, profile.bulk, run.nonce)
    say(f"  bulk: {bulk['end_to_end_per_s']:.0f} memories/s ({bulk['embed_share']:.0%} embedding)")

    measured = Measured(reads, writes_c1, traces, lineage_c1, batches)
    rows = size_rows(run, measured)
    neo = neo4j_pid()
    rss = {
        "service_peak_mb": svc.peak_rss_mb(),
        "service_now_mb": svc.rss_mb(),
        "neo4j_peak_mb": (proc_status_kb(neo, "VmHWM") or 0) / 1024 if neo else None,
    }
    deleted = cleanup(services, namespace)
    say(f"  cleaned up {deleted} nodes written by the load")
    ws = writes_c1.samples
    writes = {
        "single_c1_per_s": c1_throughput(ws["http_write"]),
        "single_c8_per_s": batches.writes.throughput,
        "single_c1_inproc_per_s": c1_throughput(ws["inproc_write"]),
        "encode_one_ms": writes_c1.p50("encode"),
        "bulk": bulk,
    }
    return {
        "size": size,
        "namespace": namespace,
        "stored": corpus.stored,
        "global_memories": corpus.global_memories,
        "build": corpus.build,
        "torch_threads": run.threads,
        "floors_ms": {
            "bolt": reads.samples.p50("bolt"),
            "vector": reads.samples.p50("vector"),
            "encode": fastest_encode(reads.samples)[1],
            "encode_service": reads.samples.p50("encode"),
            **{name: reads.samples.p50(name) for name in ENCODERS if name in reads.samples.samples},
            "vector_k": run.k,
        },
        "rows": rows,
        "writes": writes,
        "rss": rss,
        "seconds": time.perf_counter() - started,
    }
