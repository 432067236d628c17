"""Retrieval quality on LoCoMo: the service's recall against BM25 and dense-only exact cosine.

Data: `../shared/corpus/benchmarks/locomo/conversations/*.json` (Maharana et al., ACL 2024;
CC BY-NC 4.0, internal evaluation only). It is read from there and never copied into the
repository; set `RATIONALE_LOCOMO_DIR` to read it from elsewhere.

Ingestion: every turn of a conversation becomes one `:Memory:Observation` in namespace
`bench_locomo_<id>`: content `"<speaker>: <text>"` (plus ` [image: <blip_caption>]` when the turn
shared a photo), `valid_from` = its session's date (`session_N_date_time`, e.g.
"1:56 pm on 8 May, 2023", read as UTC), `created_by_origin = ingestion`, metadata
`{dia_id, session, conversation}`. It goes through the bulk path (`UNWIND $rows` of
`cypher/bench/create_memories.cypher`, embeddings computed once with the service's model, one
torch thread: setup, not measured), so
the nodes are ordinary memories that recall sees. A namespace that already holds exactly these
texts is reused; one that differs is deleted and rebuilt.

Scoring: every question with evidence ids (`qa[].evidence`, e.g. `["D1:3"]`; malformed ids such
as `"D8:6; D9:17"` or `"D:11:26"` are read as the ids they name) is asked through the real recall
path, `RetrievalService.recall` with `limit = 10` (query embedding, vector + fulltext candidates,
filters, RRF). A question is a hit@k when any of its evidence turns is in the top k; "all@k"
when all of them are; MRR is the mean of 1/rank of the first evidence turn within the top 10
(0 when none). Questions none of whose evidence ids exists in the conversation are skipped and
counted. Baselines over the same turns: BM25 (`bm25s`, Lucene-style idf, English stop words,
no stemming), dense-only exact cosine with the same model (numpy, the stored vectors), and the
two fused by the service's own reciprocal-rank fusion (`rrf`, same k, top `RRF_DEPTH` of each):
what the service's hybrid would score with exact candidates, which separates the cost of the
fusion itself from that of the service's index candidates and filters. The last baseline is
BM25 again with `OTHER_TENANT_TEXTS` synthetic texts of other tenants (`bench.recall`'s corpus)
in its term statistics, dropped from the ranking: it shows what a global fulltext index (one
for all namespaces, as Neo4j's is) does to per-tenant BM25 ranking.

Categories are numbers in the data. The names shown (1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop, 5 adversarial) are the mapping used by later evaluations of LoCoMo (e.g. mem0's);
the data itself does not name them. Category 5 questions are adversarial (the answer is "not
mentioned"), but they still carry evidence turns, so they are scored for retrieval like the rest.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from neo4j import RoutingControl

from bench.common import (
    REPO,
    bench_graph,
    memory_row,
    row_accepts,
    summary,
    torch_threads,
    write_rows,
)
from bench.corpus import synthetic
from bench.recall import RoundLog, recall_rounds
from service.container import Services
from service.domain.models import Kind, Writer
from service.domain.retrieval import RetrievalRequest, rrf

DEFAULT_DIR = REPO.parent / "shared" / "corpus" / "benchmarks" / "locomo" / "conversations"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (5, 10)
LIMIT = 10
ACTOR = "bench:locomo"
METHODS = (
    "service recall",
    "BM25",
    "dense cosine",
    "RRF(BM25, dense)",
    "BM25, +10k other-tenant texts",
)
#: Texts of "other tenants" mixed into the last baseline's BM25 statistics (bench.recall corpus).
OTHER_TENANT_TEXTS = 10_000
#: Candidates per list fused by the RRF baseline (the service's first round: limit x overfetch).
RRF_DEPTH = 100


@dataclass
class Turn:
    """One turn of a conversation as stored."""

    dia_id: str
    session: int
    content: str
    valid_from: datetime

    @property
    def position(self) -> int:
        """The turn's index in its session (`D3:7` -> 7)."""
        return int(self.dia_id.rsplit(":", 1)[1])


@dataclass
class Question:
    """One QA item with its evidence turn ids."""

    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    """One LoCoMo conversation: its turns and questions."""

    id: str
    turns: list[Turn]
    questions: list[Question]
    skipped: int = 0
    unknown_ids: list[str] = field(default_factory=list)

    @property
    def namespace(self) -> str:
        """The bench namespace holding it."""
        return f"bench_locomo_{self.id}"


def data_dir() -> Path:
    """Return the folder of conversation files (`RATIONALE_LOCOMO_DIR` or the shared corpus)."""
    return Path(os.environ.get("RATIONALE_LOCOMO_DIR", DEFAULT_DIR))


def session_time(text: str) -> datetime:
    """Parse `"1:56 pm on 8 May, 2023"` as a UTC time."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def evidence_ids(raw: Sequence[str]) -> list[str]:
    """Return the dialogue ids named by evidence strings (`"D8:6; D9:17"` -> two ids)."""
    out: list[str] = []
    for item in raw:
        for a, b in re.findall(r"D:?(\d+):(\d+)", str(item)):
            ident = f"D{int(a)}:{int(b)}"
            if ident not in out:
                out.append(ident)
    return out


def load(path: Path) -> Conversation:
    """Read one conversation file into turns and scorable questions."""
    data = json.loads(path.read_text())
    turns: list[Turn] = []
    for key, value in data.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if not m or not isinstance(value, list):
            continue
        n = int(m.group(1))
        when = session_time(data[f"session_{n}_date_time"])
        for t in value:
            content = f"{t['speaker']}: {t['text']}"
            if t.get("blip_caption"):
                content += f" [image: {t['blip_caption']}]"
            turns.append(Turn(t["dia_id"], n, content, when))
    known = {t.dia_id for t in turns}
    conv = Conversation(path.stem, turns, [])
    for qa in data.get("qa", []):
        ids = evidence_ids(qa.get("evidence") or [])
        if not ids:
            continue
        conv.unknown_ids += [i for i in ids if i not in known]
        ids = [i for i in ids if i in known]
        if not ids:
            conv.skipped += 1
            continue
        conv.questions.append(Question(str(qa["question"]), int(qa["category"]), ids))
    return conv


def conversations(limit: int | None) -> list[Conversation]:
    """Load the `limit` smallest conversations (by file size, then name), or all of them."""
    files = sorted(data_dir().glob("*.json"), key=lambda p: (p.stat().st_size, p.name))
    if not files:
        raise FileNotFoundError(f"no LoCoMo conversations in {data_dir()}")
    return [load(p) for p in files[:limit]]


def stored_turns(services: Services, namespace: str) -> list[tuple[str, list[float]]]:
    """Return `(content, embedding)` of the namespace's current memories.

    When the service's rows carry an `episode`, memories stored without one (by an older
    version of this benchmark) are left out, so the namespace is rebuilt.
    """
    records, _, _ = services.graph.driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) WHERE m.system_to IS NULL "
        "AND (NOT $episodes OR m[$episode] IS NOT NULL) "
        "RETURN m.content AS c, m.embedding AS e",
        {"ns": namespace, "episodes": row_accepts("episode"), "episode": "episode"},
        routing_=RoutingControl.READ,
        database_=services.settings.neo4j_database,
    )
    return [(r["c"], r["e"]) for r in records]


def drop(services: Services, namespace: str) -> None:
    """Delete every node of a `bench_locomo_*` namespace."""
    assert namespace.startswith("bench_locomo_")
    with services.graph.driver.session(database=services.settings.neo4j_database) as session:
        session.run(
            "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS",
            ns=namespace,
        ).consume()


def ingest(services: Services, conv: Conversation) -> tuple[np.ndarray, dict[str, Any]]:
    """Make sure the conversation's namespace holds its turns; return the turn vectors and stats.

    Returns:
        `(vectors, info)`: one L2-normalised row per turn (in `conv.turns` order; read back
        from the stored memories when reused), and `{reused, embed_s, write_s}`.
    """
    texts = [t.content for t in conv.turns]
    have = stored_turns(services, conv.namespace)
    if sorted(c for c, _ in have) == sorted(texts):
        by_text = dict(have)
        vectors = np.asarray([by_text[t] for t in texts], dtype=np.float32)
        return vectors, {"reused": True, "embed_s": 0.0, "write_s": 0.0}
    if have:
        drop(services, conv.namespace)
    t0 = time.perf_counter()
    with torch_threads(1):
        vectors = np.asarray(services.embedder.encode(texts), dtype=np.float32)
    embed_s = time.perf_counter() - t0
    now = datetime.now(UTC)
    writer = Writer(conv.namespace, "ingestion", ACTOR)
    rows = [
        memory_row(
            writer,
            Kind.OBSERVATION,
            t.content,
            [float(x) for x in v],
            now=now,
            valid_from=t.valid_from,
            metadata_json=json.dumps(
                {"dia_id": t.dia_id, "session": t.session, "conversation": conv.id},
                sort_keys=True,
            ),
            episode=f"locomo-{conv.id}-session-{t.session}",
            position=t.position,
        )
        for t, v in zip(conv.turns, vectors, strict=True)
    ]
    t1 = time.perf_counter()
    for start in range(0, len(rows), 500):
        batch = rows[start : start + 500]
        bench_graph(services.graph).write(partial(write_rows, rows=batch))
    return vectors, {"reused": False, "embed_s": embed_s, "write_s": time.perf_counter() - t1}


def scores(
    ranked: Sequence[Sequence[str]], questions: Sequence[Question]
) -> list[dict[str, float]]:
    """Return per-question hit@k, all@k and reciprocal rank from ranked dialogue ids (best first)."""
    out = []
    for ids, q in zip(ranked, questions, strict=True):
        wanted = set(q.evidence)
        s: dict[str, float] = {}
        for k in KS:
            top = set(ids[:k])
            s[f"r@{k}"] = len(wanted & top) / len(wanted)
            s[f"hit@{k}"] = float(bool(wanted & top))
            s[f"all@{k}"] = float(wanted <= top)
        rank = next((i for i, d in enumerate(ids[:LIMIT], start=1) if d in wanted), None)
        s["rr"] = 1.0 / rank if rank else 0.0
        out.append(s)
    return out


def aggregate(per_q: Sequence[dict[str, float]], questions: Sequence[Question]) -> dict[str, Any]:
    """Average the per-question scores overall and per category."""

    def mean(rows: Sequence[dict[str, float]]) -> dict[str, float]:
        keys = [f"{m}@{k}" for m in ("r", "hit", "all") for k in KS] + ["rr"]
        out = {k: float(np.mean([r[k] for r in rows])) if rows else float("nan") for k in keys}
        out["n"] = len(rows)
        return out

    by_cat: dict[str, dict[str, float]] = {}
    for cat in sorted({q.category for q in questions}):
        by_cat[str(cat)] = mean(
            [s for s, q in zip(per_q, questions, strict=True) if q.category == cat]
        )
    return {"all": mean(per_q), "by_category": by_cat}


def bm25_rank(
    turns: Sequence[Turn],
    questions: Sequence[Question],
    depth: int = LIMIT,
    others: Sequence[str] = (),
) -> list[list[str]]:
    """Rank turns by BM25 for each question (top `depth`).

    `others` are texts of other tenants indexed with the turns (so they weigh in the term
    statistics, as in one global fulltext index) and dropped from the ranking afterwards.
    """
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # it sets DEBUG on import
    docs = [t.content for t in turns] + list(others)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(docs, stopwords="en", show_progress=False), show_progress=False)
    tokens = bm25s.tokenize([q.text for q in questions], stopwords="en", show_progress=False)
    k = min(depth + len(others) if others else depth, len(docs), 2000)
    found, _ = retriever.retrieve(tokens, k=k, show_progress=False)
    return [[turns[int(i)].dia_id for i in row if int(i) < len(turns)][:depth] for row in found]


def dense_rank(
    turns: Sequence[Turn], vectors: np.ndarray, query_vectors: np.ndarray, depth: int = LIMIT
) -> list[list[str]]:
    """Rank turns by exact cosine (vectors are L2-normalised) for each question (top `depth`)."""
    sims = query_vectors @ vectors.T
    top = np.argsort(-sims, axis=1)[:, :depth]
    return [[turns[int(i)].dia_id for i in row] for row in top]


def rrf_rank(*rankings: list[list[str]], k: int = 60) -> list[list[str]]:
    """Fuse per-question rankings with the service's own `rrf` (same k); top `LIMIT` each."""
    out = []
    for lists in zip(*rankings, strict=True):
        fused = rrf(lists, k)
        out.append(sorted(fused, key=lambda d: -fused[d])[:LIMIT])
    return out


def service_rank(
    services: Services, conv: Conversation
) -> tuple[list[list[str]], list[float], RoundLog]:
    """Ask every question through `RetrievalService.recall`; return ranked ids, ms each, rounds."""
    ranked: list[list[str]] = []
    latencies: list[float] = []
    with recall_rounds(quiet=True) as rounds:
        for q in conv.questions:
            t0 = time.perf_counter()
            answer = services.retrieval.recall(
                conv.namespace, RetrievalRequest(query=q.text, limit=LIMIT)
            )
            latencies.append((time.perf_counter() - t0) * 1000.0)
            ranked.append(
                [
                    str((item.get("metadata") or {}).get("dia_id"))
                    for item in (i.as_dict() for i in answer.items)
                ]
            )
    return ranked, latencies, rounds


def evaluate(
    services: Services, limit: int | None, say: Callable[[str], None] = print
) -> dict[str, Any]:
    """Ingest (or reuse) `limit` conversations, ask every question three ways, score them.

    Returns:
        `{conversations[], questions, skipped, methods{name: {all, by_category}},
        recall_latency_ms, rounds, ingest[]}`.
    """
    convs = conversations(limit)
    others = [synthetic(i)[1] for i in range(OTHER_TENANT_TEXTS)]
    per_method: dict[str, list[dict[str, float]]] = {m: [] for m in METHODS}
    all_questions: list[Question] = []
    latencies: list[float] = []
    ingests = []
    rounds_all: list[int] = []
    exact = 0
    for conv in convs:
        vectors, info = ingest(services, conv)
        ingests.append({"conversation": conv.id, "turns": len(conv.turns), **info})
        say(
            f"  LoCoMo {conv.id}: {len(conv.turns)} turns "
            f"({'reused' if info['reused'] else 'ingested'}), {len(conv.questions)} questions"
        )
        ranked, ms, rounds = service_rank(services, conv)
        latencies += ms
        rounds_all += rounds.rounds
        exact += rounds.exact
        with torch_threads(1):
            qv = np.asarray(
                services.embedder.encode([q.text for q in conv.questions]), dtype=np.float32
            )
        bm25 = bm25_rank(conv.turns, conv.questions, RRF_DEPTH)
        dense = dense_rank(conv.turns, vectors, qv, RRF_DEPTH)
        per_method["service recall"] += scores(ranked, conv.questions)
        per_method["BM25"] += scores(bm25, conv.questions)
        per_method["dense cosine"] += scores(dense, conv.questions)
        per_method["RRF(BM25, dense)"] += scores(
            rrf_rank(bm25, dense, k=services.settings.rrf_k), conv.questions
        )
        per_method["BM25, +10k other-tenant texts"] += scores(
            bm25_rank(conv.turns, conv.questions, LIMIT, others), conv.questions
        )
        all_questions += conv.questions
    return {
        "conversations": [c.id for c in convs],
        "turns": sum(len(c.turns) for c in convs),
        "questions": len(all_questions),
        "skipped": sum(c.skipped for c in convs),
        "unknown_evidence_ids": sorted({i for c in convs for i in c.unknown_ids}),
        "methods": {m: aggregate(per_method[m], all_questions) for m in METHODS},
        "recall_latency_ms": summary(latencies),
        "rounds": {
            "mean": float(np.mean(rounds_all)) if rounds_all else None,
            "exact_scans": exact,
            "recalls": len(rounds_all),
        },
        "ingest": ingests,
    }


def evaluate_again(
    services: Services, quality: dict[str, Any], others: int, say: Callable[[str], None] = print
) -> dict[str, Any]:
    """Ask the same questions through recall again, now that other tenants hold `others` memories.

    Adds the method `service recall, +<others> other-tenant memories` to `quality["methods"]`
    and `quality["tenant_independence"]` = `{others, delta{metric: with - without}}` (the
    conversations' namespaces are unchanged; only the database around them grew).

    Returns:
        The updated `quality`.
    """
    convs = [c for c in conversations(None) if c.id in set(quality["conversations"])]
    per_q: list[dict[str, float]] = []
    all_questions: list[Question] = []
    latencies: list[float] = []
    for conv in convs:
        ranked, ms, _ = service_rank(services, conv)
        per_q += scores(ranked, conv.questions)
        latencies += ms
        all_questions += conv.questions
    name = f"service recall, +{others // 1000}k other-tenant memories"
    got = aggregate(per_q, all_questions)
    quality["methods"][name] = got
    base = quality["methods"]["service recall"]["all"]
    quality["tenant_independence"] = {
        "others": others,
        "delta": {k: got["all"][k] - base[k] for k in base if k != "n"},
        "recall_latency_ms": summary(latencies),
    }
    say(
        f"  LoCoMo with {others} other-tenant memories: R@10 {got['all']['r@10']:.3f} "
        f"(without {base['r@10']:.3f})"
    )
    return quality
