"""Recall in a multi-tenant database: filler tenants, the encode + filtered-SEARCH floor, stage times.

The measured tenant is `bench_10000` (10k synthetic memories with real embeddings, built by
`bench.corpus.ensure_corpus`). A database *size* N is the total number of `:Memory` nodes: the
rest are filler tenants `bench_filler_00..` (`FILLER_TENANT_SIZE` memories each) holding
synthetic text of the same vocabulary and random unit vectors, bulk loaded with
`cypher/bench/create_memories.cypher` (`UNWIND $rows`, one transaction per batch). Random
vectors are fine for latency at scale (they are the hardest case for HNSW), not for quality.

Per size, interleaved in rounds (`Interleaved`: each round calls every probe once, so a recall
and its floor share the same minute of a shared machine's load):

- `encode_onnx_1t`, `encode_onnx_2t`, `encode_torch_1t`, `encode_torch_2t`: one query encode
  with ONNX Runtime (the service's backend) and with PyTorch, each with 1 and with 2 intra-op
  threads (`bench.encoders`: embedders built once per process);
- `search`: one filtered vector `SEARCH` (`cypher/bench/search_vector_floor.cypher`) in the
  tenant's namespace, `LIMIT k` with recall's candidate depth (`retrieval_vector_depth`);
  the vector sent packed (`packed_vector`), as recall sends it;
- `fulltext`: one raw fulltext call (what recall's lexical side costs, before any filter);
- `inproc_recall`: `RetrievalService.recall` in this process; `pre_recall`: the same with the
  query's embedding precomputed (Neo4j + Python only); `http_recall`: `POST /v1/recall` on the
  service in its own process.

The floor is the fastest of the four encodes + `search`, per percentile (p50 with p50s, p95
with p95s; the fastest encode may differ between them). Where the time goes: encode, SEARCH,
fulltext and "the rest" (`pre_recall - search - fulltext`: hydration, filters, fusion, Python)
are printed beside it. Since recall asks the fulltext index while it encodes the query (and the
task index beside the vector index), "the rest" of a recall is now a lower bound (its fulltext
overlaps its other round trips).

Measured 2026-12-01 before ONNX Runtime (the encodes were PyTorch's, the floor the faster of
1 and 2 torch threads; own server, 2026.09, 2 GB heap / 4 GB page cache; `--sizes N --no-speed
--keep-filler --rounds 60`, commit e5b631d = before, def06f9 = after, runs alternated on one
server, 1-minute load 4-8 on 2 shared cores), p50 / p95 ms, HTTP = `POST /v1/recall` on the
service in its own process:

| database | run | floor | recall in-process | HTTP | HTTP p95 / floor p95 |
|---|---|---:|---:|---:|---:|
| 10k | before | 26.7 / 42.4 | 47.2 / 72.9 | 52.1 / 80.7 | 1.90x |
| 10k | after | 65.3 / 136 | 98.7 / 160 | 87.2 / 173 | 1.27x |
| 10k | before | 54.9 / 121 | 116 / 177 | 92.6 / 182 | 1.50x |
| 10k | after | 34.1 / 80.2 | 72.8 / 98.9 | 55.7 / 101 | 1.25x |
| 100k | before | 53.4 / 117 | 100 / 158 | 86.7 / 140 | 1.20x |
| 100k | after | 51.5 / 96.9 | 84.4 / 136 | 82.7 / 140 | 1.45x |
| 100k | before | 49.3 / 119 | 111 / 187 | 80.6 / 143 | 1.20x |
| 100k | after | 50.2 / 112 | 84.7 / 128 | 86.1 / 127 | 1.14x |
| 476k | before | 27.5 / 61.4 | 56.2 / 88.9 | 53.2 / 91.8 | 1.49x |
| 476k | after | 48.2 / 146 | 94.6 / 155 | 91.9 / 164 | 1.13x |
| 1M | after (load 10, right after the fill) | 128 / 226 | 209 / 335 | 200 / 318 | 1.41x |
| 1M | before | 28.0 / 72.7 | 53.1 / 105 | 55.4 / 87.0 | 1.20x |
| 1M | after | 46.3 / 149 | 86.8 / 138 | 78.9 / 142 | 0.95x |

Every "after" run is within 1.5x of its floor at p95 (0.95-1.45x; before: 1.20-1.90x); the
p50 ratio is still 1.3-1.9x (in-process 1.5-2.1x), and at these loads a run's own floor moves by
2x between runs, so compare only within a row pair. At 1M (after, p50 ms): encode 25.2,
SEARCH 21.0, fulltext 15.4 (hidden under the encode), the rest at least 4.0; before 15.0 /
13.0 / 9.1 / 11.2. 1M runs need `RATIONALE_QUERY_TIMEOUT_S=300` (the filler count under load).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

import httpx
import numpy as np
import typer
from neo4j import RoutingControl
from neo4j.vector import Vector

from bench.common import bench_graph, memory_row, search_floor, summary
from bench.corpus import questions, stored, synthetic
from bench.encoders import ENCODERS, best_encode, floor_encoders
from bench.scale_run import Interleaved, PrecomputedEmbedder, global_memories
from service.container import Services, freeze_heap
from service.domain.models import Writer
from service.domain.retrieval import RetrievalRequest, RetrievalService, lucene_query
from service.graph.query_names import DevQueryName
from service.graph.repository import Tx, packed_vector

TENANT = "bench_10000"
TENANT_SIZE = 10_000
FILLER_PREFIX = "bench_filler_"
FILLER_TENANT_SIZE = 50_000
#: Filler memory i is `synthetic(FILLER_OFFSET + i)`: never the text of a tenant memory.
FILLER_OFFSET = 50_000_000
LIMIT = 10


def filler_namespaces(total: int) -> list[str]:
    """Return the filler namespaces holding `total` memories (`bench_filler_00`, ...)."""
    return [f"{FILLER_PREFIX}{i:02d}" for i in range(max(1, -(-total // FILLER_TENANT_SIZE)))]


def filler_stored(services: Services, upto: int = 2_000_000) -> dict[str, int]:
    """Return `{namespace: memories}` of the filler namespaces that hold any."""
    rows = bench_graph(services.graph).run(
        DevQueryName.BENCH_COUNT_NAMESPACES, {"namespaces": filler_namespaces(upto)}
    )
    return {str(r["namespace"]): int(r["n"]) for r in rows if int(r["n"])}


def filler_rows(start: int, stop: int, dim: int) -> list[dict[str, Any]]:
    """Build filler memories start..stop-1: synthetic text, random unit vectors (seeded by start).

    The vector goes over Bolt packed (`neo4j.vector.Vector`, float32 bytes: ~15x cheaper to send
    than a list of 384 floats through the pure-Python packer) and is stored as the float list the
    service stores (`toFloatList`), so the vector index holds filler exactly like real memories.
    """
    rng = np.random.default_rng(start)
    vectors = rng.standard_normal((stop - start, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    now = datetime.now(UTC)
    rows = []
    for i, vector in zip(range(start, stop), vectors, strict=True):
        kind, text, origin = synthetic(FILLER_OFFSET + i)
        ns = f"{FILLER_PREFIX}{i // FILLER_TENANT_SIZE:02d}"
        row = memory_row(Writer(ns, origin, "bench-filler"), kind, text, [], now=now)
        del row["props"]["embedding"]
        row["embedding"] = Vector.from_numpy(vector)
        rows.append(row)
    return rows


def _write_filler(tx: Tx, rows: list[dict[str, Any]]) -> object:
    return tx.one(DevQueryName.BENCH_CREATE_FILLER, {"rows": rows})


def fill(
    services: Services, total: int, say: Callable[[str], None], batch: int = 2000
) -> dict[str, Any]:
    """Top the filler tenants up to `total` memories; return `{stored, written, seconds, per_s}`.

    Memories are numbered across tenants (memory i goes to tenant `i // FILLER_TENANT_SIZE`), so
    a top-up continues where the last load stopped. Building rows (Python, numpy) overlaps with
    the previous batch's write.
    """
    have = sum(filler_stored(services).values())
    if have >= total:
        return {"stored": have, "written": 0, "seconds": 0.0, "per_s": None}
    from concurrent.futures import Future, ThreadPoolExecutor

    graph = bench_graph(services.graph)
    dim = services.embedder.dimension
    started = time.perf_counter()
    last = started
    pending: Future[Any] | None = None
    with ThreadPoolExecutor(max_workers=1) as writer:
        for start in range(have, total, batch):
            rows = filler_rows(start, min(start + batch, total), dim)
            if pending is not None:
                pending.result()
            pending = writer.submit(graph.write, partial(_write_filler, rows=rows))
            if time.perf_counter() - last > 60:
                last = time.perf_counter()
                done = start - have
                say(f"  filler: {have + done} of {total} ({done / (last - started):.0f}/s)")
        if pending is not None:
            pending.result()
    seconds = time.perf_counter() - started
    return {
        "stored": total,
        "written": total - have,
        "seconds": seconds,
        "per_s": (total - have) / seconds,
        "batch": batch,
    }


def drop_filler(services: Services, say: Callable[[str], None], batch: int = 10_000) -> int:
    """Delete every filler memory (batches of `batch` per transaction); return how many."""
    graph = bench_graph(services.graph)
    deleted = 0
    started = time.perf_counter()
    for ns in filler_stored(services):
        while True:
            row = graph.run(
                DevQueryName.BENCH_DELETE_NAMESPACE_BATCH, {"namespace": ns, "n": batch}
            )
            n = int(row[0]["deleted"]) if row else 0
            deleted += n
            if n < batch:
                break
    if deleted:
        say(f"  dropped {deleted} filler memories in {time.perf_counter() - started:.0f} s")
    return deleted


def fill_to_size(services: Services, size: int, say: Callable[[str], None]) -> dict[str, Any]:
    """Top the filler up so the database holds about `size` memories in all; return the load."""
    filler = sum(filler_stored(services).values())
    others = global_memories(services) - filler
    load = fill(services, max(0, size - others), say)
    say(
        f"  database: {others} non-filler + {load['stored']} filler memories"
        + (f"; loaded {load['written']} at {load['per_s']:.0f}/s" if load["written"] else "")
    )
    return load


def measure(
    services: Services,
    size: int,
    rounds: int,
    say: Callable[[str], None],
    http: httpx.Client | None = None,
) -> dict[str, Any]:
    """Time recall of the tenant against its floor at the database's current size.

    Args:
        services: the in-process services (their driver and model).
        size: the nominal database size (a label; the real counts are recorded).
        rounds: timed rounds (each calls every probe once).
        say: progress printer.
        http: a client of the service process (base URL and key), or None (no HTTP probe).

    Returns:
        `{size, global_memories, tenant, k, best_encode, best_encode_p95 (the fastest encode
        probe at p50 and p95), service_encoder{backend, threads}, samples{probe: summary},
        floor{p50, p95}, ratios{probe: {p50, p95}}, stages_p50{...}, short}`.
    """
    k = services.settings.retrieval_vector_depth
    texts = questions(rounds + 4, seed=size % 9973)
    vectors = dict(zip(texts, services.embedder.encode(texts), strict=True))
    # The floor's SEARCH sends its vector packed, as recall does (`packed_vector`: measured
    # 4.68 against 4.91 ms p50 with the 384 floats as a list), so the floor is the faster one.
    packed = {t: packed_vector(v) for t, v in vectors.items()}
    precomputed = RetrievalService(
        services.graph,
        PrecomputedEmbedder(vectors, services.embedder.dimension),
        services.policy,
        services.retrieval.config,
    )
    graph = bench_graph(services.graph)
    encoders = floor_encoders(
        services.settings.embedding_model, services.settings.embedding_cache_dir
    )
    short = {"recall": 0}

    def q(i: int) -> str:
        return texts[i] if i >= 0 else texts[rounds - 1 - i]

    def recall(i: int) -> object:
        answer = services.retrieval.recall(TENANT, RetrievalRequest(query=q(i), limit=LIMIT))
        if i >= 0 and len(answer.items) < LIMIT:
            short["recall"] += 1
        return answer

    probes: dict[str, Callable[[int], object]] = {
        **encoders.probes(q),
        "search": lambda i: search_floor(graph, packed[q(i)], TENANT, k),
        "fulltext": lambda i: services.graph.driver.execute_query(
            "CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) "
            "YIELD node, score RETURN node.uid AS uid, score",
            {
                "index": services.settings.fulltext_index,
                "query": lucene_query(q(i)) or "x",
                "k": k,
            },
            routing_=RoutingControl.READ,
            database_=services.settings.neo4j_database,
        ),
        "inproc_recall": recall,
        "pre_recall": lambda i: precomputed.recall(
            TENANT, RetrievalRequest(query=q(i), limit=LIMIT)
        ),
    }
    if http is not None:

        def http_recall(i: int) -> object:
            r = http.post("/v1/recall", json={"query": q(i), "limit": LIMIT})
            r.raise_for_status()
            return r

        probes["http_recall"] = http_recall
    # As a serving process does once built (`freeze_heap`): the floor's encoders are built now.
    freeze_heap()
    runs = Interleaved()
    runs.run(rounds, probes, warmup=3)
    s = {name: summary(v) for name, v in runs.samples.items()}
    fastest = {p: best_encode(s, p) for p in ("p50", "p95")}
    floor = {p: fastest[p][1] + s["search"][p] for p in ("p50", "p95")}
    best = fastest["p50"][0]
    ratios: dict[str, dict[str, float]] = {
        name: {p: s[name][p] / floor[p] for p in ("p50", "p95")}
        for name in ("inproc_recall", "http_recall")
        if name in s
    }
    stages = {
        "encode (best)": s[best]["p50"],
        "vector SEARCH": s["search"]["p50"],
        "fulltext": s["fulltext"]["p50"],
        "rest (hydration, filters, fusion, Python)": max(
            0.0, s["pre_recall"]["p50"] - s["search"]["p50"] - s["fulltext"]["p50"]
        ),
    }
    result = {
        "size": size,
        "global_memories": global_memories(services),
        "tenant": TENANT,
        "k": k,
        "best_encode": best,
        "best_encode_p95": fastest["p95"][0],
        "service_encoder": {
            "backend": getattr(services.embedder, "backend", type(services.embedder).__name__),
            "threads": services.settings.embedding_threads,
        },
        "samples": s,
        "floor": floor,
        "ratios": ratios,
        "stages_p50": stages,
        "short": short["recall"],
    }
    main = "http_recall" if "http_recall" in s else "inproc_recall"
    say(
        f"  {size}: floor p50 {floor['p50']:.1f} / p95 {floor['p95']:.1f} ms "
        f"({ENCODERS[best]} + SEARCH); {main} p50 "
        f"{s[main]['p50']:.1f} / p95 {s[main]['p95']:.1f} ms "
        f"(p95 {ratios[main]['p95']:.2f}x floor p95)"
    )
    return result


def copy_tenant(services: Services, source_uri: str, batch: int = 1000) -> int:
    """Copy tenant `bench_10000` (properties and real embeddings) from another server; return how many.

    Saves re-embedding 10k texts when a second server (e.g. one for 1M) needs the same tenant.
    The memories keep their uids and texts; their vectors travel packed (`Vector`).
    """
    import neo4j

    settings = services.settings
    auth = (settings.neo4j_username, settings.neo4j_password.get_secret_value())
    with neo4j.GraphDatabase.driver(source_uri, auth=auth) as source:
        records, _, _ = source.execute_query(
            "MATCH (m:Memory {namespace: $ns}) RETURN labels(m) AS labels, properties(m) AS props",
            {"ns": TENANT},
            routing_=RoutingControl.READ,
            database_=settings.neo4j_database,
        )
    rows = []
    for r in records:
        props = dict(r["props"])
        embedding = np.asarray(props.pop("embedding"), dtype=np.float32)
        label = next(x for x in r["labels"] if x != "Memory")
        rows.append({"label": label, "props": props, "embedding": Vector.from_numpy(embedding)})
    graph = bench_graph(services.graph)
    for start in range(0, len(rows), batch):
        graph.write(partial(_write_filler, rows=rows[start : start + batch]))
    return len(rows)


def fill_main(
    total: int = typer.Option(990_000, min=0, help="Filler memories wanted (other tenants)."),
    batch: int = typer.Option(2000, min=1, help="Memories per transaction."),
    drop: bool = typer.Option(False, "--drop", help="Delete all filler memories instead."),
    copy_tenant_from: str = typer.Option(
        "", help="Also copy tenant bench_10000 from this server (bolt URI) when missing here."
    ),
) -> None:
    """Load (or top up, or drop) the filler tenants of a large multi-tenant database; print the rate."""
    from service.container import build_services
    from service.settings import Settings

    services = build_services(Settings())
    try:
        if drop:
            drop_filler(services, print)
            return
        if copy_tenant_from and not stored(services.graph, TENANT):
            print(f"copied {copy_tenant(services, copy_tenant_from)} memories of {TENANT}")
        load = fill(services, total, print, batch)
        print(
            f"filler: {load['stored']} stored; wrote {load['written']} in {load['seconds']:.0f} s"
            + (f" ({load['per_s']:.0f}/s)" if load["written"] else "")
        )
    finally:
        services.close()
