"""One corpus size of the scale benchmark: its profile, shared state, probes and load phase."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from neo4j import RoutingControl

from bench.common import summary
from bench.corpus import ensure_corpus, questions, stored
from bench.service_process import ServiceProcess
from service.container import Services

LOAD_ACTOR = "bench-load"
LIMIT = 10


@dataclass(frozen=True)
class ScaleProfile:
    """How many requests each measurement sends (`--quick` and `--full` differ only here).

    Pairs are (rounds at concurrency 1, requests at concurrency `concurrency`).
    """

    reads: tuple[int, int]
    writes: tuple[int, int]
    traces: tuple[int, int]
    lineage: tuple[int, int]
    bulk: int
    concurrency: int = 8


QUICK_SCALE = ScaleProfile(
    reads=(20, 60), writes=(15, 40), traces=(3, 6), lineage=(20, 40), bulk=256
)
FULL_SCALE = ScaleProfile(
    reads=(150, 300), writes=(100, 200), traces=(12, 24), lineage=(100, 200), bulk=2048
)


class PrecomputedEmbedder:
    """An embedder that returns vectors computed beforehand (isolates Neo4j + Python in recall)."""

    def __init__(self, vectors: dict[str, list[float]], dimension: int) -> None:
        self.vectors = vectors
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        """The vectors' length."""
        return self._dimension

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """Return the stored vector of each text."""
        return [self.vectors[t] for t in texts]


#: Seconds between two timed probes (`Interleaved.run`): the intra-op threads of a 2-thread
#: encode (ONNX Runtime's and PyTorch's OpenMP pool) spin on after it returns, so the probe right
#: after it ran on a machine one core short (in the service process too, for POST /v1/recall).
SETTLE_S = 0.02


class Interleaved:
    """Interleaved probes: round i calls every probe once with i, so all share the machine's load.

    The machine is shared and its load moves by the minute; measuring a request and its floor in
    separate blocks would compare different moments. Interleaving keeps the ratios honest.
    Each round calls the probes in its own order (shuffled, seeded by the round): in one fixed
    order each probe would always follow the same one, and what a probe leaves behind (a
    two-thread encode's spinning threads, a cold cache) would always land on the same neighbour
    (the floor's `SEARCH`, after the two-thread PyTorch encode, measured 9.4 ms p50 against
    4.9 ms on its own).
    """

    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = {}

    def run(
        self,
        rounds: int,
        probes: dict[str, Callable[[int], object]],
        warmup: int = 2,
        settle_s: float = SETTLE_S,
    ) -> None:
        """Call each probe `warmup` times untimed (inputs -1, -2, ...), then `rounds` rounds.

        Each timed call starts `settle_s` seconds after the previous one ended, untimed.
        """
        for w in range(warmup):
            for probe in probes.values():
                probe(-1 - w)
        for i in range(rounds):
            order = list(probes.items())
            random.Random(i).shuffle(order)
            for name, probe in order:
                if settle_s:
                    time.sleep(settle_s)
                t0 = time.perf_counter()
                probe(i)
                self.samples.setdefault(name, []).append((time.perf_counter() - t0) * 1000.0)

    def p50(self, name: str) -> float:
        """The median of a probe's samples, in ms."""
        return summary(self.samples[name])["p50"]


def corpus_ids(services: Services, namespace: str, n: int = 500) -> list[str]:
    """Return up to n memory_ids of current corpus memories (evidence the traces cite)."""
    records, _, _ = services.graph.driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) WHERE m.system_to IS NULL AND m.created_by_actor = 'bench' "
        "RETURN m.memory_id AS id LIMIT $n",
        {"ns": namespace, "n": n},
        routing_=RoutingControl.READ,
        database_=services.settings.neo4j_database,
    )
    return [r["id"] for r in records]


def global_memories(services: Services) -> int:
    """Return how many `:Memory` nodes the database holds (all namespaces: the vector index is global)."""
    records, _, _ = services.graph.driver.execute_query(
        "MATCH (m:Memory) RETURN count(m) AS n",
        routing_=RoutingControl.READ,
        database_=services.settings.neo4j_database,
    )
    return int(records[0]["n"])


@dataclass(frozen=True)
class Corpus:
    """The load phase's outcome: `build {written, seconds, per_s}`, memories stored, in the database."""

    build: dict[str, Any]
    stored: int
    global_memories: int


def load_corpus(
    services: Services, namespace: str, size: int, batch: int, say: Callable[[str], None]
) -> Corpus:
    """Build or reuse the namespace's corpus of `size` memories (`ensure_corpus`) and count it.

    Args:
        services: the in-process services.
        namespace: `bench_<size>`.
        size: memories wanted.
        batch: memories embedded and written per batch.
        say: progress printer.

    Returns:
        The build figures and the counts.
    """
    written, build_s = ensure_corpus(services.graph, services.embedder, namespace, size, batch)
    build = {
        "written": written,
        "seconds": build_s,
        "per_s": written / build_s if written else None,
    }
    stored_n = stored(services.graph, namespace)
    global_n = global_memories(services)
    say(
        f"{namespace}: {stored_n} memories ({'built ' + str(written) if written else 'reused'}); "
        f"{global_n} memories in the database (the vector index is global)"
    )
    return Corpus(build, stored_n, global_n)


@dataclass
class SizeRun:
    """What every measurement phase of one size shares: services, queries, vectors, the client.

    Attributes:
        c1_qs: queries of the concurrency-1 rounds; `c8_qs` those of the batches; `warm_qs`
            the warm-up ones.
        vectors: query text -> its embedding (precomputed once).
        k: recall's vector depth (`retrieval_vector_depth`), the floor's `SEARCH` limit.
        threads: the process's torch thread count.
    """

    size: int
    namespace: str
    services: Services
    svc: ServiceProcess
    profile: ScaleProfile
    nonce: str
    threads: int
    k: int
    cites: list[str]
    vectors: dict[str, list[float]]
    c1_qs: list[str]
    c8_qs: list[str]
    warm_qs: list[str]
    headers: dict[str, str]
    client: httpx.Client

    @property
    def url(self) -> str:
        """The service process's base URL."""
        return self.svc.base_url

    def q_at(self, i: int) -> str:
        """Return the query of round i (negative i: a warm-up query)."""
        return self.c1_qs[i] if i >= 0 else self.warm_qs[-i]

    def bolt(self, _: int) -> object:
        """Run the Bolt floor: one `RETURN 1`."""
        return self.services.graph.driver.execute_query(
            "RETURN 1",
            routing_=RoutingControl.READ,
            database_=self.services.settings.neo4j_database,
        )


def start_run(
    size: int, services: Services, svc: ServiceProcess, key: str, profile: ScaleProfile
) -> SizeRun:
    """Pick the size's queries, embed them once, open the HTTP client (the warm-up inputs too).

    Args:
        size: the corpus size (seeds the queries).
        services: the in-process services.
        svc: the service process the HTTP requests go to.
        key: its API key.
        profile: how many requests each measurement sends.

    Returns:
        The shared state; close `client` when the concurrency-1 phases are done.
    """
    import torch

    namespace = f"bench_{size}"
    cites = corpus_ids(services, namespace)
    k = services.settings.retrieval_vector_depth
    n1, n8 = profile.reads
    texts = questions(n1 + n8 + 4 * profile.concurrency + 8, seed=size)
    vectors = dict(zip(texts, services.embedder.encode(texts), strict=True))
    headers = {"Authorization": f"Bearer {key}"}
    return SizeRun(
        size=size,
        namespace=namespace,
        services=services,
        svc=svc,
        profile=profile,
        nonce=uuid.uuid4().hex[:8],
        threads=torch.get_num_threads(),
        k=k,
        cites=cites,
        vectors=vectors,
        c1_qs=texts[:n1],
        c8_qs=texts[n1 : n1 + n8],
        warm_qs=texts[n1 + n8 :],
        headers=headers,
        client=httpx.Client(base_url=svc.base_url, headers=headers, timeout=120.0),
    )
