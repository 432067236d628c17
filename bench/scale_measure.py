"""The scale benchmark's measurement phases: reads, writes, traces, lineage (concurrency 1), batches (8)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from neo4j import RoutingControl

from bench.common import bench_graph, search_floor
from bench.encoders import ENCODERS, best_encode, floor_encoders
from bench.load import LoadResult, Request, run_load
from bench.scale_run import LIMIT, LOAD_ACTOR, Interleaved, PrecomputedEmbedder, SizeRun
from bench.workload import memory_body, trace_body
from service.domain.memories import Writer
from service.domain.models import NewMemory
from service.domain.reasoning import draft_from_body, trace_content
from service.domain.retrieval import RetrievalRequest, RetrievalService, lucene_query
from service.graph.repository import packed_vector


@dataclass
class Reads:
    """The concurrency-1 read rounds: samples per probe and short answers.

    Attributes:
        short: `{recall|search: answers with fewer than LIMIT items}`.
    """

    samples: Interleaved
    short: dict[str, int]


def _fulltext(run: SizeRun, i: int) -> object:
    settings = run.services.settings
    return run.services.graph.driver.execute_query(
        "CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) "
        "YIELD node, score RETURN node.uid AS uid, score",
        {
            "index": settings.fulltext_index,
            "query": lucene_query(run.q_at(i)) or "x",
            "k": run.k,
        },
        routing_=RoutingControl.READ,
        database_=settings.neo4j_database,
    )


def measure_reads(run: SizeRun, say: Callable[[str], None]) -> Reads:
    """Time the floors, recall and search at concurrency 1, interleaved.

    Args:
        run: the size's shared state.
        say: progress printer (the floors' p50s).

    Returns:
        The samples (probes `bolt`, `vector`, `encode` (the service's embedder as configured),
        the four floor encodes of `bench.encoders.ENCODERS` (ONNX Runtime and PyTorch, 1 and 2
        threads), `fulltext`, `http_recall`, `inproc_recall`, `pre_recall`, `http_search`) and
        the answers short of `LIMIT`.
    """
    services = run.services
    precomputed = RetrievalService(
        services.graph,
        PrecomputedEmbedder(run.vectors, services.embedder.dimension),
        services.policy,
        services.retrieval.config,
    )
    encoders = floor_encoders(
        services.settings.embedding_model, services.settings.embedding_cache_dir
    )
    short = {"recall": 0, "search": 0}
    # The floor's vectors are packed before the rounds, as `bench.tenancy` does.
    graph = bench_graph(services.graph)
    packed = {q: packed_vector(v) for q, v in run.vectors.items()}

    def http_read(path: str, op: str) -> Callable[[int], object]:
        def call(i: int) -> object:
            r = run.client.post(path, json={"query": run.q_at(i), "limit": LIMIT})
            r.raise_for_status()
            if i >= 0 and r.json()["count"] < LIMIT:
                short[op] += 1
            return r

        return call

    reads = Interleaved()
    reads.run(
        run.profile.reads[0],
        {
            "bolt": run.bolt,
            "vector": lambda i: search_floor(graph, packed[run.q_at(i)], run.namespace, run.k),
            "encode": lambda i: services.embedder.encode([run.q_at(i)]),
            **encoders.probes(run.q_at),
            "fulltext": lambda i: _fulltext(run, i),
            "http_recall": http_read("/v1/recall", "recall"),
            "inproc_recall": lambda i: services.retrieval.recall(
                run.namespace, RetrievalRequest(query=run.q_at(i), limit=LIMIT)
            ),
            "pre_recall": lambda i: precomputed.recall(
                run.namespace, RetrievalRequest(query=run.q_at(i), limit=LIMIT)
            ),
            "http_search": http_read("/v1/search", "search"),
        },
    )
    f_bolt, f_vec = reads.p50("bolt"), reads.p50("vector")
    best, f_enc = best_encode(
        {n: {"p50": reads.p50(n)} for n in ENCODERS if n in reads.samples}, "p50"
    )
    say(
        f"  floors p50: Bolt {f_bolt:.1f} ms, vector SEARCH {f_vec:.1f} ms, encode {f_enc:.1f} ms "
        f"({ENCODERS[best]}; as the service {reads.p50('encode'):.1f} ms)"
    )
    return Reads(reads, short)


def measure_writes(run: SizeRun) -> Interleaved:
    """Time memory writes at concurrency 1 (HTTP and in-process) against encode and Bolt.

    Args:
        run: the size's shared state.

    Returns:
        Samples of probes `bolt`, `encode`, `http_write`, `inproc_write`.
    """
    services, nonce = run.services, run.nonce
    writer = Writer(namespace=run.namespace, origin="user", actor=LOAD_ACTOR)
    writes_c1 = Interleaved()

    def http_write(i: int) -> object:
        r = run.client.post("/v1/memories", json=memory_body(i + 100, nonce))
        if r.status_code != 201:
            raise RuntimeError(f"POST /v1/memories: {r.status_code} {r.text[:300]}")
        return r

    writes_c1.run(
        run.profile.writes[0],
        {
            "bolt": run.bolt,
            "encode": lambda i: services.embedder.encode([memory_body(i, nonce)["content"]]),
            "http_write": http_write,
            "inproc_write": lambda i: services.memories.create(
                writer, NewMemory(**memory_body(1_000_000 + i + 100, nonce))
            ),
        },
    )
    return writes_c1


@dataclass
class Traces:
    """The concurrency-1 trace writes: samples, the decisions they produced, the seed stream."""

    samples: Interleaved
    produced: dict[int, list[str]]
    seeds: Iterator[int]


def measure_traces(run: SizeRun) -> Traces:
    """Time 20- and 100-step trace writes at concurrency 1 against encoding their two texts.

    Args:
        run: the size's shared state.

    Returns:
        Samples of probes `bolt`, `http_trace_<n>`, `encode_trace_<n>`, and the produced
        decisions' memory_ids by step count (lineage reads them).
    """
    services, nonce, cites = run.services, run.nonce, run.cites
    produced: dict[int, list[str]] = {20: [], 100: []}
    seeds = iter(range(1, 10**9))
    trace_c1 = Interleaved()

    def http_trace(steps: int) -> Callable[[int], object]:
        def call(_: int) -> object:
            r = run.client.post("/v1/reasoning", json=trace_body(steps, next(seeds), nonce, cites))
            if r.status_code != 201:
                raise RuntimeError(f"POST /v1/reasoning: {r.status_code} {r.text[:300]}")
            produced[steps].append(r.json()["produced"][0]["memory_id"])
            return r

        return call

    def encode_trace(steps: int) -> Callable[[int], object]:
        def call(i: int) -> object:
            b = trace_body(steps, 10**6 + i, nonce, cites)
            return services.embedder.encode(
                [trace_content(draft_from_body(b)), b["produced"]["content"]]
            )

        return call

    trace_c1.run(
        run.profile.traces[0],
        {
            "bolt": run.bolt,
            "http_trace_20": http_trace(20),
            "encode_trace_20": encode_trace(20),
            "http_trace_100": http_trace(100),
            "encode_trace_100": encode_trace(100),
        },
        warmup=1,
    )
    return Traces(trace_c1, produced, seeds)


def measure_lineage(run: SizeRun, produced: dict[int, list[str]]) -> Interleaved:
    """Time lineage reads of the produced decisions at concurrency 1 against Bolt.

    Args:
        run: the size's shared state.
        produced: memory_ids of decisions by their trace's step count.

    Returns:
        Samples of probes `bolt`, `lineage_20`, `lineage_100`.
    """
    lineage_c1 = Interleaved()

    def http_lineage(steps: int) -> Callable[[int], object]:
        def call(i: int) -> object:
            ids = produced[steps]
            r = run.client.get(f"/v1/memories/{ids[i % len(ids)]}/lineage")
            r.raise_for_status()
            return r

        return call

    lineage_c1.run(
        run.profile.lineage[0],
        {"bolt": run.bolt, "lineage_20": http_lineage(20), "lineage_100": http_lineage(100)},
    )
    return lineage_c1


@dataclass
class Batches:
    """The concurrency-8 batches: memory writes, recall/search, traces and lineage by step count."""

    writes: LoadResult
    reads: dict[str, LoadResult]
    traces: dict[int, LoadResult]
    lineage: dict[int, LoadResult]


def _post(path: str, payload: dict[str, Any]) -> Request:
    return lambda c: c.post(path, json=payload)


def _get(path: str) -> Request:
    return lambda c: c.get(path)


def _count(r: httpx.Response) -> int:
    return int(r.json()["count"])


def measure_batches(run: SizeRun, traces: Traces) -> Batches:
    """Send the same HTTP requests in closed-loop batches at the profile's concurrency.

    Args:
        run: the size's shared state.
        traces: the concurrency-1 traces (their produced decisions and seed stream).

    Returns:
        One `LoadResult` per batch.
    """
    url, headers, nonce, c8 = run.url, run.headers, run.nonce, run.profile.concurrency
    nw8, nt8, nl8 = run.profile.writes[1], run.profile.traces[1], run.profile.lineage[1]
    base = 10_000_000
    res_w8 = run_load(
        url,
        headers,
        [_post("/v1/memories", memory_body(base + i, nonce)) for i in range(nw8)],
        c8,
        warmup=[_post("/v1/memories", memory_body(base - 1 - i, nonce)) for i in range(2 * c8)],
        expect=(201,),
    )
    res_r8 = {}
    for op in ("recall", "search"):
        res_r8[op] = run_load(
            url,
            headers,
            [_post(f"/v1/{op}", {"query": q, "limit": LIMIT}) for q in run.c8_qs],
            c8,
            warmup=[
                _post(f"/v1/{op}", {"query": q, "limit": LIMIT}) for q in run.warm_qs[: 2 * c8]
            ],
            keep=_count,
        )
    res_t8 = {}
    for steps in (20, 100):
        res_t8[steps] = run_load(
            url,
            headers,
            [
                _post("/v1/reasoning", trace_body(steps, next(traces.seeds), nonce, run.cites))
                for _ in range(nt8)
            ],
            c8,
            expect=(201,),
        )
    res_l8 = {}
    for steps in (20, 100):
        ids = traces.produced[steps]
        res_l8[steps] = run_load(
            url,
            headers,
            [_get(f"/v1/memories/{ids[i % len(ids)]}/lineage") for i in range(nl8)],
            c8,
            warmup=[_get(f"/v1/memories/{i}/lineage") for i in ids[:c8]],
        )
    return Batches(res_w8, res_r8, res_t8, res_l8)
