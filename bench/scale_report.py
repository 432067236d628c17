"""The scale benchmark's result lines: one row per figure with its floor, and the 1M estimate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.common import summary
from bench.encoders import ENCODERS, best_encode
from bench.load import LoadResult
from bench.scale_measure import Batches, Reads, Traces
from bench.scale_run import LIMIT, Interleaved, SizeRun


@dataclass
class Measured:
    """Everything the measurement phases of one size collected."""

    reads: Reads
    writes: Interleaved
    traces: Traces
    lineage: Interleaved
    batches: Batches


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


def c1_throughput(samples: Sequence[float]) -> float:
    """Requests per second of a closed loop at concurrency 1."""
    return 1000.0 * len(samples) / sum(samples) if samples else 0.0


def fastest_encode(reads: Interleaved) -> tuple[str, float]:
    """Return the fastest floor encode probe (`bench.encoders.ENCODERS`) at p50 and its ms."""
    return best_encode({n: {"p50": reads.p50(n)} for n in ENCODERS if n in reads.samples}, "p50")


def size_rows(run: SizeRun, measured: Measured) -> list[dict[str, Any]]:
    """Return the result lines of one size, in table order (see `row`).

    Args:
        run: the size's shared state (k, torch threads).
        measured: the phases' samples and batches.

    Returns:
        One `row` per figure: floors, parts, and each request at concurrency 1 and 8.
    """
    reads, writes_c1 = measured.reads.samples, measured.writes
    trace_c1, lineage_c1 = measured.traces.samples, measured.lineage
    rs, ws, ts, ls = reads.samples, writes_c1.samples, trace_c1.samples, lineage_c1.samples
    k = run.k
    backend = getattr(run.services.embedder, "backend", "?")
    threads = run.services.settings.embedding_threads
    short = measured.reads.short
    f_vec = reads.p50("vector")
    best, f_enc = fastest_encode(reads)
    recall_floor = ("encode + vector", f_enc + f_vec)
    write_floor = ("encode + Bolt", writes_c1.p50("encode") + writes_c1.p50("bolt"))
    res_w8, res_r8 = measured.batches.writes, measured.batches.reads
    res_t8, res_l8 = measured.batches.traces, measured.batches.lineage
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
            throughput=c1_throughput(samples), note=note,
        )  # fmt: skip

    def shorts(n: int) -> str:
        return f"{n} answers short of {LIMIT}" if n else ""

    rows: list[dict[str, Any]] = [
        row("floor: Bolt RETURN 1", 1, rs["bolt"]),
        row(f"floor: filtered vector SEARCH k={k}", 1, rs["vector"], note="precomputed embedding"),
        row(f"floor: encode one query, fastest: {ENCODERS[best].removeprefix('encode ')}", 1, rs[best], note="the fastest of the four below"),
        *(row(f"part: {label} (one query)", 1, rs[name]) for name, label in ENCODERS.items() if name in rs),
        row(f"part: encode one query as the service ({backend}, threads={threads})", 1, rs["encode"]),
        row(f"part: raw fulltext queryNodes k={k}", 1, rs["fulltext"]),
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

    return rows


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
