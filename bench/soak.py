"""Bounded soak: a separate `rationale serve` under mixed load, then a read-back of every ack.

`scripts/bench soak --duration-s 600` starts the service (`bench/service_process.py`) on the
configured Neo4j with one key per namespace (4 `bench_soak_*` namespaces), and for the duration
runs `--concurrency` closed-loop workers (httpx, one keep-alive client each; worker w writes to
namespace w % 4): memory writes, reasoning traces (`POST /v1/reasoning`, a valid 9-step trace
citing that namespace's memories), recall and lineage of produced memories. It samples the RSS
of the service and of the Neo4j process every 5 s, then reads every acknowledged memory and
trace back in its own namespace (must be 200) and in the next namespace (must be 404), reports
throughput, p50/p95/p99 per operation, 5xx count, RSS growth and lost/misplaced counts, and
deletes its namespaces.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import typer
from neo4j import GraphDatabase
from rich.console import Console
from rich.table import Table

from bench.common import REPO, loadavg, proc_status_kb, summary
from bench.service_process import ServiceProcess
from service.settings import Settings

NAMESPACES = 4
#: Neo4j's main class: 2026.x, and 5.26 for an older local server.
ENTRY_POINTS = {b"org.neo4j.server.Neo4jCommunity", b"org.neo4j.server.CommunityEntryPoint"}
WEIGHTS = {"write": 35, "trace": 15, "recall": 30, "lineage": 20}


def neo4j_pid_for(uri: str) -> int | None:
    """Return the pid of the local Neo4j whose Bolt port is the one in `uri`, if any."""
    port = uri.rsplit(":", 1)[-1].split("/")[0]
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if not ENTRY_POINTS & set(args):
            continue
        for arg in args:
            if arg.startswith(b"--config-dir="):
                conf = Path(arg.split(b"=", 1)[1].decode()) / "neo4j.conf"
                try:
                    text = conf.read_text()
                except OSError:
                    continue
                if "server.bolt.listen_address=" in text and f":{port}\n" in text:
                    return int(proc.name)
    return None


def trace_body(tag: str, cited: list[str]) -> dict[str, object]:
    """A trace that passes the quality gate, citing `cited` (memory ids of its namespace)."""

    def cite(i: int) -> list[str]:
        return [cited[i % len(cited)]]

    steps = [
        {"kind": "observation", "content": f"{tag}: upload test failed on setup", "cites": cite(0)},
        {"kind": "thought", "content": "Maybe the cache serves a stale fixture", "status": "hypothesis"},
        {"kind": "thought", "content": "Could be a timezone issue in the dates", "status": "hypothesis"},
        {"kind": "observation", "content": "Cache hit rate was normal, so not the cache", "cites": cite(1), "rejects": [1]},
        {"kind": "observation", "content": "Failures spread over the day, so not timezones", "cites": cite(2), "rejects": [2]},
        {"kind": "observation", "content": "Two workers create the same temp directory at once", "cites": cite(3)},
        {"kind": "action", "content": "Add a file lock around the temp directory creation"},
        {"kind": "observation", "content": "Fifty consecutive runs green after the lock", "cites": cite(4)},
        {"kind": "conclusion", "content": f"{tag}: the setup races on the temp directory; a lock fixes it"},
    ]  # fmt: skip
    return {
        "task": f"Why does the upload test fail intermittently ({tag})?",
        "steps": steps,
        "produced": {"kind": "decision", "content": f"{tag}: lock the temp dir", "confidence": 0.9},
    }


class Soak:
    """The shared state of one soak: acknowledged ids, latencies, failures."""

    def __init__(self, namespaces: list[str]) -> None:
        self.namespaces = namespaces
        self.lock = threading.Lock()
        self.memories: dict[str, list[str]] = {ns: [] for ns in namespaces}
        self.produced: dict[str, list[str]] = {ns: [] for ns in namespaces}
        self.traces: dict[str, list[str]] = {ns: [] for ns in namespaces}
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.status5xx: dict[str, int] = defaultdict(int)
        self.other_errors: dict[str, list[str]] = defaultdict(list)

    def pick(self, kind: str, ns: str, rng: random.Random) -> str | None:
        with self.lock:
            pool = (self.produced if kind == "produced" else self.memories)[ns]
            return rng.choice(pool) if pool else None

    def step(self, client: httpx.Client, ns: str, rng: random.Random) -> None:
        op = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
        with self.lock:
            enough = len(self.memories[ns]) >= 5
            has_produced = bool(self.produced[ns])
        if (op == "trace" and not enough) or (op == "lineage" and not has_produced):
            op = "write"
        tag = uuid.uuid4().hex[:10]
        t0 = time.perf_counter()
        if op == "write":
            r = client.post("/v1/memories", json={"kind": "fact", "content": f"soak fact {tag}"})
        elif op == "trace":
            with self.lock:
                cited = rng.sample(self.memories[ns], 5)
            r = client.post("/v1/reasoning", json=trace_body(tag, cited))
        elif op == "recall":
            r = client.post(
                "/v1/recall", json={"query": "why does the upload test fail", "limit": 10}
            )
        else:
            mid = self.pick("produced", ns, rng)
            r = client.get(f"/v1/memories/{mid}/lineage")
        ms = (time.perf_counter() - t0) * 1000.0
        with self.lock:
            if r.status_code >= 500:
                self.status5xx[op] += 1
            if r.status_code not in (200, 201):
                if len(self.other_errors[op]) < 5:
                    self.other_errors[op].append(f"{r.status_code} {r.text[:200]}")
                self.latency[op + " (failed)"].append(ms)
                return
            self.latency[op].append(ms)
            body = r.json()
            if op == "write":
                self.memories[ns].append(body["memory_id"])
            elif op == "trace":
                self.traces[ns].append(body["trace_id"])
                self.produced[ns] += [m["memory_id"] for m in body["produced"]]


def read_back(base_url: str, keys: dict[str, str], soak: Soak, concurrency: int) -> dict[str, int]:
    """Read every acknowledged id in its namespace (200) and in the next one (404)."""
    ns_key = {ns: key for key, ns in keys.items()}
    checks: list[tuple[str, str, str]] = []
    for i, ns in enumerate(soak.namespaces):
        other = soak.namespaces[(i + 1) % len(soak.namespaces)]
        for mid in soak.memories[ns] + soak.produced[ns]:
            checks.append((ns, other, f"/v1/memories/{mid}"))
        for tid in soak.traces[ns]:
            checks.append((ns, other, f"/v1/reasoning/{tid}"))
    counts = {"checked": len(checks), "lost": 0, "misplaced": 0}
    lock = threading.Lock()

    def check(chunk: list[tuple[str, str, str]]) -> None:
        with httpx.Client(base_url=base_url, timeout=60) as client:
            for ns, other, path in chunk:
                own = client.get(path, headers={"Authorization": f"Bearer {ns_key[ns]}"})
                elsewhere = client.get(path, headers={"Authorization": f"Bearer {ns_key[other]}"})
                with lock:
                    counts["lost"] += own.status_code != 200
                    counts["misplaced"] += elsewhere.status_code != 404

    chunks = [checks[i::concurrency] for i in range(concurrency)]
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(check, chunks))
    return counts


def drop_namespaces(namespaces: list[str]) -> None:
    """Delete everything the soak wrote (its namespaces only)."""
    s = Settings()
    with (
        GraphDatabase.driver(
            s.neo4j_uri, auth=(s.neo4j_username, s.neo4j_password.get_secret_value())
        ) as driver,
        driver.session(database=s.neo4j_database) as session,
    ):
        for ns in namespaces:
            session.run(
                "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
                ns=ns,
            ).consume()


def main(
    duration_s: float = typer.Option(600.0, help="How long the load runs, in seconds."),
    concurrency: int = typer.Option(16, help="Closed-loop workers (requests in flight)."),
    seed: int = typer.Option(16, help="Random seed of the operation mix."),
    keep: bool = typer.Option(False, help="Keep the soak's namespaces instead of deleting them."),
) -> None:
    """Run the soak and print its figures."""
    run = uuid.uuid4().hex[:8]
    namespaces = [f"bench_soak_{run}_{i}" for i in range(NAMESPACES)]
    keys = {f"soak-{run}-{i}": ns for i, ns in enumerate(namespaces)}
    console = Console()
    soak = Soak(namespaces)
    rss: dict[str, list[float]] = {"service": [], "neo4j": []}
    neo4j_pid = neo4j_pid_for(Settings().neo4j_uri)
    try:
        # PYTHONPATH: the service runs this tree's code, whatever the venv's editable install names.
        with ServiceProcess(keys, env={"PYTHONPATH": str(REPO)}) as service:
            console.print(
                f"service pid {service.pid} ready in {service.startup_s:.1f} s; "
                f"neo4j pid {neo4j_pid}; loadavg {loadavg()}"
            )
            stop = threading.Event()

            def sample() -> None:
                while True:
                    for name, pid in (("service", service.pid), ("neo4j", neo4j_pid)):
                        kb = proc_status_kb(pid, "VmRSS") if pid else None
                        if kb is not None:
                            rss[name].append(kb / 1024)
                    if stop.wait(5.0):
                        return

            def worker(w: int) -> None:
                ns = namespaces[w % NAMESPACES]
                key = next(k for k, v in keys.items() if v == ns)
                rng = random.Random(seed * 1000 + w)
                headers = {"Authorization": f"Bearer {key}"}
                with httpx.Client(base_url=service.base_url, headers=headers, timeout=120) as c:
                    while not stop.is_set():
                        try:
                            soak.step(c, ns, rng)
                        except httpx.HTTPError as exc:
                            with soak.lock:
                                soak.other_errors["transport"].append(repr(exc)[:200])

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            started = time.perf_counter()
            with ThreadPoolExecutor(concurrency) as pool:
                futures = [pool.submit(worker, w) for w in range(concurrency)]
                time.sleep(duration_s)
                stop.set()
                for f in futures:
                    f.result()
            wall = time.perf_counter() - started
            sampler.join(timeout=10)
            for name, pid in (("service", service.pid), ("neo4j", neo4j_pid)):
                kb = proc_status_kb(pid, "VmRSS") if pid else None
                if kb is not None:
                    rss[name].append(kb / 1024)
            back = read_back(service.base_url, keys, soak, concurrency)
    finally:
        if not keep:
            drop_namespaces(namespaces)

    table = Table(title=f"Soak: {wall:.0f} s, concurrency {concurrency}, {NAMESPACES} namespaces")
    for col in ("operation", "ok", "per s", "p50 ms", "p95 ms", "p99 ms", "failed", "5xx"):
        table.add_column(col, justify="right")
    total = 0
    for op in WEIGHTS:
        s = summary(soak.latency[op])
        total += int(s["n"])
        table.add_row(
            op,
            str(int(s["n"])),
            f"{s['n'] / wall:.1f}",
            f"{s['p50']:.0f}",
            f"{s['p95']:.0f}",
            f"{s['p99']:.0f}",
            str(len(soak.latency[op + " (failed)"])),
            str(soak.status5xx[op]),
        )
    console.print(table)
    console.print(f"throughput: {total / wall:.1f} requests/s; 5xx: {sum(soak.status5xx.values())}")
    for name, series in rss.items():
        if series:
            console.print(
                f"RSS {name}: start {series[0]:.0f} MiB, end {series[-1]:.0f} MiB, "
                f"growth {series[-1] - series[0]:+.0f} MiB, max {max(series):.0f} MiB"
            )
    console.print(
        f"read-back: {back['checked']} acknowledged ids checked, lost {back['lost']}, "
        f"misplaced {back['misplaced']}; loadavg {loadavg()}"
    )
    for op, samples in soak.other_errors.items():
        console.print(f"errors [{op}]: {samples}")
