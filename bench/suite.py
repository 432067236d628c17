"""`scripts/bench --quick` / `--full`: recall against its floor at scale, speed, and quality on LoCoMo.

One run measures, side by side (nothing is asserted; the figures are printed and recorded):

- recall in a multi-tenant database (`bench.tenancy`) at each database size (10k, 100k, 1M
  memories in all): tenant `bench_10000` (real embeddings) among filler tenants (synthetic text,
  random unit vectors, bulk loaded; the load rate is recorded), against the floor measured in the
  same rounds: the fastest of ONNX Runtime and PyTorch with 1 and 2 threads for one query
  encode (`bench.encoders`) + one filtered vector `SEARCH`; where recall's time goes (encode,
  SEARCH, fulltext, the rest);
- speed of the service (`bench.scale`) at the first size: HTTP on the real service in its own
  process at concurrency 1 and 8, writes, traces, lineage, bulk writes, peak RSS;
- retrieval quality on LoCoMo (`bench.locomo_service`): the turns written through
  `POST /v1/memories/batch` (episode, position, context), the questions asked through
  `POST /v1/recall` and in-process, against BM25, dense cosine and their RRF on the same turns,
  before any filler is loaded and again with 100k filler memories of other tenants (the
  difference is the tenant-independence figure).

`--quick` (a few minutes): 10k, fewer requests, one conversation. `--full`: 10k, 100k and 1M,
all five conversations. A full run starts by dropping filler left by an earlier run (so "without
other tenants" is without them) and drops it at the end unless `--keep-filler`; a database
already larger than a stage is measured as it is (its real size is recorded).

Corpora (`bench_10000`, `bench_locomo_<id>`) are built once and reused by later runs. Results go
to `bench/results/<date>.json`, `.md` and `.png` (`<date>-quick.*` for `--quick`, so a smoke run
never overwrites the last full record). The load average is printed and recorded at the start
and the end: the machine is shared, so read the figures with it.
"""

from __future__ import annotations

import logging
import sys
import time
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import httpx
import typer
from rich.console import Console

from bench import locomo, locomo_service, report, tenancy
from bench.common import RESULTS, loadavg, machine, neo4j_pid, torch_threads, wait_quiet
from bench.corpus import ensure_corpus
from bench.scale import measure_size
from bench.scale_run import FULL_SCALE, QUICK_SCALE, ScaleProfile
from bench.service_process import ServiceProcess
from service.container import build_services
from service.settings import Settings

console = Console(width=None if sys.stdout.isatty() else 200)


def parse_sizes(text: str) -> list[int]:
    """Parse `10000,100000` (underscores and `k` allowed: `10k,100_000`).

    Raises:
        typer.BadParameter: an empty list or a size below 1.
    """
    out = []
    for part in text.split(","):
        part = part.strip().lower().replace("_", "")
        if part:
            out.append(int(float(part[:-1]) * 1000) if part.endswith("k") else int(part))
    if not out or min(out) < 1:
        raise typer.BadParameter("sizes must be positive integers, e.g. 10000,100000")
    return out


@dataclass(frozen=True)
class SuiteProfile:
    """What one mode runs.

    `conversations`: None = all, 0 = skip LoCoMo. `torch_threads`: 0 = the library's default
    (one per core); N sets `OMP_NUM_THREADS=N` for the service and `torch.set_num_threads(N)`
    here, to measure the service with fewer intra-op threads.
    """

    name: str
    sizes: list[int]
    conversations: int | None
    scale: ScaleProfile
    torch_threads: int = 0
    rounds: int = 40
    keep_filler: bool = False
    speed: bool = True


PROFILES = {
    "quick": SuiteProfile("quick", [10_000], 1, QUICK_SCALE, rounds=40),
    "full": SuiteProfile("full", [10_000, 100_000, 1_000_000], None, FULL_SCALE, rounds=150),
}
#: The database size at which LoCoMo is asked again (with ~this many other-tenant memories).
LOCOMO_WITH_OTHERS = 100_000


def say(text: str) -> None:
    """Print a progress line with the elapsed time and the load average."""
    one = loadavg()[0]
    console.print(f"[dim]{time.strftime('%H:%M:%S')} load {one:.1f}[/] {text}")


def run(profile: SuiteProfile) -> dict[str, Any]:
    """Run the suite; print the tables; write the JSON, Markdown and PNG; return the record."""
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    phases: dict[str, float] = {}
    logging.basicConfig(level=logging.WARNING)
    if profile.torch_threads:
        import torch

        torch.set_num_threads(profile.torch_threads)
    info = machine()
    sizes = sorted(profile.sizes)
    say(
        f"bench {profile.name}: database sizes {sizes}, "
        f"LoCoMo conversations {profile.conversations or 'all'}; {info['cpus']} CPUs, "
        f"load average {info['loadavg_start']}, commit {info['commit']}"
    )
    tick = time.perf_counter()
    services = build_services(Settings())
    phases["bench process start (model, schema)"] = time.perf_counter() - tick
    scale: list[dict[str, Any]] = []
    multi: list[dict[str, Any]] = []
    service_info: dict[str, Any] = {}
    quality: dict[str, Any] | None = None
    try:
        tick = time.perf_counter()
        if not profile.keep_filler:
            # Also before a single size: filler left by an earlier `--keep-filler` run would
            # make a "10k" stage measure a 100k database.
            tenancy.drop_filler(services, say)
        with torch_threads(1):
            built = ensure_corpus(
                services.graph, services.embedder, tenancy.TENANT, tenancy.TENANT_SIZE, 512
            )
        phases["corpus build"] = time.perf_counter() - tick
        key = f"bench-{uuid.uuid4().hex}"
        locomo_keys = (
            locomo_service.api_keys(locomo.conversations(profile.conversations))
            if profile.conversations != 0
            else {}
        )
        env = {"OMP_NUM_THREADS": str(profile.torch_threads)} if profile.torch_threads else {}
        tick = time.perf_counter()
        with ServiceProcess({key: tenancy.TENANT, **locomo_keys}, env=env) as svc:
            service_info["startup_s"] = svc.startup_s
            say(f"service pid {svc.pid} on {svc.base_url}, ready in {svc.startup_s:.1f} s")
            phases["service start"] = time.perf_counter() - tick
            http = httpx.Client(
                base_url=svc.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120.0
            )
            locomo_http = locomo_service.clients(svc.base_url, locomo_keys)
            for n, size in enumerate(sizes):
                tick = time.perf_counter()
                load = tenancy.fill_to_size(services, size, say)
                phases[f"filler load {size}"] = time.perf_counter() - tick
                tick = time.perf_counter()
                load["settle_s"] = wait_quiet(neo4j_pid())
                say(f"  Neo4j quiet (index merges done) after {load['settle_s']:.0f} s")
                phases[f"settle {size}"] = time.perf_counter() - tick
                tick = time.perf_counter()
                result = tenancy.measure(services, size, profile.rounds, say, http)
                result["load"] = load
                multi.append(result)
                phases[f"recall at {size}"] = time.perf_counter() - tick
                console.print(report.tenancy_table(multi))
                if n == 0 and profile.speed:
                    tick = time.perf_counter()
                    measured = measure_size(
                        tenancy.TENANT_SIZE, services, svc, key, profile.scale, say=say
                    )
                    written, seconds = built
                    if written:
                        measured["build"] = {
                            "written": written,
                            "seconds": seconds,
                            "per_s": written / seconds,
                        }
                    scale.append(measured)
                    phases[f"speed at {size}"] = time.perf_counter() - tick
                    console.print(report.latency_table(measured))
                if n == 0 and profile.conversations != 0:
                    tick = time.perf_counter()
                    quality = locomo_service.evaluate(
                        services, locomo_http, profile.conversations, say=say
                    )
                    phases["LoCoMo"] = time.perf_counter() - tick
                if quality is not None and size == LOCOMO_WITH_OTHERS:
                    tick = time.perf_counter()
                    # Exactly LOCOMO_WITH_OTHERS filler memories (the stage above filled to a
                    # database of that size, tenant and conversations included).
                    others = tenancy.fill(services, LOCOMO_WITH_OTHERS, say)["stored"]
                    locomo_service.evaluate_again(services, locomo_http, quality, others, say=say)
                    phases["LoCoMo with other tenants"] = time.perf_counter() - tick
            http.close()
            for client in locomo_http.values():
                client.close()
            service_info["peak_rss_mb"] = svc.peak_rss_mb()
        if not profile.keep_filler:
            tick = time.perf_counter()
            tenancy.drop_filler(services, say)
            phases["filler drop"] = time.perf_counter() - tick
    finally:
        services.close()
    record: dict[str, Any] = {
        "mode": profile.name,
        "sizes": sizes,
        "torch_threads_setting": profile.torch_threads or "default",
        "started": started.isoformat(),
        "machine": info,
        "loadavg_end": loadavg(),
        "service": service_info,
        "tenancy": multi,
        "scale": scale,
        "locomo": quality,
        "phases_s": phases,
        "seconds": time.perf_counter() - t0,
    }
    if multi:
        console.print(report.tenancy_table(multi))
        for r in multi:
            console.print(
                f"where recall's time goes at {r['size']} (p50 ms): "
                + ", ".join(f"{k} {v:.1f}" for k, v in r["stages_p50"].items())
            )
    if scale:
        console.print(report.writes_table(scale))
        for r in scale:
            rss = r["rss"]
            console.print(
                f"peak RSS after {r['size']}: service {rss['service_peak_mb']:.0f} MiB"
                + (f", Neo4j {rss['neo4j_peak_mb']:.0f} MiB" if rss["neo4j_peak_mb"] else "")
            )
    if quality:
        quality.pop("_run", None)
        console.print(locomo_service.table(quality))
        for line in locomo_service.summary_lines(quality):
            console.print(line)
        if quality["skipped"]:
            console.print(
                f"LoCoMo: skipped {quality['skipped']} questions with unknown evidence ids"
            )
    console.print(
        "where the run's time went: "
        + ", ".join(f"{k} {v:.0f} s" for k, v in phases.items())
        + f"; total {record['seconds']:.0f} s; load average {info['loadavg_start']} -> {record['loadavg_end']}"
    )
    stem = started.strftime("%Y-%m-%d") + ("" if profile.name == "full" else f"-{profile.name}")
    if sizes != sorted(PROFILES[profile.name].sizes):
        stem += "-" + "-".join(f"{n // 1000}k" for n in sizes)
    if profile.torch_threads:
        stem += f"-threads{profile.torch_threads}"
    report.write_json(record, RESULTS / f"{stem}.json")
    (RESULTS / f"{stem}.md").write_text(report.markdown(record))
    report.plot(record, RESULTS / f"{stem}.png")
    console.print(f"wrote bench/results/{stem}.json, .md and .png")
    return record


def main(
    profile: str = typer.Option("quick", help="quick or full: the request counts and defaults."),
    sizes: str = typer.Option("", help="Override the database sizes, e.g. 10k,100k,1000k."),
    conversations: int = typer.Option(
        -1, help="Override how many LoCoMo conversations (0 = skip LoCoMo, -1 = the profile's)."
    ),
    torch_threads: int = typer.Option(
        0, min=0, help="Torch intra-op threads for the service and this process (0 = default)."
    ),
    rounds: int = typer.Option(0, min=0, help="Timed recall rounds per size (0 = the profile's)."),
    keep_filler: bool = typer.Option(
        False, "--keep-filler", help="Keep filler tenants from earlier runs and after this one."
    ),
    speed: bool = typer.Option(
        True, "--speed/--no-speed", help="Run the HTTP speed measurements at the first size."
    ),
) -> None:
    """Run the recall/speed/LoCoMo suite with a profile (what `--quick` and `--full` run)."""
    if profile not in PROFILES:
        raise typer.BadParameter(f"profile must be one of {', '.join(PROFILES)}")
    chosen = PROFILES[profile]
    changes: dict[str, Any] = {"keep_filler": keep_filler, "speed": speed}
    if sizes:
        changes["sizes"] = parse_sizes(sizes)
    if conversations >= 0:
        changes["conversations"] = conversations
    if torch_threads:
        changes["torch_threads"] = torch_threads
    if rounds:
        changes["rounds"] = rounds
    run(replace(chosen, **changes))
