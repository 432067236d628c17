"""LoCoMo data and scoring: conversations, evidence turns, R@k / hit@k / MRR, and the baselines.

Data: `../shared/corpus/benchmarks/locomo/conversations/*.json` (Maharana et al., ACL 2024;
CC BY-NC 4.0, internal evaluation only), the shared half: 5 conversations, 997 questions with
turn-level evidence. It is read from there and never copied into the repository; set
`RATIONALE_LOCOMO_DIR` to read it from elsewhere. How the turns go through the service and are
asked back is `bench.locomo_service`; this module knows the data and the arithmetic.

A turn is `"<speaker>: <text>"` (plus ` [image: <blip_caption>]` when it shared a photo); its
session is its episode, its 0-based index in the session its position, the turn before it in the
session its context. Every question with evidence ids (`qa[].evidence`, e.g. `["D1:3"]`;
malformed ids such as `"D8:6; D9:17"` or `"D:11:26"` are read as the ids they name) is scored;
questions none of whose evidence ids exists in the conversation are skipped and counted.

A ranking is a list of items, best first, each a tuple of the turns it stands for (one turn; a
service item that collapsed near-duplicates stands for those too). R@k = share of a question's
evidence turns in the top k items, hit@k = any of them, all@k = every one; MRR = mean of 1/rank
of the first item holding an evidence turn within the top `LIMIT` (0 when none).

Baselines over the same turns and questions, in the same run: BM25 (`bm25s`: Lucene's idf,
k1 = 1.2, b = 0.75, its English stop words, no stemming) on the turn text; BM25 with the
recipe of `../shared/research/retrieval.md` (Porter stemming, question words dropped from the
query, each turn indexed with its context); dense-only exact cosine with the service's model
on the vectors the service stored; and BM25 + dense by reciprocal-rank fusion (k = 60, top
`RRF_DEPTH` of each, the service's own `rrf`).

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import REPO
from service.domain.retrieval import rrf
from service.domain.text.lexicon import QUERY_STOPWORDS

DEFAULT_DIR = REPO.parent / "shared" / "corpus" / "benchmarks" / "locomo" / "conversations"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (1, 5, 10)
LIMIT = 10
#: Candidates per list fused by the RRF baseline (the service's candidate depth).
RRF_DEPTH = 100
#: A ranking: per question, the items best first, each the dialogue ids it stands for.
Ranking = list[list[tuple[str, ...]]]


@dataclass
class Turn:
    """One turn of a conversation: its dialogue id, session, place in the session, text."""

    dia_id: str
    session: int
    position: int
    content: str
    valid_from: datetime
    context: str | None = None


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

    def episode(self, turn: Turn) -> str:
        """The episode a turn belongs to: its session (`locomo-<id>-session-<n>`)."""
        return f"locomo-{self.id}-session-{turn.session}"


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
    """Read one conversation file into turns (with position and context) and scorable questions."""
    data = json.loads(path.read_text())
    turns: list[Turn] = []
    for key, value in data.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if not m or not isinstance(value, list):
            continue
        n = int(m.group(1))
        when = session_time(data[f"session_{n}_date_time"])
        previous: str | None = None
        for position, t in enumerate(value):
            content = f"{t['speaker']}: {t['text']}"
            if t.get("blip_caption"):
                content += f" [image: {t['blip_caption']}]"
            turns.append(Turn(t["dia_id"], n, position, content, when, previous))
            previous = content
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


def singles(ids: Sequence[Sequence[str]]) -> Ranking:
    """Return per-question lists of single turns as a `Ranking` (what the baselines rank)."""
    return [[(d,) for d in row] for row in ids]


def scores(ranked: Ranking, questions: Sequence[Question]) -> list[dict[str, float]]:
    """Return per-question r@k, hit@k, all@k and reciprocal rank (`rr`) of a ranking."""
    out = []
    for items, q in zip(ranked, questions, strict=True):
        wanted = set(q.evidence)
        s: dict[str, float] = {}
        for k in KS:
            top = {d for item in items[:k] for d in item}
            s[f"r@{k}"] = len(wanted & top) / len(wanted)
            s[f"hit@{k}"] = float(bool(wanted & top))
            s[f"all@{k}"] = float(wanted <= top)
        rank = next(
            (i for i, item in enumerate(items[:LIMIT], start=1) if wanted & set(item)), None
        )
        s["rr"] = 1.0 / rank if rank else 0.0
        out.append(s)
    return out


def aggregate(per_q: Sequence[dict[str, float]], questions: Sequence[Question]) -> dict[str, Any]:
    """Average the per-question scores overall and per category: `{all, by_category}`."""

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


def _porter() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("porter")


def bm25_rank(
    turns: Sequence[Turn], questions: Sequence[Question], depth: int, *, recipe: bool = False
) -> list[list[str]]:
    """Rank turns by BM25 (`bm25s`) for each question; return the top `depth` dialogue ids.

    Args:
        turns: the conversation's turns (the documents).
        questions: the queries.
        depth: how many turns per question.
        recipe: False = the turn text as it is, no stemming (plain BM25). True = the recipe of
            `../shared/research/retrieval.md`: each turn indexed with its context (the previous
            turn of its session), Porter stemming, question words (`QUERY_STOPWORDS`) dropped
            from the query.
    """
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # it sets DEBUG on import
    stemmer = _porter() if recipe else None
    docs = [f"{t.context}\n{t.content}" if recipe and t.context else t.content for t in turns]
    asked = [q.text for q in questions]
    if recipe:
        asked = [
            " ".join(w for w in a.split() if w.strip("\"'`.,;:!?()").lower() not in QUERY_STOPWORDS)
            or a
            for a in asked
        ]
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(docs, stopwords="en", stemmer=stemmer, show_progress=False),
        show_progress=False,
    )
    tokens = bm25s.tokenize(asked, stopwords="en", stemmer=stemmer, show_progress=False)
    found, score = retriever.retrieve(tokens, k=min(depth, len(docs)), show_progress=False)
    return [
        [turns[int(i)].dia_id for i, s in zip(row, srow, strict=True) if s > 0]
        for row, srow in zip(found, score, strict=True)
    ]


def dense_rank(
    turns: Sequence[Turn], vectors: np.ndarray, query_vectors: np.ndarray, depth: int
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
        out.append(sorted(fused, key=lambda d: (-fused[d], d))[:LIMIT])
    return out


def baselines(
    conv: Conversation, vectors: np.ndarray, query_vectors: np.ndarray, rrf_k: int
) -> dict[str, Ranking]:
    """Rank one conversation's questions by every baseline: `{method name: ranking}`.

    Args:
        conv: the conversation.
        vectors: the stored embedding of each turn (`conv.turns` order), L2-normalised.
        query_vectors: each question's embedding with the same model, L2-normalised.
        rrf_k: the RRF constant of the fused baseline.
    """
    bm25 = bm25_rank(conv.turns, conv.questions, RRF_DEPTH)
    dense = dense_rank(conv.turns, vectors, query_vectors, RRF_DEPTH)
    return {
        "BM25 (bm25s, turn text)": singles(bm25),
        "BM25, stemmed + context + question words dropped": singles(
            bm25_rank(conv.turns, conv.questions, LIMIT, recipe=True)
        ),
        "dense cosine (same model, exact)": singles(dense),
        f"RRF k={rrf_k} (BM25, dense), exact lists": singles(rrf_rank(bm25, dense, k=rrf_k)),
    }
