"""Tables (rich and Markdown), the JSON record and the PNG plot of one suite run."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from rich.table import Table

from bench.encoders import ENCODERS
from bench.locomo import CATEGORIES


def _ms(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _x(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}x"


def _size(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def latency_table(result: dict[str, Any]) -> Table:
    """Render one size's latency rows (floors, in-process, HTTP) as a rich table."""
    f = result["floors_ms"]
    t = Table(
        title=(
            f"speed at {_size(result['size'])} memories (namespace {result['namespace']}: "
            f"{result['stored']}; database: {result['global_memories']}); floors p50: "
            f"Bolt {f['bolt']:.1f} ms, vector k={f['vector_k']} {f['vector']:.1f} ms, "
            f"encode {f['encode']:.1f} ms"
        ),
        title_justify="left",
    )
    for col in ("what", "c", "n", "p50 ms", "p95 ms", "p99 ms", "req/s", "floor", "p50/floor", "p95/floor", "note"):  # fmt: skip
        t.add_column(col, justify="left" if col in ("what", "floor", "note") else "right")
    for r in result["rows"]:
        t.add_row(
            r["op"],
            str(r["concurrency"]),
            str(r["n"]),
            _ms(r["p50"]),
            _ms(r["p95"]),
            _ms(r["p99"]),
            "-" if r["throughput"] is None else f"{r['throughput']:.1f}",
            f"{r['floor']} {_ms(r['floor_ms'])}" if r["floor"] else "",
            _x(r.get("p50_x_floor")),
            _x(r.get("p95_x_floor")),
            r["note"],
        )
    return t


def _encodes(samples: dict[str, Any], p: str = "p50") -> list[str]:
    """The four encode probes' times at percentile p (`-` for one that did not run)."""
    return [_ms(samples[name][p]) if name in samples else "-" for name in ENCODERS]


def tenancy_table(results: list[dict[str, Any]]) -> Table:
    """Render recall against its floor (fastest encode + filtered SEARCH) per database size."""
    t = Table(
        title=(
            "recall of tenant bench_10000 (10k real memories) in a multi-tenant database, "
            "against the floor = the fastest of ONNX Runtime / PyTorch x 1 / 2 threads for one "
            "encode + one filtered SEARCH (encodes: p50 ms)"
        ),
        title_justify="left",
    )
    cols = ("database", "n", *ENCODERS.values(), "SEARCH", "floor p50 / p95", "fulltext", "recall in-process p50 / p95", "POST /v1/recall p50 / p95", "p95 / floor p95: in-process, HTTP", "rest p50")  # fmt: skip
    for col in cols:
        t.add_column(col, justify="right")
    for r in results:
        s = r["samples"]
        http = s.get("http_recall")
        t.add_row(
            f"{_size(r['size'])} ({r['global_memories']})",
            str(s["search"]["n"]),
            *_encodes(s),
            _ms(s["search"]["p50"]),
            f"{_ms(r['floor']['p50'])} / {_ms(r['floor']['p95'])}",
            _ms(s["fulltext"]["p50"]),
            f"{_ms(s['inproc_recall']['p50'])} / {_ms(s['inproc_recall']['p95'])}",
            f"{_ms(http['p50'])} / {_ms(http['p95'])}" if http else "-",
            _ratios(r),
            _ms(r["stages_p50"]["rest (hydration, filters, fusion, Python)"]),
        )
    return t


def _ratios(result: dict[str, Any]) -> str:
    """Return recall's p95 over the floor's p95, in-process and over HTTP (`-` when not run)."""
    ratios = result["ratios"]
    return ", ".join(
        f"{ratios[name]['p95']:.2f}x" if name in ratios else "-"
        for name in ("inproc_recall", "http_recall")
    )


def tenancy_markdown(results: list[dict[str, Any]]) -> list[str]:
    """Return the tenancy table as Markdown lines."""
    lines = [
        "Recall of tenant `bench_10000` (10k memories, real embeddings) in a multi-tenant "
        "database (other tenants: filler with synthetic text and random unit vectors); floor = "
        "the fastest of ONNX Runtime and PyTorch with 1 and 2 intra-op threads for one query "
        "encode + one filtered vector `SEARCH` (k = recall's candidate depth), p50 with p50s "
        "and p95 with p95s; interleaved rounds, each probe started 20 ms after the previous "
        "one ended (`scale_run.SETTLE_S`). All figures ms.",
        "",
        "| database | n | encode p50: onnx 1t / onnx 2t / torch 1t / torch 2t | fastest encode p50 / p95 | SEARCH p50 / p95 | floor p50 / p95 | fulltext p50 | recall in-process p50 / p95 | POST /v1/recall p50 / p95 | p95 / floor p95: in-process, HTTP | rest p50 |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        s = r["samples"]
        http = s.get("http_recall")
        fastest = f"{ENCODERS[r['best_encode']]} / {ENCODERS[r['best_encode_p95']]}"
        lines.append(
            f"| {_size(r['size'])} ({r['global_memories']}) | {s['search']['n']} "
            f"| {' / '.join(_encodes(s))} | {fastest.replace('encode ', '')} "
            f"| {_ms(s['search']['p50'])} / {_ms(s['search']['p95'])} "
            f"| {_ms(r['floor']['p50'])} / {_ms(r['floor']['p95'])} | {_ms(s['fulltext']['p50'])} "
            f"| {_ms(s['inproc_recall']['p50'])} / {_ms(s['inproc_recall']['p95'])} "
            + (f"| {_ms(http['p50'])} / {_ms(http['p95'])} " if http else "| - ")
            + f"| {_ratios(r)} "
            f"| {_ms(r['stages_p50']['rest (hydration, filters, fusion, Python)'])} |"
        )
    return lines


def writes_table(results: list[dict[str, Any]]) -> Table:
    """Render write throughput per size, embedding apart."""
    t = Table(title="write throughput (memories/s)", title_justify="left")
    for col in ("size", "POST c=1", "POST c=8", "in-process c=1", "encode 1 text ms", "bulk embed", "bulk embed 1 thread", "bulk write", "bulk end-to-end", "bulk end-to-end 1 thread", "bulk embedding share"):  # fmt: skip
        t.add_column(col, justify="left" if col == "size" else "right")
    for r in results:
        w, b = r["writes"], r["writes"]["bulk"]
        t.add_row(
            _size(r["size"]),
            f"{w['single_c1_per_s']:.1f}",
            f"{w['single_c8_per_s']:.1f}",
            f"{w['single_c1_inproc_per_s']:.1f}",
            _ms(w["encode_one_ms"]),
            f"{b['embed_per_s']:.0f}",
            f"{b['embed_per_s_1_thread']:.0f}",
            f"{b['write_per_s']:.0f}",
            f"{b['end_to_end_per_s']:.0f}",
            f"{b['end_to_end_per_s_1_thread']:.0f}",
            f"{b['embed_share']:.0%}",
        )
    return t


def quality_table(q: dict[str, Any]) -> Table:
    """Render LoCoMo recall@k and MRR per method, overall and hit@10 per category."""
    cats = sorted(next(iter(q["methods"].values()))["by_category"], key=int)
    t = Table(
        title=(
            f"retrieval quality on LoCoMo: {len(q['conversations'])} conversation(s), "
            f"{q['turns']} turns, {q['questions']} questions with evidence"
        ),
        title_justify="left",
    )
    cols = ["method", "R@5", "R@10", "H@10", "all@10", "MRR@10"] + [
        f"hit@10 c{c} {CATEGORIES.get(int(c), '')} (n={next(iter(q['methods'].values()))['by_category'][c]['n']})"
        for c in cats
    ]
    for col in cols:
        t.add_column(col, justify="left" if col == "method" else "right")
    for m in q["methods"]:
        a = q["methods"][m]["all"]
        t.add_row(
            m,
            f"{a['r@5']:.3f}",
            f"{a['r@10']:.3f}",
            f"{a['hit@10']:.3f}",
            f"{a['all@10']:.3f}",
            f"{a['rr']:.3f}",
            *(f"{q['methods'][m]['by_category'][c]['hit@10']:.3f}" for c in cats),
        )
    return t


def markdown(record: dict[str, Any]) -> str:
    """Return the run's tables as Markdown (what the README's Performance section shows)."""
    m = record["machine"]
    enc = next(
        (r["service_encoder"] for r in record.get("tenancy") or [] if "service_encoder" in r), None
    )
    service = (
        f"the service encodes with {enc['backend']}, {enc['threads']} thread(s); " if enc else ""
    )
    lines: list[str] = [
        f"Run {record['started'][:16]} UTC, `--{record['mode']}`, commit {m['commit']}; "
        f"{m['cpus']} CPUs ({m['cpu_model']}), {m['mem_gb']} GB, torch threads "
        f"{m['torch_threads']}; {service}load average {m['loadavg_start']} -> "
        f"{record['loadavg_end']} (the machine is shared).",
        "",
    ]
    scale = record["scale"]
    if scale:
        for r in scale:
            rss = r["rss"]
            neo = f", Neo4j {rss['neo4j_peak_mb']:.0f} MiB" if rss["neo4j_peak_mb"] else ""
            lines.append(
                f"- {_size(r['size'])}: namespace `{r['namespace']}` {r['stored']} memories, "
                f"database {r['global_memories']}; peak RSS service "
                f"{rss['service_peak_mb']:.0f} MiB{neo}."
            )
        lines.append("")
        sizes = [r["size"] for r in scale]
        head = "| what | c | " + " | ".join(
            f"{_size(s)}: p50 / p95 / p99 ms (p50 x floor)" for s in sizes
        )
        lines += [head + " |", "|---|---:|" + "---:|" * len(sizes)]
        keys = [(r["op"], r["concurrency"]) for r in scale[0]["rows"]]
        for op, c in keys:
            cells = []
            for res in scale:
                r = next((x for x in res["rows"] if (x["op"], x["concurrency"]) == (op, c)), None)
                if r is None:
                    cells.append("-")
                    continue
                ratio = f" ({r['p50_x_floor']:.1f}x)" if r.get("p50_x_floor") else ""
                if r["n"] == 1:
                    cells.append(f"{_ms(r['p50'])}")
                else:
                    cells.append(f"{_ms(r['p50'])} / {_ms(r['p95'])} / {_ms(r['p99'])}{ratio}")
            lines.append(f"| {op} | {c} | " + " | ".join(cells) + " |")
        lines += ["", "| size | POST c=1 | POST c=8 | in-process c=1 | bulk embed (1 thread) | bulk write | bulk end-to-end (1 thread) | service peak RSS |", "|---|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
        for r in scale:
            w, b = r["writes"], r["writes"]["bulk"]
            lines.append(
                f"| {_size(r['size'])} | {w['single_c1_per_s']:.1f}/s | {w['single_c8_per_s']:.1f}/s "
                f"| {w['single_c1_inproc_per_s']:.1f}/s "
                f"| {b['embed_per_s']:.0f}/s ({b['embed_per_s_1_thread']:.0f}/s) "
                f"| {b['write_per_s']:.0f}/s "
                f"| {b['end_to_end_per_s']:.0f}/s ({b['end_to_end_per_s_1_thread']:.0f}/s) "
                f"| {_ms(r['rss']['service_peak_mb'])} MiB |"
            )
    if record.get("tenancy"):
        lines += ["", *tenancy_markdown(record["tenancy"])]
        for r in record["tenancy"]:
            load = r.get("load")
            if load and load.get("written"):
                lines.append(
                    f"- filler loaded for {_size(r['size'])}: {load['written']} memories in "
                    f"{load['seconds']:.0f} s ({load['per_s']:.0f}/s, batches of {load['batch']})."
                )
    q = record.get("locomo")
    if q:
        cats = sorted(next(iter(q["methods"].values()))["by_category"], key=int)
        lat = q["recall_latency_ms"]
        lines += [
            "",
            f"LoCoMo, {len(q['conversations'])} conversation(s), {q['turns']} turns, "
            f"{q['questions']} questions: R@k = share of a question's evidence turns in the top "
            f"k (averaged), H@10 = any evidence turn in the top 10, all@10 = every one; MRR cut "
            f"at 10; service recall in-process p50 {lat['p50']:.0f} ms, p95 {lat['p95']:.0f} ms.",
            "",
            "| method | R@5 | R@10 | H@10 | all@10 | MRR@10 | "
            + " | ".join(f"hit@10 {CATEGORIES.get(int(c), c)}" for c in cats)
            + " |",
            "|---|---:|---:|---:|---:|---:|" + "---:|" * len(cats),
        ]
        for m in q["methods"]:
            a = q["methods"][m]["all"]
            per = " | ".join(f"{q['methods'][m]['by_category'][c]['hit@10']:.3f}" for c in cats)
            lines.append(
                f"| {m} | {a['r@5']:.3f} | {a['r@10']:.3f} | {a['hit@10']:.3f} | {a['all@10']:.3f} "
                f"| {a['rr']:.3f} | {per} |"
            )
    ti = (q or {}).get("tenant_independence")
    if ti:
        d = ti["delta"]
        lines += [
            "",
            f"With {ti['others']} other-tenant memories in the database, service recall moved by "
            f"R@10 {d['r@10']:+.3f}, H@10 {d['hit@10']:+.3f}, MRR {d['rr']:+.3f}.",
        ]
    return "\n".join(lines) + "\n"


def write_json(record: dict[str, Any], path: Path) -> None:
    """Write the run's record (every figure, the machine, the load average)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, default=str, allow_nan=True) + "\n")


def plot(record: dict[str, Any], path: Path) -> None:
    """Plot latency against size (left) and LoCoMo hit@k / MRR per method (right) to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    scale = record["scale"]
    if scale:
        sizes = [r["size"] for r in scale]
        series = [
            ("POST /v1/recall", 1, "tab:blue"),
            ("POST /v1/search", 1, "tab:green"),
            ("POST /v1/recall", 8, "tab:cyan"),
            ("POST /v1/memories", 1, "tab:red"),
            ("GET lineage (100-step trace)", 1, "tab:purple"),
        ]
        for op, c, color in series:
            p50, p95 = [], []
            for res in scale:
                r = next(x for x in res["rows"] if (x["op"], x["concurrency"]) == (op, c))
                p50.append(r["p50"])
                p95.append(r["p95"])
            left.plot(sizes, p50, "o-", color=color, label=f"{op} c={c} p50")
            left.plot(sizes, p95, "o--", color=color, alpha=0.5, label="p95")
        floor = [r["floors_ms"]["encode"] + r["floors_ms"]["vector"] for r in scale]
        left.plot(sizes, floor, "k:", marker="s", label="floor: encode + vector (p50)")
        left.plot(
            sizes,
            [r["floors_ms"]["bolt"] for r in scale],
            "k-.",
            marker="^",
            label="floor: Bolt RETURN 1",
        )
        left.set_xscale("log")
        left.set_yscale("log")
        left.set_xticks(sizes, [_size(s) for s in sizes])
        left.set_xlabel("memories in the namespace")
        left.set_ylabel("latency, ms")
        left.set_title("latency against size")
        left.legend(fontsize=7, ncol=2)
        left.grid(True, which="both", alpha=0.3)
    q = record.get("locomo")
    if q:
        metrics = [("r@5", "R@5"), ("r@10", "R@10"), ("hit@10", "H@10"), ("rr", "MRR@10")]
        width = 0.8 / len(q["methods"])
        for i, m in enumerate(q["methods"]):
            a = q["methods"][m]["all"]
            xs = [j + i * width for j in range(len(metrics))]
            bars = right.bar(xs, [a[k] for k, _ in metrics], width, label=m)
            right.bar_label(bars, fmt="%.2f", fontsize=7)
        right.set_xticks([j + width for j in range(len(metrics))], [name for _, name in metrics])
        right.set_ylim(0, 1)
        right.set_title(f"LoCoMo ({q['questions']} questions, {len(q['conversations'])} conv.)")
        right.legend(fontsize=8)
    fig.suptitle(
        f"Rationale bench {record['mode']} {record['started'][:16]} "
        f"(load avg {record['machine']['loadavg_start'][0]} -> {record['loadavg_end'][0]}, "
        f"{record['machine']['cpus']} CPUs)",
        fontsize=10,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
