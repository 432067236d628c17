"""LoCoMo through the service: turns written and questions asked over HTTP, scored beside baselines.

What a user of the API does, and nothing else: each conversation gets its own namespace
(`bench_locomo_<id>`, one API key each) on `rationale serve` in its own process; every session
is written with `POST /v1/memories/batch`, one item per turn: `kind: observation`, `content`,
`valid_from` = the session's date, `metadata {dia_id, session, conversation}`, `episode` = the
session (`locomo-<id>-session-<n>`), `position` = the turn's 0-based index in it and `context`
= the turn before it (the batch endpoint does not look the previous memory up; a single
`POST /v1/memories` does). Every question is then asked with `POST /v1/recall`
(`limit` 10) and, in the same pass, through `RetrievalService.recall` in this process (same
code, same data: the two must agree). An item stands for its own turn and for the turns of the
near-duplicates it collapsed (`duplicates.memory_ids`).

A namespace that already holds exactly these turns (content, episode, position, context, written
through the API) is reused; one that differs is deleted and written again. The baselines
(`bench.locomo.baselines`) rank the same turns for the same questions, dense ones on the vectors
the service stored. `evaluate_again` asks the same questions once filler tenants
(`bench.tenancy`) hold many other memories in the same database: the difference is the
tenant-independence figure.

`scripts/bench locomo` runs this stage alone: drop earlier filler, write and ask, load
`--others` filler memories, ask again, print one table and the differences, write
`bench/results/<date>-locomo.{json,md}`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import numpy as np
import typer
from neo4j import RoutingControl
from rich.table import Table

from bench import tenancy
from bench.common import RESULTS, loadavg, machine, summary, torch_threads
from bench.locomo import (
    LIMIT,
    Conversation,
    Question,
    Ranking,
    aggregate,
    baselines,
    conversations,
    scores,
)
from service.container import Services
from service.domain.retrieval import RetrievalRequest

HTTP = "service, POST /v1/recall"
INPROC = "service, in-process recall"
#: Items per `POST /v1/memories/batch` (a session is usually far smaller).
BATCH = 500


def api_keys(convs: list[Conversation]) -> dict[str, str]:
    """Return one fresh API key per conversation's namespace: `{key: namespace}`."""
    return {f"bench-locomo-{uuid.uuid4().hex}": c.namespace for c in convs}


def clients(base_url: str, keys: dict[str, str]) -> dict[str, httpx.Client]:
    """Return an HTTP client of the service per namespace (`{namespace: client}`), its key set."""
    return {
        ns: httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {k}"}, timeout=300)
        for k, ns in keys.items()
    }


def _stored(services: Services, namespace: str) -> list[dict[str, Any]]:
    """Return the namespace's current memories as written (no embedding)."""
    records, _, _ = services.graph.driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) WHERE m.system_to IS NULL "
        "RETURN m.memory_id AS memory_id, m.content AS content, m.episode AS episode, "
        "m.position AS position, m.search_context AS context, m.metadata_json AS metadata, "
        "m.created_by_origin AS origin",
        {"ns": namespace},
        routing_=RoutingControl.READ,
        database_=services.settings.neo4j_database,
    )
    return [dict(r) for r in records]


def _vectors(services: Services, conv: Conversation, by_dia: dict[str, str]) -> np.ndarray:
    """Return the embedding the service stored for each turn, in `conv.turns` order."""
    records, _, _ = services.graph.driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) WHERE m.system_to IS NULL "
        "RETURN m.memory_id AS memory_id, m.embedding AS embedding",
        {"ns": conv.namespace},
        routing_=RoutingControl.READ,
        database_=services.settings.neo4j_database,
    )
    found = {r["memory_id"]: r["embedding"] for r in records}
    return np.asarray([found[by_dia[t.dia_id]] for t in conv.turns], dtype=np.float32)


def _expected(conv: Conversation) -> list[tuple[Any, ...]]:
    return sorted(
        (t.content, conv.episode(t), t.position, t.context or None, "user") for t in conv.turns
    )


def _drop(services: Services, namespace: str) -> None:
    """Delete every node of a `bench_locomo_*` namespace."""
    assert namespace.startswith("bench_locomo_")
    with services.graph.driver.session(database=services.settings.neo4j_database) as session:
        session.run(
            "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS",
            ns=namespace,
        ).consume()


def write_turns(http: httpx.Client, conv: Conversation) -> dict[str, str]:
    """Write every turn through `POST /v1/memories/batch`, a session at a time.

    Returns:
        `{dia_id: memory_id}` from the answers (an item equal to a stored memory maps to it).

    Raises:
        httpx.HTTPStatusError: the service refused a batch.
    """
    by_dia: dict[str, str] = {}
    sessions = sorted({t.session for t in conv.turns})
    for n in sessions:
        turns = [t for t in conv.turns if t.session == n]
        for start in range(0, len(turns), BATCH):
            part = turns[start : start + BATCH]
            items = [
                {
                    "kind": "observation",
                    "content": t.content,
                    "valid_from": t.valid_from.isoformat(),
                    "metadata": {"dia_id": t.dia_id, "session": t.session, "conversation": conv.id},
                    "episode": conv.episode(t),
                    "position": t.position,
                    **({"context": t.context} if t.context else {}),
                }
                for t in part
            ]
            r = http.post("/v1/memories/batch", json={"items": items})
            r.raise_for_status()
            for t, item in zip(part, r.json()["items"], strict=True):
                by_dia[t.dia_id] = item["memory"]["memory_id"]
    return by_dia


def ensure(
    services: Services, http: httpx.Client, conv: Conversation
) -> tuple[dict[str, str], dict[str, Any]]:
    """Make sure the namespace holds the conversation as written through the API.

    Returns:
        `({dia_id: memory_id}, {reused, write_s})`.
    """
    have = _stored(services, conv.namespace)
    got = sorted(
        (r["content"], r["episode"], r["position"], r["context"], r["origin"]) for r in have
    )
    if got == _expected(conv):
        by_dia = {json.loads(r["metadata"])["dia_id"]: r["memory_id"] for r in have}
        return by_dia, {"reused": True, "write_s": 0.0}
    if have:
        _drop(services, conv.namespace)
    t0 = time.perf_counter()
    by_dia = write_turns(http, conv)
    return by_dia, {"reused": False, "write_s": time.perf_counter() - t0}


def _item(
    memory_id: str, duplicates: dict[str, Any] | None, turn_of: dict[str, str]
) -> tuple[str, ...]:
    ids = [memory_id, *((duplicates or {}).get("memory_ids") or [])]
    return tuple(turn_of[i] for i in ids if i in turn_of)


def ask(
    services: Services, http: httpx.Client, conv: Conversation, by_dia: dict[str, str]
) -> dict[str, Any]:
    """Ask every question over HTTP and in-process; return both rankings and their latencies.

    Returns:
        `{rankings: {HTTP: Ranking, INPROC: Ranking}, ms: {HTTP: [...], INPROC: [...]},
        collapsed, disagree}`: `collapsed` = items that stood for more than one turn,
        `disagree` = questions whose two top-10 lists differ.
    """
    turn_of = {m: d for d, m in by_dia.items()}
    rankings: dict[str, Ranking] = {HTTP: [], INPROC: []}
    ms: dict[str, list[float]] = {HTTP: [], INPROC: []}
    collapsed = 0
    for q in conv.questions:
        t0 = time.perf_counter()
        r = http.post("/v1/recall", json={"query": q.text, "limit": LIMIT})
        r.raise_for_status()
        ms[HTTP].append((time.perf_counter() - t0) * 1000.0)
        items = [_item(i["memory_id"], i.get("duplicates"), turn_of) for i in r.json()["items"]]
        rankings[HTTP].append(items)
        collapsed += sum(len(i) > 1 for i in items)
        t0 = time.perf_counter()
        answer = services.retrieval.recall(
            conv.namespace, RetrievalRequest(query=q.text, limit=LIMIT)
        )
        ms[INPROC].append((time.perf_counter() - t0) * 1000.0)
        rankings[INPROC].append([_item(i.memory_id, i.duplicates, turn_of) for i in answer.items])
    disagree = sum(a != b for a, b in zip(rankings[HTTP], rankings[INPROC], strict=True))
    return {"rankings": rankings, "ms": ms, "collapsed": collapsed, "disagree": disagree}


def _pass(
    services: Services,
    http: dict[str, httpx.Client],
    convs: list[Conversation],
    maps: dict[str, dict[str, str]],
    suffix: str,
) -> tuple[dict[str, list[dict[str, float]]], dict[str, Any], Ranking]:
    """Ask every conversation's questions through the service.

    Returns:
        `(per-question scores by method, facts, the HTTP ranking of every question)`.
    """
    per_q: dict[str, list[dict[str, float]]] = {HTTP + suffix: [], INPROC + suffix: []}
    ms: dict[str, list[float]] = {HTTP: [], INPROC: []}
    top10: Ranking = []
    collapsed = disagree = 0
    for conv in convs:
        got = ask(services, http[conv.namespace], conv, maps[conv.id])
        top10 += got["rankings"][HTTP]
        for name in (HTTP, INPROC):
            per_q[name + suffix] += scores(got["rankings"][name], conv.questions)
            ms[name] += got["ms"][name]
        collapsed += got["collapsed"]
        disagree += got["disagree"]
    facts = {
        "latency_ms": {name: summary(v) for name, v in ms.items()},
        "collapsed_items": collapsed,
        "http_inproc_disagree": disagree,
        "loadavg": loadavg(),
    }
    return per_q, facts, top10


def evaluate(
    services: Services,
    http: dict[str, httpx.Client],
    limit: int | None,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Write (or reuse) `limit` conversations through the API, ask every question, score it all.

    Args:
        services: the in-process services (driver, model, in-process recall).
        http: a client of the service process per conversation namespace (`clients`).
        limit: how many conversations (the smallest first), None = all.
        say: progress printer.

    Returns:
        `{conversations[], turns, questions, skipped, methods{name: {all, by_category}},
        recall_latency_ms (in-process), passes{"without filler": facts}, ingest[],
        loadavg_start, _run}` (`_run`: what `evaluate_again` needs; drop it before recording).
    """
    start_load = loadavg()
    convs = conversations(limit)
    maps: dict[str, dict[str, str]] = {}
    ingests = []
    per_base: dict[str, list[dict[str, float]]] = {}
    questions: list[Question] = []
    for conv in convs:
        by_dia, info = ensure(services, http[conv.namespace], conv)
        maps[conv.id] = by_dia
        ingests.append({"conversation": conv.id, "turns": len(conv.turns), **info})
        how = "reused" if info["reused"] else f"written in {info['write_s']:.0f} s"
        say(f"  LoCoMo {conv.id}: {len(conv.turns)} turns ({how}), {len(conv.questions)} questions")
        with torch_threads(1):
            qv = np.asarray(
                services.embedder.encode([q.text for q in conv.questions]), dtype=np.float32
            )
        ranked = baselines(conv, _vectors(services, conv, by_dia), qv, services.settings.rrf_k)
        for name, ranking in ranked.items():
            per_base.setdefault(name, []).extend(scores(ranking, conv.questions))
        questions += conv.questions
    per_q, facts, top10 = _pass(services, http, convs, maps, "")
    methods = {name: aggregate(rows, questions) for name, rows in {**per_q, **per_base}.items()}
    quality = {
        "conversations": [c.id for c in convs],
        "turns": sum(len(c.turns) for c in convs),
        "questions": len(questions),
        "skipped": sum(c.skipped for c in convs),
        "unknown_evidence_ids": sorted({i for c in convs for i in c.unknown_ids}),
        "methods": methods,
        "recall_latency_ms": facts["latency_ms"][INPROC],
        "passes": {"without filler": facts},
        "ingest": ingests,
        # What the second pass needs (turn ids, the first answers); dropped before the record.
        "_run": {"maps": maps, "top10": top10},
        "loadavg_start": start_load,
    }
    say(f"  LoCoMo without filler: {_line(methods[HTTP]['all'])} (load {facts['loadavg']})")
    return quality


def evaluate_again(
    services: Services,
    http: dict[str, httpx.Client],
    quality: dict[str, Any],
    others: int,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Ask the same questions again now that filler tenants hold `others` memories.

    Adds the methods `<service method>, +<others/1000>k filler` to `quality["methods"]` and
    `quality["tenant_independence"] = {others, delta{metric: with - without}, delta_inproc,
    identical_top10}` (identical_top10: questions whose `POST /v1/recall` top 10 did not change)
    (the conversations' namespaces are unchanged; only the database around them grew).

    Returns:
        The updated `quality`.
    """
    convs = [c for c in conversations(None) if c.id in set(quality["conversations"])]
    suffix = f", +{others // 1000}k filler"
    per_q, facts, top10 = _pass(services, http, convs, quality["_run"]["maps"], suffix)
    same = sum(a == b for a, b in zip(quality["_run"]["top10"], top10, strict=True))
    questions = [q for c in convs for q in c.questions]
    services_first = {n: m for n, m in quality["methods"].items() if n.startswith("service")}
    for name, rows in per_q.items():
        services_first[name] = aggregate(rows, questions)
    quality["methods"] = {**services_first, **quality["methods"]}
    quality["passes"][f"with {others} filler"] = facts

    def delta(name: str) -> dict[str, float]:
        a, b = quality["methods"][name + suffix]["all"], quality["methods"][name]["all"]
        return {k: a[k] - b[k] for k in b if k != "n"}

    quality["tenant_independence"] = {
        "others": others,
        "delta": delta(HTTP),
        "delta_inproc": delta(INPROC),
        "identical_top10": same,
        "recall_latency_ms": facts["latency_ms"][HTTP],
    }
    say(
        f"  LoCoMo with {others} filler memories: {_line(quality['methods'][HTTP + suffix]['all'])}"
        f"; top 10 identical for {same} of {len(top10)} questions (load {facts['loadavg']})"
    )
    return quality


def _line(a: dict[str, float]) -> str:
    return f"R@10 {a['r@10']:.3f}, MRR {a['rr']:.3f}"


COLUMNS = (("R@5", "r@5"), ("R@10", "r@10"), ("H@1", "hit@1"), ("H@10", "hit@10"))


def table(quality: dict[str, Any]) -> Table:
    """Render one table: system | R@5 | R@10 | H@1 | H@10 | all@10 | MRR@10 (rich)."""
    t = Table(
        title=(
            f"LoCoMo through the service: {len(quality['conversations'])} conversation(s), "
            f"{quality['turns']} turns, {quality['questions']} questions with evidence"
        ),
        title_justify="left",
    )
    for col in ("system", *(c for c, _ in COLUMNS), "all@10", "MRR@10"):
        t.add_column(col, justify="left" if col == "system" else "right")
    for name, m in quality["methods"].items():
        a = m["all"]
        t.add_row(
            name, *(f"{a[k]:.3f}" for _, k in COLUMNS), f"{a['all@10']:.3f}", f"{a['rr']:.3f}"
        )
    return t


def summary_lines(quality: dict[str, Any]) -> list[str]:
    """Return the run's facts beside the table: latencies, collapses, agreement, differences."""
    lines = []
    for name, facts in quality["passes"].items():
        lat = facts["latency_ms"]
        lines.append(
            f"{name}: POST /v1/recall p50 {lat[HTTP]['p50']:.0f} / p95 {lat[HTTP]['p95']:.0f} ms, "
            f"in-process p50 {lat[INPROC]['p50']:.0f} / p95 {lat[INPROC]['p95']:.0f} ms; "
            f"HTTP and in-process top 10 differ on {facts['http_inproc_disagree']} questions; "
            f"{facts['collapsed_items']} items stood for more than one turn; "
            f"load average {' '.join(str(x) for x in facts['loadavg'])}"
        )
    ti = quality.get("tenant_independence")
    if ti:
        for label, d in (("POST /v1/recall", ti["delta"]), ("in-process", ti["delta_inproc"])):
            lines.append(
                f"with {ti['others']} filler memories - without, {label}: R@10 {d['r@10']:+.3f}, "
                f"MRR {d['rr']:+.3f}, H@10 {d['hit@10']:+.3f}, R@5 {d['r@5']:+.3f}"
            )
        lines.append(
            f"top 10 of POST /v1/recall identical with and without the filler for "
            f"{ti['identical_top10']} of {quality['questions']} questions"
        )
    return lines


def markdown(record: dict[str, Any]) -> str:
    """Return the stage's record as Markdown: the machine, the table, the facts."""
    q, m = record["locomo"], record["machine"]
    lines = [
        f"LoCoMo run {record['started'][:16]} UTC, commit {m['commit']}; {m['cpus']} CPUs, "
        f"load average {m['loadavg_start']} -> {record['loadavg_end']}; command `{record['command']}`.",
        "",
        f"{len(q['conversations'])} conversations, {q['turns']} turns, {q['questions']} questions "
        "with evidence. R@k = share of a question's evidence turns in the top k items; H@k = any; "
        "MRR cut at 10.",
        "",
        "| system | " + " | ".join(c for c, _ in COLUMNS) + " | all@10 | MRR@10 |",
        "|---|" + "---:|" * (len(COLUMNS) + 2),
    ]
    for name, method in q["methods"].items():
        a = method["all"]
        cells = " | ".join(f"{a[k]:.3f}" for _, k in COLUMNS)
        lines.append(f"| {name} | {cells} | {a['all@10']:.3f} | {a['rr']:.3f} |")
    lines += ["", *(f"- {line}" for line in summary_lines(q))]
    return "\n".join(lines) + "\n"


def main(
    conversations_: int = typer.Option(
        0, "--conversations", min=0, help="How many conversations (0 = all five)."
    ),
    others: int = typer.Option(
        100_000, min=0, help="Filler memories of other tenants for the second pass (0 = none)."
    ),
    keep_filler: bool = typer.Option(
        False, "--keep-filler", help="Keep the filler at the end (it is always dropped first)."
    ),
) -> None:
    """LoCoMo alone: write the turns and ask through the service, without and with filler tenants."""
    from rich.console import Console

    from bench.service_process import ServiceProcess
    from service.container import build_services
    from service.settings import Settings

    console = Console(width=200)

    def say(text: str) -> None:
        console.print(f"[dim]{time.strftime('%H:%M:%S')} load {loadavg()}[/] {text}")

    started = datetime.now(UTC)
    info = machine()
    services = build_services(Settings())
    try:
        tenancy.drop_filler(services, say)
        convs = conversations(conversations_ or None)
        keys = api_keys(convs)
        with ServiceProcess(keys) as svc:
            say(f"service pid {svc.pid} on {svc.base_url}, ready in {svc.startup_s:.1f} s")
            http = clients(svc.base_url, keys)
            quality = evaluate(services, http, conversations_ or None, say)
            if others:
                load = tenancy.fill(services, others, say)
                say(f"  filler: {load}")
                evaluate_again(services, http, quality, others, say)
            for c in http.values():
                c.close()
        if others and not keep_filler:
            tenancy.drop_filler(services, say)
    finally:
        services.close()
    quality.pop("_run")
    console.print(table(quality))
    for line in summary_lines(quality):
        console.print(line)
    record = {
        "mode": "locomo",
        "command": "scripts/bench locomo"
        + (f" --conversations {conversations_}" if conversations_ else "")
        + (f" --others {others}" if others != 100_000 else ""),
        "started": started.isoformat(),
        "machine": info,
        "loadavg_end": loadavg(),
        "locomo": quality,
    }
    stem = started.strftime("%Y-%m-%d") + "-locomo"
    (RESULTS / f"{stem}.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    (RESULTS / f"{stem}.md").write_text(markdown(record))
    console.print(f"wrote bench/results/{stem}.json and .md")
