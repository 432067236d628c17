"""Side by side with neo4j-agent-memory 0.8.0 on the same Neo4j and the same model: similar traces.

`scripts/bench peer` (and `--full`). Corpus: `bench.traces` (1,000 generated reasoning traces of
6-12 steps, 200 queries that paraphrase a trace's task). One run, interleaved:

1. Writes: for trace i, Rationale's `POST /v1/reasoning` (the whole trace, its steps and its
   decision in one request, to `rationale serve` in its own process, namespace `bench_traces`),
   then the peer's reasoning API as its docs show it: `reasoning.start_trace(session_id, task)`,
   `reasoning.add_step(trace_id, thought=..., observation=...)` per step, and
   `reasoning.complete_trace(trace_id, outcome=..., success=True)`. Each side's wall-clock time
   per trace is one sample.
2. Reads (the three calls per query in an order that rotates with the query, so none always
   runs right after another): for query j, Rationale's recall of reasoning traces (`POST /v1/recall` with
   `kinds: ["reasoning"]`, limit 5, and the same call in-process, `RetrievalService.recall`),
   and the peer's `reasoning.get_similar_traces(task, limit=5, threshold=0.0)` (threshold 0 so it
   always answers its top 5; every trace was completed with `success=True`), after `WARMUP` (200)
   untimed queries through each (tasks of traces no timed query names). hit@1 / hit@5:
   the trace the query paraphrases is first / in the top 5 (matched by its task text).

The peer uses the same model files (`Settings().embedding_model`, through its own
sentence-transformers embedder) and its own labels' indexes (`task_embedding_idx`,
`step_embedding_idx`, constraints on `ReasoningTrace.id` ...); its nodes carry no `namespace`,
so Rationale never sees them, and its `ReasoningTrace` nodes are deleted by id before a run.
Rationale's indexes and constraints are listed before and after the peer connects; the run
records whether any changed. Both sides start empty: the bench namespace and the peer's traces
are deleted first, so every run writes 1,000 traces to each.

Because the peer shares the labels `ReasoningTrace`/`ReasoningStep` with Rationale, run it on a
server of its own (`NEO4J_URI`), not on one that others run tests against.
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from typing import Any

import httpx
import typer
from neo4j import RoutingControl
from rich.console import Console
from rich.table import Table

from bench.common import RESULTS, loadavg, machine, neo4j_pid, summary, wait_quiet
from bench.report import write_json
from bench.scale_run import SETTLE_S
from bench.service_process import ServiceProcess
from bench.traces import TRACES, TraceCase, queries, trace
from service.container import Services, build_services, freeze_heap
from service.domain.retrieval import RetrievalRequest
from service.embeddings import resolve_model_path
from service.settings import Settings

console = Console(width=None if sys.stdout.isatty() else 200)
NAMESPACE = "bench_traces"
TOP = 5
#: Untimed warm-up queries per system before the timed reads. The JVM compiles Neo4j's vector
#: search only after some hundreds of calls: on a freshly started server the first reads-only run
#: of the day measured Rationale's in-process p50 at 29.6 ms, the runs after it 17-19 ms.
WARMUP = 200


def schema(services: Services) -> set[tuple[str, str]]:
    """Return (kind, name + definition) of every index and constraint on the database."""
    driver, db = services.graph.driver, services.settings.neo4j_database
    out: set[tuple[str, str]] = set()
    for kind, query in (
        ("index", "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options"),
        ("constraint", "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties"),
    ):
        records, _, _ = driver.execute_query(query, routing_=RoutingControl.READ, database_=db)
        for r in records:
            out.add((kind, f"{r['name']} {dict(r)}"))
    return out


def reset(services: Services) -> None:
    """Delete the bench namespace and every peer trace (peer nodes have no namespace)."""
    with services.graph.driver.session(database=services.settings.neo4j_database) as session:
        for query in (
            "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS",
            "MATCH (t:ReasoningTrace) WHERE t.namespace IS NULL "
            "OPTIONAL MATCH (t)-[:HAS_STEP]->(s) "
            "CALL (t, s) { DETACH DELETE s, t } IN TRANSACTIONS OF 2000 ROWS",
        ):
            session.run(query, ns=NAMESPACE).consume()


def peer_settings(settings: Settings) -> Any:
    """Return the peer's `MemorySettings`: the same server, the same model files, no extraction."""
    from neo4j_agent_memory import MemorySettings

    return MemorySettings(
        neo4j={
            "uri": settings.neo4j_uri,
            "username": settings.neo4j_username,
            "password": settings.neo4j_password,
            "database": settings.neo4j_database,
        },
        embedding={
            "provider": "sentence_transformers",
            "model": str(resolve_model_path(settings.embedding_model)),
            "dimensions": 384,
        },
        extraction={"extractor_type": "none"},
    )


async def peer_write(client: Any, case: TraceCase, nonce: str) -> str:
    """Write one trace through the peer's reasoning API; return its task text."""
    reasoning = client.reasoning
    t = await reasoning.start_trace(f"bench-{nonce}", case.task)
    for step in case.steps:
        if step["kind"] == "observation":
            await reasoning.add_step(t.id, observation=step["content"])
        else:
            await reasoning.add_step(t.id, thought=step["content"])
    await reasoning.complete_trace(t.id, outcome=case.decision, success=True)
    return case.task


def _rank(tasks: list[str], by_task: dict[str, int]) -> list[int]:
    return [by_task.get(t, -1) for t in tasks]


def _task_of(item: dict[str, Any]) -> str:
    return str(item.get("task") or "")


def stored(services: Services) -> tuple[int, int]:
    """Return how many current traces the bench namespace and the peer hold."""
    records, _, _ = services.graph.driver.execute_query(
        "MATCH (t:ReasoningTrace) WHERE t.namespace IS NULL OR "
        "(t.namespace = $ns AND t.current = true) "
        "RETURN count(t.namespace) AS ours, count(*) - count(t.namespace) AS peer",
        ns=NAMESPACE,
        routing_=RoutingControl.READ,
        database_=services.settings.neo4j_database,
    )
    return int(records[0]["ours"]), int(records[0]["peer"])


async def compare(
    services: Services, svc: ServiceProcess, key: str, n: int, writes: bool = True
) -> dict[str, Any]:
    """Run the writes (unless `writes` is False) and the reads of both systems, interleaved."""
    from neo4j_agent_memory import MemoryClient

    nonce = uuid.uuid4().hex[:8]
    cases = [trace(i) for i in range(n)]
    by_task = {c.task: c.index for c in cases}
    before = schema(services)
    samples: dict[str, list[float]] = {"rationale_write": [], "peer_write": []}
    http = httpx.Client(
        base_url=svc.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120.0
    )
    async with MemoryClient(peer_settings(services.settings)) as client:
        after_connect = schema(services)
        await client.reasoning.get_similar_traces("warm up", limit=TOP, threshold=0.0)
        for case in cases if writes else []:
            t0 = time.perf_counter()
            r = http.post("/v1/reasoning", json=case.body(nonce))
            if r.status_code != 201:
                raise RuntimeError(f"POST /v1/reasoning: {r.status_code} {r.text[:300]}")
            samples["rationale_write"].append((time.perf_counter() - t0) * 1000.0)
            t0 = time.perf_counter()
            await peer_write(client, case, nonce)
            samples["peer_write"].append((time.perf_counter() - t0) * 1000.0)
            if case.index % 100 == 99:
                console.print(f"  wrote {case.index + 1} traces to each (load {loadavg()[0]})")
        # The writes leave Lucene segment merges running on Neo4j's background threads; the
        # reads start once the server is quiet, so neither system's reads pay for them.
        settle_s = wait_quiet(neo4j_pid())
        console.print(f"  Neo4j quiet (index merges done) after {settle_s:.0f} s")
        qs = queries(cases)
        freeze_heap()  # as `rationale serve` does once built; the peer's client is frozen too
        hits: dict[str, list[int]] = {"rationale": [], "rationale_inproc": [], "peer": []}
        for name in ("rationale_http", "rationale_inproc", "peer_read"):
            samples[name] = []

        async def rationale_http(text: str) -> list[int]:
            body = {"query": text, "limit": TOP, "kinds": ["reasoning"]}
            r = http.post("/v1/recall", json=body)
            r.raise_for_status()
            return _rank([_task_of(i) for i in r.json()["items"]], by_task)

        async def rationale_inproc(text: str) -> list[int]:
            answer = services.retrieval.recall(
                NAMESPACE, RetrievalRequest(query=text, limit=TOP, kinds=["reasoning"])
            )
            return _rank([_task_of(i.as_dict()) for i in answer.items], by_task)

        async def peer_read(text: str) -> list[int]:
            found = await client.reasoning.get_similar_traces(text, limit=TOP, threshold=0.0)
            return _rank([t.task for t in found], by_task)

        probes = (
            ("rationale_http", "rationale", rationale_http),
            ("rationale_inproc", "rationale_inproc", rationale_inproc),
            ("peer_read", "peer", peer_read),
        )
        # Untimed warm-up: `WARMUP` tasks of traces no query names, through every system (the
        # server's JIT, plan caches, the service's term-count cache, the peer's connection pool).
        step = max(1, len(cases) // max(1, len(qs)))
        warm = [(cases[(j * step + 1) % len(cases)].task, -1) for j in range(WARMUP)]
        for j, (text, want) in enumerate([*warm, *qs]):
            # The order rotates per query, so no system always runs right after another.
            for sample, hit, probe in probes[j % 3 :] + probes[: j % 3]:
                # A quiet start for each (`SETTLE_S`): the peer's PyTorch encode leaves its
                # OpenMP threads spinning, which taxed whichever probe came next.
                await asyncio.sleep(SETTLE_S)
                t0 = time.perf_counter()
                got = await probe(text)
                ms = (time.perf_counter() - t0) * 1000.0
                if j < len(warm):
                    continue
                samples[sample].append(ms)
                hits[hit].append(got.index(want) + 1 if want in got else 0)
    http.close()
    after = schema(services)
    ours_before = set(before)
    return {
        "traces": n,
        "queries": len(qs),
        "settle_s": settle_s,
        "samples": {k: summary(v) for k, v in samples.items()},
        "hit@1": {k: sum(1 for r in v if r == 1) / len(v) for k, v in hits.items()},
        "hit@5": {k: sum(1 for r in v if 1 <= r <= TOP) / len(v) for k, v in hits.items()},
        "schema": {
            "rationale_unchanged": ours_before <= after,
            "dropped": sorted(s[1] for s in ours_before - after),
            "peer_created": sorted(s[1].split(" ", 1)[0] for s in after_connect - before),
        },
    }


def table(result: dict[str, Any]) -> Table:
    """Render the comparison."""
    s, h1, h5 = result["samples"], result["hit@1"], result["hit@5"]
    t = Table(
        title=(
            f"similar-trace retrieval and trace writes, {result['traces']} traces, "
            f"{result['queries']} paraphrased queries (ms)"
        ),
        title_justify="left",
    )
    for col in ("system", "retrieval p50", "retrieval p95", "hit@1", "hit@5", "write p50", "write p95"):  # fmt: skip
        t.add_column(col, justify="left" if col == "system" else "right")
    rows = (
        ("Rationale, POST /v1/recall", "rationale_http", "rationale", "rationale_write"),
        ("Rationale, in-process recall", "rationale_inproc", "rationale_inproc", None),
        ("neo4j-agent-memory 0.8.0", "peer_read", "peer", "peer_write"),
    )
    for label, read, hit, write in rows:
        t.add_row(
            label,
            f"{s[read]['p50']:.1f}",
            f"{s[read]['p95']:.1f}",
            f"{h1[hit]:.3f}",
            f"{h5[hit]:.3f}",
            f"{s[write]['p50']:.1f}" if write else "-",
            f"{s[write]['p95']:.1f}" if write else "-",
        )
    return t


def markdown(result: dict[str, Any]) -> str:
    """Return the comparison as Markdown."""
    s, h1, h5 = result["samples"], result["hit@1"], result["hit@5"]
    lines = [
        f"Similar-trace retrieval, {result['traces']} generated traces (6-12 steps), "
        f"{result['queries']} paraphrased tasks, interleaved, each read started "
        f"{SETTLE_S * 1000:.0f} ms after the previous one ended; load average "
        f"{result['loadavg_start']} -> {result['loadavg_end']}; Rationale's indexes unchanged "
        f"by the peer: {result['schema']['rationale_unchanged']}.",
        "",
        "| system | retrieval p50 / p95 ms | hit@1 | hit@5 | trace write p50 / p95 ms |",
        "|---|---:|---:|---:|---:|",
        f"| Rationale, POST /v1/recall | {s['rationale_http']['p50']:.1f} / {s['rationale_http']['p95']:.1f} "
        f"| {h1['rationale']:.3f} | {h5['rationale']:.3f} "
        f"| {s['rationale_write']['p50']:.0f} / {s['rationale_write']['p95']:.0f} (POST /v1/reasoning) |",
        f"| Rationale, in-process recall | {s['rationale_inproc']['p50']:.1f} / {s['rationale_inproc']['p95']:.1f} "
        f"| {h1['rationale_inproc']:.3f} | {h5['rationale_inproc']:.3f} | - |",
        f"| neo4j-agent-memory 0.8.0 | {s['peer_read']['p50']:.1f} / {s['peer_read']['p95']:.1f} "
        f"| {h1['peer']:.3f} | {h5['peer']:.3f} "
        f"| {s['peer_write']['p50']:.0f} / {s['peer_write']['p95']:.0f} (start + steps + complete) |",
    ]
    return "\n".join(lines) + "\n"


def run(n: int = TRACES, reads_only: bool = False) -> dict[str, Any]:
    """Reset both sides, run the comparison, print and record it (`bench/results/<date>-peer.*`).

    With `reads_only`, nothing is reset or written: the reads run against the `n` traces each
    side already holds from an earlier run (checked first; `ValueError` when either differs),
    and the record is `<date>-peer-reads.*`.
    """
    info = machine()
    services = build_services(Settings())
    try:
        if reads_only:
            have = stored(services)
            if have != (n, n):
                raise ValueError(f"--reads-only needs {n} traces on each side; found {have}")
        else:
            reset(services)
        key = f"bench-{uuid.uuid4().hex}"
        with ServiceProcess({key: NAMESPACE}) as svc:
            result = asyncio.run(compare(services, svc, key, n, writes=not reads_only))
    finally:
        services.close()
    result["machine"] = info
    result["loadavg_start"] = info["loadavg_start"]
    result["loadavg_end"] = loadavg()
    console.print(table(result))
    console.print(f"schema: {result['schema']}")
    stem = time.strftime("%Y-%m-%d") + ("-peer-reads" if reads_only else "-peer")
    write_json(result, RESULTS / f"{stem}.json")
    (RESULTS / f"{stem}.md").write_text(markdown(result))
    console.print(f"wrote bench/results/{stem}.json and .md")
    return result


def main(
    traces: int = typer.Option(TRACES, min=10, max=TRACES, help="Traces written to each system."),
    reads_only: bool = typer.Option(
        False, "--reads-only", help="Only the reads, against the traces an earlier run wrote."
    ),
) -> None:
    """Similar-trace retrieval and trace writes against neo4j-agent-memory, interleaved."""
    run(traces, reads_only)
