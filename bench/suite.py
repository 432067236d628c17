"""`scripts/bench --quick` / `--full`: speed and scale against the floors, and quality on LoCoMo.

One run measures, side by side (nothing is asserted; the figures are printed and recorded):

- speed and scale (`bench.scale`) at each size: floors, in-process breakdown, HTTP load on the
  real service in its own process at concurrency 1 and 8, bulk writes, peak RSS;
- retrieval quality on LoCoMo (`bench.locomo`): the service's recall against BM25 and dense
  cosine.

`--quick` (a smoke check, a few minutes): 10k memories, fewer requests, one conversation.
`--full`: 10k and 100k memories, all five conversations. 1M is not run: the run prints an
estimate of how long building it would take from the measured bulk rate.

Corpora (`bench_<N>`, `bench_locomo_<id>`) are built once and reused by later runs. Results go to
`bench/results/<date>.json`, `.md` and `.png` (`<date>-quick.*` for `--quick`, so a smoke run
never overwrites the last full record). The load average is printed and recorded at the start
and the end: the machine is shared, so read the figures with it.
"""

from __future__ import annotations

import logging
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import typer
from rich.console import Console

from bench import locomo, report
from bench.common import RESULTS, loadavg, machine, torch_threads
from bench.corpus import ensure_corpus
from bench.recall import parse_sizes
from bench.scale import measure_size
from bench.scale_report import estimate_million
from bench.scale_run import FULL_SCALE, QUICK_SCALE, ScaleProfile
from bench.service_process import ServiceProcess
from service.container import Services, build_services
from service.settings import Settings

console = Console(width=None if sys.stdout.isatty() else 200)


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


PROFILES = {
    "quick": SuiteProfile("quick", [10_000], 1, QUICK_SCALE),
    "full": SuiteProfile("full", [10_000, 100_000], None, FULL_SCALE),
}


def say(text: str) -> None:
    """Print a progress line with the elapsed time and the load average."""
    one = loadavg()[0]
    console.print(f"[dim]{time.strftime('%H:%M:%S')} load {one:.1f}[/] {text}")


def build_corpora(services: Services, sizes: list[int]) -> dict[int, tuple[int, float]]:
    """Build (or reuse) `bench_<N>` for each size; return (written, seconds) per size.

    Setup, not a measurement: it embeds with one torch thread (`torch_threads`).
    """
    with torch_threads(1):
        return {
            size: ensure_corpus(services.graph, services.embedder, f"bench_{size}", size, 512)
            for size in sizes
        }


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
    say(
        f"bench {profile.name}: sizes {profile.sizes}, "
        f"LoCoMo conversations {profile.conversations or 'all'}; {info['cpus']} CPUs, "
        f"load average {info['loadavg_start']}, commit {info['commit']}"
    )
    tick = time.perf_counter()
    services = build_services(Settings())
    phases["bench process start (model, schema)"] = time.perf_counter() - tick
    scale: list[dict[str, Any]] = []
    service_info: dict[str, Any] = {}
    quality: dict[str, Any] | None = None
    try:
        tick = time.perf_counter()
        builds = build_corpora(services, profile.sizes)
        phases["corpus build"] = time.perf_counter() - tick
        keys = {f"bench-{uuid.uuid4().hex}": f"bench_{size}" for size in profile.sizes}
        by_ns = {ns: key for key, ns in keys.items()}
        tick = time.perf_counter()
        env = {"OMP_NUM_THREADS": str(profile.torch_threads)} if profile.torch_threads else {}
        with ServiceProcess(keys, env=env) as svc:
            service_info["startup_s"] = svc.startup_s
            say(f"service pid {svc.pid} on {svc.base_url}, ready in {svc.startup_s:.1f} s")
            phases["service start"] = time.perf_counter() - tick
            for size in profile.sizes:
                tick = time.perf_counter()
                result = measure_size(
                    size, services, svc, by_ns[f"bench_{size}"], profile.scale, say=say
                )
                written, seconds = builds[size]
                if written:
                    result["build"] = {
                        "written": written,
                        "seconds": seconds,
                        "per_s": written / seconds,
                    }
                scale.append(result)
                phases[f"scale {size}"] = time.perf_counter() - tick
                console.print(report.latency_table(result))
            service_info["peak_rss_mb"] = svc.peak_rss_mb()
        tick = time.perf_counter()
        if profile.conversations != 0:
            quality = locomo.evaluate(services, profile.conversations, say=say)
            phases["LoCoMo"] = time.perf_counter() - tick
    finally:
        services.close()
    record: dict[str, Any] = {
        "mode": profile.name,
        "sizes": profile.sizes,
        "torch_threads_setting": profile.torch_threads or "default",
        "started": started.isoformat(),
        "machine": info,
        "loadavg_end": loadavg(),
        "service": service_info,
        "scale": scale,
        "estimate_1m": estimate_million(scale),
        "locomo": quality,
        "phases_s": phases,
        "seconds": time.perf_counter() - t0,
    }
    if scale:
        console.print(report.writes_table(scale))
        for r in scale:
            rss = r["rss"]
            console.print(
                f"peak RSS after {r['size']}: service {rss['service_peak_mb']:.0f} MiB"
                + (f", Neo4j {rss['neo4j_peak_mb']:.0f} MiB" if rss["neo4j_peak_mb"] else "")
                + f"; recall vector rounds: mean {r['rounds']['mean']:.2f}, "
                f"max k {r['rounds']['max_k']}, exact scans {r['rounds']['exact_scans']}"
            )
    est = record["estimate_1m"]
    if est:
        console.print(
            f"1M memories: not run. Adding {est['memories_to_add']} memories at the measured "
            f"{max(est['rates'].values()):.0f} memories/s ({', '.join(f'{k} {v:.0f}' for k, v in est['rates'].items())}) "
            f"would take about {est['build_minutes']:.0f} min to build alone"
            + (" (fits in 60 min)." if est["fits_60_min"] else " (over 60 min).")
        )
    if quality:
        console.print(report.quality_table(quality))
        lat, rounds = quality["recall_latency_ms"], quality["rounds"]
        console.print(
            f"LoCoMo recall in-process: p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms; "
            f"vector rounds mean {rounds['mean']:.2f}, exact scans {rounds['exact_scans']} of "
            f"{rounds['recalls']} (small namespaces in a large global index)"
            + (
                f"; skipped {quality['skipped']} questions with unknown evidence ids"
                if quality["skipped"]
                else ""
            )
        )
    console.print(
        "where the run's time went: "
        + ", ".join(f"{k} {v:.0f} s" for k, v in phases.items())
        + f"; total {record['seconds']:.0f} s; load average {info['loadavg_start']} -> {record['loadavg_end']}"
    )
    stem = started.strftime("%Y-%m-%d") + ("" if profile.name == "full" else f"-{profile.name}")
    if profile.torch_threads:
        stem += f"-threads{profile.torch_threads}"
    report.write_json(record, RESULTS / f"{stem}.json")
    (RESULTS / f"{stem}.md").write_text(report.markdown(record))
    report.plot(record, RESULTS / f"{stem}.png")
    console.print(f"wrote bench/results/{stem}.json, .md and .png")
    return record


def main(
    profile: str = typer.Option("quick", help="quick or full: the request counts and defaults."),
    sizes: str = typer.Option("", help="Override the sizes, e.g. 10k,100k."),
    conversations: int = typer.Option(
        -1, help="Override how many LoCoMo conversations (0 = skip LoCoMo, -1 = the profile's)."
    ),
    torch_threads: int = typer.Option(
        0, min=0, help="Torch intra-op threads for the service and this process (0 = default)."
    ),
) -> None:
    """Run the speed/scale and LoCoMo suite with a profile (what `--quick` and `--full` run)."""
    if profile not in PROFILES:
        raise typer.BadParameter(f"profile must be one of {', '.join(PROFILES)}")
    chosen = PROFILES[profile]
    if sizes:
        chosen = SuiteProfile(chosen.name, parse_sizes(sizes), chosen.conversations, chosen.scale)
    if conversations >= 0:
        chosen = SuiteProfile(chosen.name, chosen.sizes, conversations, chosen.scale)
    if torch_threads:
        chosen = SuiteProfile(
            chosen.name, chosen.sizes, chosen.conversations, chosen.scale, torch_threads
        )
    run(chosen)
