"""Speed and scale of the real service against the physical floors, at one corpus size per call.

For a size N the namespace `bench_<N>` holds N synthetic memories (built and reused exactly as
`scripts/bench recall` does, `bench.recall.ensure_corpus`). Then, in one run:

Concurrency 1, interleaved (`Interleaved`: round i calls every probe once, so a request and
its floor are measured in the same minute of a shared machine's load):
    - floors, in this process on its own driver and model: one Bolt `RETURN 1`, one raw
      `db.index.vector.queryNodes` with a precomputed embedding and recall's first-round k
      (`limit x vector_overfetch`), one model encode of the query (with the torch thread count
      the service uses, and with 1 thread); parts: one raw fulltext call;
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
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

import httpx
from neo4j import RoutingControl

from bench.common import bench_graph, memory_row, neo4j_pid, proc_status_kb, summary, write_rows
from bench.load import LoadResult, Request, run_load
from bench.recall import RoundLog, ensure_corpus, questions, stored, synthetic
from bench.service_process import ServiceProcess
from bench.workload import LOAD_OFFSET, memory_body, trace_body
from service.container import Services
from service.domain.memories import Writer
from service.domain.models import Kind, NewMemory, ProducedDraft, StepDraft, TraceDraft
from service.domain.reasoning import trace_content
from service.domain.retrieval import RetrievalRequest, RetrievalService, lucene_query

LOAD_ACTOR = "bench-load"
LIMIT = 10


@dataclass(frozen=True)
class ScaleProfile:
    """How many requests each measurement sends (`--quick` and `--full` differ only here).

    Pairs are (rounds at concurrency 1, requests at concurrency `concurrency`).
    """

    reads: tuple[int, int]
    writes: tuple[int, int]
    traces: tuple[int, int]
    lineage: tuple[int, int]
    bulk: int
    concurrency: int = 8


QUICK_SCALE = ScaleProfile(
    reads=(20, 60), writes=(15, 40), traces=(3, 6), lineage=(20, 40), bulk=256
)
FULL_SCALE = ScaleProfile(
    reads=(150, 300), writes=(100, 200), traces=(12, 24), lineage=(100, 200), bulk=2048
)


class PrecomputedEmbedder:
    """An embedder that returns vectors computed beforehand (isolates Neo4j + Python in recall)."""

    def __init__(self, vectors: dict[str, list[float]], dimension: int) -> None:
        self.vectors = vectors
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        """The vectors' length."""
        return self._dimension

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """Return the stored vector of each text."""
        return [self.vectors[t] for t in texts]


def row(
    op: str,
    concurrency: int,
    samples_ms: Sequence[float],
    *,
    floor: str = "",
    floor_ms: float | None = None,
    throughput: float | None = None,
    errors: int = 0,
    note: str = "",
) -> dict[str, Any]:
    """Return one result line: latency summary, throughput, and the ratio to its floor."""
    s = summary(samples_ms)
    out: dict[str, Any] = {
        "op": op,
        "concurrency": concurrency,
        **s,
        "throughput": throughput,
        "errors": errors,
        "floor": floor,
        "floor_ms": floor_ms,
        "note": note,
    }
    if floor_ms:
        out["p50_x_floor"] = s["p50"] / floor_ms
        out["p95_x_floor"] = s["p95"] / floor_ms
    return out


def load_row(
    op: str, result: LoadResult, *, floor: str = "", floor_ms: float | None = None, note: str = ""
) -> dict[str, Any]:
    """Return the result line of one HTTP batch."""
    if result.errors:
        note = (note + "; " if note else "") + "errors: " + " | ".join(result.error_sample)
    return row(
        op,
        result.concurrency,
        result.latencies_ms,
        floor=floor,
        floor_ms=floor_ms,
        throughput=result.throughput,
        errors=result.errors,
        note=note,
    )


def corpus_ids(services: Services, namespace: str, n: int = 500) -> list[str]:
    """Return up to n memory_ids of current corpus memories (evidence the traces cite)."""
    records, _, _ = services.graph.driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) WHERE m.system_to IS NULL AND m.created_by_actor = 'bench' "
        "RETURN m.memory_id AS id LIMIT $n",
        {"ns": namespace, "n": n},
        routing_=RoutingControl.READ,
        database_=services.settings.neo4j_database,
    )
    return [r["id"] for r in records]


def global_memories(services: Services) -> int:
    """Return how many `:Memory` nodes the database holds (all namespaces: the vector index is global)."""
    records, _, _ = services.graph.driver.execute_query(
        "MATCH (m:Memory) RETURN count(m) AS n",
        routing_=RoutingControl.READ,
        database_=services.settings.neo4j_database,
    )
    return int(records[0]["n"])


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


class Interleaved:
    """Round-robin probes: round i calls every probe once with i, so all share the machine's load.

    The machine is shared and its load moves by the minute; measuring a request and its floor in
    separate blocks would compare different moments. Interleaving keeps the ratios honest.
    """

    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = {}

    def run(self, rounds: int, probes: dict[str, Callable[[int], object]], warmup: int = 2) -> None:
        """Call each probe `warmup` times untimed (inputs -1, -2, ...), then `rounds` rounds."""
        for w in range(warmup):
            for probe in probes.values():
                probe(-1 - w)
        for i in range(rounds):
            for name, probe in probes.items():
                t0 = time.perf_counter()
                probe(i)
                self.samples.setdefault(name, []).append((time.perf_counter() - t0) * 1000.0)

    def p50(self, name: str) -> float:
        """The median of a probe's samples, in ms."""
        return summary(self.samples[name])["p50"]


def _c1_throughput(samples: Sequence[float]) -> float:
    """Requests per second of a closed loop at concurrency 1."""
    return 1000.0 * len(samples) / sum(samples) if samples else 0.0


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
    """Build or reuse `bench_<size>`, run every measurement of the module docstring, clean up.

    Returns:
        `{size, namespace, stored, global_memories, build, floors_ms, rows[], writes{}, rss{},
        rounds{}, seconds}`.
    """
    import torch

    namespace = f"bench_{size}"
    settings = services.settings
    driver = services.graph.driver
    db = settings.neo4j_database
    nonce = uuid.uuid4().hex[:8]
    c8 = profile.concurrency
    threads = torch.get_num_threads()

    started = time.perf_counter()
    written, build_s = ensure_corpus(services.graph, services.embedder, namespace, size, batch)
    build = {
        "written": written,
        "seconds": build_s,
        "per_s": written / build_s if written else None,
    }
    stored_n = stored(services.graph, namespace)
    global_n = global_memories(services)
    say(
        f"{namespace}: {stored_n} memories ({'built ' + str(written) if written else 'reused'}); "
        f"{global_n} memories in the database (the vector index is global)"
    )
    cites = corpus_ids(services, namespace)
    k = LIMIT * settings.vector_overfetch
    n1, n8 = profile.reads
    texts = questions(n1 + n8 + 4 * c8 + 8, seed=size)
    vectors = dict(zip(texts, services.embedder.encode(texts), strict=True))
    c1_qs, c8_qs, warm_qs = texts[:n1], texts[n1 : n1 + n8], texts[n1 + n8 :]

    def q_at(i: int) -> str:
        return c1_qs[i] if i >= 0 else warm_qs[-i]

    def bolt(_: int) -> object:
        return driver.execute_query("RETURN 1", routing_=RoutingControl.READ, database_=db)

    def encode_one_thread(text: str) -> object:
        torch.set_num_threads(1)
        try:
            return services.embedder.encode([text])
        finally:
            torch.set_num_threads(threads)

    headers = {"Authorization": f"Bearer {key}"}
    url = svc.base_url
    client = httpx.Client(base_url=url, headers=headers, timeout=120.0)
    precomputed = RetrievalService(
        services.graph,
        PrecomputedEmbedder(vectors, services.embedder.dimension),
        services.policy,
        services.retrieval.config,
    )
    short = {"recall": 0, "search": 0}

    def http_read(path: str, op: str) -> Callable[[int], object]:
        def call(i: int) -> object:
            r = client.post(path, json={"query": q_at(i), "limit": LIMIT})
            r.raise_for_status()
            if i >= 0 and r.json()["count"] < LIMIT:
                short[op] += 1
            return r

        return call

    # -- floors and reads at concurrency 1, interleaved -------------------------------------------
    rounds = RoundLog()
    log = logging.getLogger("service.domain.retrieval")
    log.addHandler(rounds)
    previous, propagate = log.level, log.propagate
    log.setLevel(logging.DEBUG)
    log.propagate = False
    reads = Interleaved()
    try:
        reads.run(
            n1,
            {
                "bolt": bolt,
                "vector": lambda i: driver.execute_query(
                    "CALL db.index.vector.queryNodes($index, $k, $embedding) YIELD node, score "
                    "RETURN node.uid AS uid, score",
                    {"index": settings.vector_index, "k": k, "embedding": vectors[q_at(i)]},
                    routing_=RoutingControl.READ,
                    database_=db,
                ),
                "encode": lambda i: services.embedder.encode([q_at(i)]),
                "encode_1t": lambda i: encode_one_thread(q_at(i)),
                "fulltext": lambda i: driver.execute_query(
                    "CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) "
                    "YIELD node, score RETURN node.uid AS uid, score",
                    {
                        "index": settings.fulltext_index,
                        "query": lucene_query(q_at(i)) or "x",
                        "k": k,
                    },
                    routing_=RoutingControl.READ,
                    database_=db,
                ),
                "http_recall": http_read("/v1/recall", "recall"),
                "inproc_recall": lambda i: services.retrieval.recall(
                    namespace, RetrievalRequest(query=q_at(i), limit=LIMIT)
                ),
                "pre_recall": lambda i: precomputed.recall(
                    namespace, RetrievalRequest(query=q_at(i), limit=LIMIT)
                ),
                "http_search": http_read("/v1/search", "search"),
            },
        )
    finally:
        log.removeHandler(rounds)
        log.setLevel(previous)
        log.propagate = propagate
    f_bolt, f_vec, f_enc = reads.p50("bolt"), reads.p50("vector"), reads.p50("encode")
    recall_floor = ("encode + vector", f_enc + f_vec)
    say(
        f"  floors p50: Bolt {f_bolt:.1f} ms, vector {f_vec:.1f} ms, encode {f_enc:.1f} ms "
        f"({threads} torch threads; {reads.p50('encode_1t'):.1f} ms with 1)"
    )
    # The vector rounds recall ran (k doubles from the first k up to the largest seen), as raw
    # calls filtered to the namespace in the server (count only, no rows shipped): how much of
    # recall's Neo4j time the over-fetch loop alone takes.
    max_k = max(rounds.ks, default=k)
    series = [k * 2**j for j in range(12) if k * 2**j <= max_k]

    def vector_series(i: int) -> object:
        for kk in series:
            driver.execute_query(
                "CALL db.index.vector.queryNodes($index, $k, $embedding) YIELD node, score "
                "WHERE node.namespace = $ns RETURN count(node) AS n",
                {
                    "index": settings.vector_index,
                    "k": kk,
                    "embedding": vectors[q_at(i)],
                    "ns": namespace,
                },
                routing_=RoutingControl.READ,
                database_=db,
            )
        return None

    reads.run(min(n1, 30), {"vector_series": vector_series}, warmup=1)

    # -- writes at concurrency 1, interleaved ------------------------------------------------------
    writer = Writer(namespace=namespace, origin="user", actor=LOAD_ACTOR)
    nw1, nw8 = profile.writes
    writes_c1 = Interleaved()

    def http_write(i: int) -> object:
        r = client.post("/v1/memories", json=memory_body(i + 100, nonce))
        if r.status_code != 201:
            raise RuntimeError(f"POST /v1/memories: {r.status_code} {r.text[:300]}")
        return r

    writes_c1.run(
        nw1,
        {
            "bolt": bolt,
            "encode": lambda i: services.embedder.encode([memory_body(i, nonce)["content"]]),
            "http_write": http_write,
            "inproc_write": lambda i: services.memories.create(
                writer, NewMemory(**memory_body(1_000_000 + i + 100, nonce))
            ),
        },
    )
    write_floor = ("encode + Bolt", writes_c1.p50("encode") + writes_c1.p50("bolt"))

    # -- traces and lineage at concurrency 1, interleaved -----------------------------------------
    nt1, nt8 = profile.traces
    produced: dict[int, list[str]] = {20: [], 100: []}
    seeds = iter(range(1, 10**9))
    trace_c1 = Interleaved()

    def http_trace(steps: int) -> Callable[[int], object]:
        def call(_: int) -> object:
            r = client.post("/v1/reasoning", json=trace_body(steps, next(seeds), nonce, cites))
            if r.status_code != 201:
                raise RuntimeError(f"POST /v1/reasoning: {r.status_code} {r.text[:300]}")
            produced[steps].append(r.json()["produced"][0]["memory_id"])
            return r

        return call

    def encode_trace(steps: int) -> Callable[[int], object]:
        def call(i: int) -> object:
            b = trace_body(steps, 10**6 + i, nonce, cites)
            return services.embedder.encode([trace_content(_draft(b)), b["produced"]["content"]])

        return call

    trace_c1.run(
        nt1,
        {
            "bolt": bolt,
            "http_trace_20": http_trace(20),
            "encode_trace_20": encode_trace(20),
            "http_trace_100": http_trace(100),
            "encode_trace_100": encode_trace(100),
        },
        warmup=1,
    )
    lineage_c1 = Interleaved()

    def http_lineage(steps: int) -> Callable[[int], object]:
        def call(i: int) -> object:
            ids = produced[steps]
            r = client.get(f"/v1/memories/{ids[i % len(ids)]}/lineage")
            r.raise_for_status()
            return r

        return call

    nl1, nl8 = profile.lineage
    lineage_c1.run(
        nl1, {"bolt": bolt, "lineage_20": http_lineage(20), "lineage_100": http_lineage(100)}
    )
    client.close()
    say("  concurrency 1 done")

    # -- concurrency 8: closed-loop batches --------------------------------------------------------
    def post(path: str, payload: dict[str, Any]) -> Request:
        return lambda c: c.post(path, json=payload)

    def get(path: str) -> Request:
        return lambda c: c.get(path)

    def count(r: httpx.Response) -> int:
        return int(r.json()["count"])

    base = 10_000_000
    res_w8 = run_load(
        url,
        headers,
        [post("/v1/memories", memory_body(base + i, nonce)) for i in range(nw8)],
        c8,
        warmup=[post("/v1/memories", memory_body(base - 1 - i, nonce)) for i in range(2 * c8)],
        expect=(201,),
    )
    res_r8 = {}
    for op in ("recall", "search"):
        res_r8[op] = run_load(
            url,
            headers,
            [post(f"/v1/{op}", {"query": q, "limit": LIMIT}) for q in c8_qs],
            c8,
            warmup=[post(f"/v1/{op}", {"query": q, "limit": LIMIT}) for q in warm_qs[: 2 * c8]],
            keep=count,
        )
    res_t8 = {}
    for steps in (20, 100):
        res_t8[steps] = run_load(
            url,
            headers,
            [
                post("/v1/reasoning", trace_body(steps, next(seeds), nonce, cites))
                for _ in range(nt8)
            ],
            c8,
            expect=(201,),
        )
    res_l8 = {}
    for steps in (20, 100):
        ids = produced[steps]
        res_l8[steps] = run_load(
            url,
            headers,
            [get(f"/v1/memories/{ids[i % len(ids)]}/lineage") for i in range(nl8)],
            c8,
            warmup=[get(f"/v1/memories/{i}/lineage") for i in ids[:c8]],
        )
    say("  concurrency 8 done")

    bulk = measure_bulk(services, namespace, profile.bulk, nonce)
    say(f"  bulk: {bulk['end_to_end_per_s']:.0f} memories/s ({bulk['embed_share']:.0%} embedding)")

    # -- rows ------------------------------------------------------------------------------------
    rs, ws, ts, ls = reads.samples, writes_c1.samples, trace_c1.samples, lineage_c1.samples
    trace_floor = {
        n: ("encode 2 texts + Bolt", trace_c1.p50(f"encode_trace_{n}") + trace_c1.p50("bolt"))
        for n in (20, 100)
    }
    rr8, rs8 = res_r8["recall"], res_r8["search"]
    short8 = {op: sum(1 for c in res_r8[op].responses if c < LIMIT) for op in res_r8}

    def c1(
        op: str, samples: list[float], floor: tuple[str, float], note: str = ""
    ) -> dict[str, Any]:
        return row(
            op, 1, samples, floor=floor[0], floor_ms=floor[1],
            throughput=_c1_throughput(samples), note=note,
        )  # fmt: skip

    def shorts(n: int) -> str:
        return f"{n} answers short of {LIMIT}" if n else ""

    rows: list[dict[str, Any]] = [
        row("floor: Bolt RETURN 1", 1, rs["bolt"]),
        row(f"floor: raw vector queryNodes k={k}", 1, rs["vector"], note="precomputed embedding"),
        row(f"floor: encode one query ({threads} torch threads)", 1, rs["encode"], note="as the service"),
        row("part: encode one query, 1 torch thread", 1, rs["encode_1t"]),
        row(f"part: raw fulltext queryNodes k={k}", 1, rs["fulltext"]),
        row(
            "part: recall's vector rounds, raw", 1, rs["vector_series"],
            note=f"k={series[0]}..{series[-1]}: {len(series)} calls, namespace filter, count only",
        ),
        c1("POST /v1/recall", rs["http_recall"], recall_floor, shorts(short["recall"])),
        load_row("POST /v1/recall", rr8, floor=recall_floor[0], floor_ms=recall_floor[1], note=shorts(short8["recall"])),
        c1("recall in-process (no HTTP)", rs["inproc_recall"], recall_floor),
        c1("recall in-process, embedding precomputed", rs["pre_recall"], ("vector", f_vec), "Neo4j + Python"),
        c1("POST /v1/search", rs["http_search"], recall_floor, shorts(short["search"])),
        load_row("POST /v1/search", rs8, floor=recall_floor[0], floor_ms=recall_floor[1], note=shorts(short8["search"])),
        c1("POST /v1/memories", ws["http_write"], write_floor),
        load_row("POST /v1/memories", res_w8, floor=write_floor[0], floor_ms=write_floor[1]),
        c1("write in-process (no HTTP)", ws["inproc_write"], write_floor),
        row("part: encode one memory text", 1, ws["encode"]),
    ]  # fmt: skip
    for n in (20, 100):
        rows += [
            c1(f"POST /v1/reasoning ({n} steps)", ts[f"http_trace_{n}"], trace_floor[n]),
            load_row(f"POST /v1/reasoning ({n} steps)", res_t8[n], floor=trace_floor[n][0], floor_ms=trace_floor[n][1]),
            row(f"part: encode a {n}-step trace's 2 texts", 1, ts[f"encode_trace_{n}"]),
        ]  # fmt: skip
    for n in (20, 100):
        rows += [
            c1(f"GET lineage ({n}-step trace)", ls[f"lineage_{n}"], ("Bolt", lineage_c1.p50("bolt"))),
            load_row(f"GET lineage ({n}-step trace)", res_l8[n], floor="Bolt", floor_ms=lineage_c1.p50("bolt")),
        ]  # fmt: skip

    neo = neo4j_pid()
    rss = {
        "service_peak_mb": svc.peak_rss_mb(),
        "service_now_mb": svc.rss_mb(),
        "neo4j_peak_mb": (proc_status_kb(neo, "VmHWM") or 0) / 1024 if neo else None,
    }
    deleted = cleanup(services, namespace)
    say(f"  cleaned up {deleted} nodes written by the load")
    writes = {
        "single_c1_per_s": _c1_throughput(ws["http_write"]),
        "single_c8_per_s": res_w8.throughput,
        "single_c1_inproc_per_s": _c1_throughput(ws["inproc_write"]),
        "encode_one_ms": writes_c1.p50("encode"),
        "bulk": bulk,
    }
    return {
        "size": size,
        "namespace": namespace,
        "stored": stored_n,
        "global_memories": global_n,
        "build": build,
        "torch_threads": threads,
        "floors_ms": {
            "bolt": f_bolt,
            "vector": f_vec,
            "encode": f_enc,
            "encode_1_thread": reads.p50("encode_1t"),
            "vector_k": k,
        },
        "rows": rows,
        "writes": writes,
        "rss": rss,
        "rounds": {
            "mean": sum(rounds.rounds) / len(rounds.rounds) if rounds.rounds else None,
            "max_k": max(rounds.ks, default=0),
            "exact_scans": rounds.exact,
        },
        "seconds": time.perf_counter() - started,
    }


def _draft(body: dict[str, Any]) -> TraceDraft:
    """Return the `TraceDraft` of a `trace_body` (to embed its texts like the service does)."""
    return TraceDraft(
        task=body["task"],
        steps=tuple(
            StepDraft(
                kind=s["kind"],
                content=s["content"],
                status=s.get("status", "asserted"),
                rejects=tuple(s.get("rejects", ())),
                cites=tuple(s.get("cites", ())),
            )
            for s in body["steps"]
        ),
        produced=ProducedDraft(**body["produced"]),
    )


def estimate_million(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Estimate building 1M memories from the largest size's measured bulk rates.

    Rates: the bulk path end to end (embedding, then the `UNWIND` write) with the service's
    torch thread count and with one thread, and the corpus build's rate when it ran in this
    run. The estimate uses the fastest; it covers building only (no index warm-up, no load).
    """
    if not results:
        return None
    last = max(results, key=lambda r: r["size"])
    bulk = last["writes"]["bulk"]
    rates = {
        "bulk": bulk["end_to_end_per_s"],
        "bulk, 1 torch thread": bulk["end_to_end_per_s_1_thread"],
    }
    if last["build"]["per_s"]:
        rates["corpus build"] = last["build"]["per_s"]
    rate = max(rates.values())
    missing = max(0, 1_000_000 - last["stored"])
    minutes = missing / rate / 60
    return {
        "from_size": last["size"],
        "rates": rates,
        "memories_to_add": missing,
        "build_minutes": minutes,
        "fits_60_min": minutes < 60,
    }
