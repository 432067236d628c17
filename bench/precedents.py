"""Precedent quality on the real corpus: hit@1, hit@3 and MRR of `POST /v1/precedents`' service.

Method (deterministic, written down so the figure can be reproduced):

1. Every trajectory (`/work/shared/corpus/trajectories`: swe-agent, ReAct, OpenHands) and every
   ADR (`/work/shared/corpus/adrs`) is ingested into a fresh namespace through the ingestion
   service (origin `ingestion`, format detected), as `rationale ingest` does.
2. Each ingested trace that produced a decision is one case: its task, paraphrased by
   `paraphrase` (below), is the situation; the expected precedent is the decision it produced.
   Cases whose task is shorter than three words are skipped (nothing to paraphrase).
3. `PrecedentService.find(namespace, PrecedentRequest(situation, limit=3))` is asked; hit@k is
   the share of cases whose decision is among the first k items; MRR over the first 3.

`paraphrase` rewrites a task without the model or the index: lower-case it, drop Markdown and
punctuation, cut it to its first `PARAPHRASE_WORDS` words, replace words by the synonyms in
`SYNONYMS` (fix -> repair, error -> problem, use -> adopt, ...), drop the filler words in `FILLER`,
and move the first three words to the end. So the situation shares meaning but not the
wording or the word order of the stored task.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from pathlib import Path
from typing import Annotated

import typer

CORPUS = Path(os.environ.get("RATIONALE_CORPUS", "/work/shared/corpus"))
#: Words of a task kept before paraphrasing (long issue texts are cut to their opening).
PARAPHRASE_WORDS = 40
SYNONYMS: dict[str, str] = {
    "fix": "repair",
    "fixed": "repaired",
    "fails": "breaks",
    "fail": "break",
    "failing": "breaking",
    "error": "problem",
    "errors": "problems",
    "bug": "defect",
    "use": "adopt",
    "using": "adopting",
    "add": "introduce",
    "adding": "introducing",
    "remove": "drop",
    "create": "make",
    "find": "locate",
    "question": "query",
    "answer": "reply",
    "file": "document",
    "files": "documents",
    "function": "routine",
    "return": "give back",
    "returns": "gives back",
    "issue": "problem",
    "configuration": "config",
    "decision": "choice",
    "support": "handle",
    "allow": "permit",
    "should": "ought to",
    "test": "check",
    "tests": "checks",
    "run": "execute",
    "value": "setting",
    "change": "modify",
    "new": "fresh",
    "store": "keep",
    "generate": "produce",
    "input": "given",
    "output": "result",
}
FILLER = frozenset({"the", "a", "an", "please", "that", "this", "of", "to", "is", "be"})


def paraphrase(task: str) -> str:
    """Return the deterministic rewrite of a task (see the module docstring)."""
    text = re.sub(r"[`*_#>\[\](){}|:;,.!?\"']", " ", task.lower())
    words = text.split()[:PARAPHRASE_WORDS]
    out: list[str] = []
    for word in words:
        if word in FILLER:
            continue
        out.extend(SYNONYMS.get(word, word).split())
    if len(out) > 3:
        out = out[3:] + out[:3]
    return " ".join(out)


def _files() -> list[Path]:
    out = []
    for folder in ("trajectories", "adrs"):
        for path in sorted((CORPUS / folder).rglob("*")):
            if path.is_file() and path.name != "SOURCE.md":
                out.append(path)
    return out


def main(
    keep: Annotated[
        bool, typer.Option(help="Keep the namespace (default: dropped at the end).")
    ] = False,
    out: Annotated[Path | None, typer.Option(help="Also write the figures as JSON here.")] = None,
) -> None:
    """Ingest the corpus, ask precedents for each paraphrased task, report hit@1/hit@3/MRR."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from service.container import build_services
    from service.domain.precedents import PrecedentRequest
    from service.errors import RationaleError
    from service.settings import get_settings

    services = build_services(get_settings())
    namespace = f"bench_precedents_{uuid.uuid4().hex[:8]}"
    try:
        t0 = time.perf_counter()
        trace_ids: list[str] = []
        for path in _files():
            try:
                report = services.ingestion.ingest(
                    namespace, "bench", path.read_text(encoding="utf-8"), "auto", path.name
                )
            except RationaleError as exc:
                typer.echo(f"skipped {path.name}: {exc.message}")
                continue
            trace_ids.extend(report["trace_ids"])
        ingest_s = time.perf_counter() - t0
        cases = []
        for trace_id in trace_ids:
            trace = services.reasoning.get(namespace, trace_id)
            decisions = [p.memory_id for p in trace.produced if p.kind == "decision"]
            if decisions and len(trace.task.split()) >= 3:
                cases.append((trace.task, paraphrase(trace.task), decisions[0]))
        ranks: list[int | None] = []
        t1 = time.perf_counter()
        for _task, situation, expected in cases:
            result = services.precedents.find(
                namespace, PrecedentRequest(situation=situation, limit=3)
            )
            ids = [p.decision.memory_id for p in result.items]
            ranks.append(ids.index(expected) + 1 if expected in ids else None)
        ask_s = time.perf_counter() - t1
        n = len(cases)
        figures = {
            "cases": n,
            "traces_ingested": len(trace_ids),
            "hit@1": sum(1 for r in ranks if r == 1) / n if n else 0.0,
            "hit@3": sum(1 for r in ranks if r is not None) / n if n else 0.0,
            "mrr@3": sum(1 / r for r in ranks if r is not None) / n if n else 0.0,
            "ingest_s": round(ingest_s, 1),
            "mean_query_ms": round(1000 * ask_s / n, 1) if n else 0.0,
        }
        for (task, situation, _expected), rank in zip(cases, ranks, strict=True):
            if rank != 1:
                typer.echo(f"rank {rank}: {task[:70]!r} -> {situation[:70]!r}")
        typer.echo(json.dumps(figures, indent=2))
        if out is not None:
            out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    finally:
        if not keep:
            with services.graph.driver.session(database=services.settings.neo4j_database) as s:
                s.run(
                    "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } "
                    "IN TRANSACTIONS OF 1000 ROWS",
                    ns=namespace,
                ).consume()
        services.close()
