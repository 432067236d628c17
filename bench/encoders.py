"""The floors' query encoders: ONNX Runtime and PyTorch, each with 1 and with 2 intra-op threads.

A floor claims "the best this machine can do" for one query encode, so it is the fastest of four
ways to run the same model, measured in the same rounds as what it is compared with:

- `encode_onnx_1t`, `encode_onnx_2t`: ONNX Runtime (the service's default backend) with a
  session of 1 and of 2 intra-op threads (two embedders; they share the cached ONNX export);
- `encode_torch_1t`, `encode_torch_2t`: sentence-transformers' PyTorch forward with
  `torch.set_num_threads(1)` and `(2)` around the call (one embedder; the count is restored).

The embedders are built once per process (`floor_encoders`) and serialise their calls with a
lock (no micro-batching: one caller). Building one sets torch's process-wide thread count
(`SentenceTransformerEmbedder(threads=N)` does), so the count is restored after each build.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from bench.common import torch_threads
from service.embeddings import SentenceTransformerEmbedder

#: Probe name -> column label, in table order.
ENCODERS = {
    "encode_onnx_1t": "encode onnx 1t",
    "encode_onnx_2t": "encode onnx 2t",
    "encode_torch_1t": "encode torch 1t",
    "encode_torch_2t": "encode torch 2t",
}


@dataclass(frozen=True)
class FloorEncoders:
    """The embedders behind the encode probes of a floor.

    Attributes:
        onnx: ONNX Runtime embedders by intra-op thread count (empty when ONNX Runtime is not
            available: then only the torch probes run).
        torch: the PyTorch embedder (its thread count is set around each call).
    """

    onnx: Mapping[int, SentenceTransformerEmbedder]
    torch: SentenceTransformerEmbedder

    def probes(self, text_at: Callable[[int], str]) -> dict[str, Callable[[int], object]]:
        """Return the encode probes (`ENCODERS` names), each encoding one query.

        Args:
            text_at: round index -> the query text of that round (negative: a warm-up).

        Returns:
            `{probe name: call(round index)}` for `Interleaved.run`.
        """

        def onnx(n: int) -> Callable[[int], object]:
            embedder = self.onnx[n]
            return lambda i: embedder.encode([text_at(i)])

        def torch(n: int) -> Callable[[int], object]:
            def call(i: int) -> object:
                with torch_threads(n):
                    return self.torch.encode([text_at(i)])

            return call

        out: dict[str, Callable[[int], object]] = {
            f"encode_onnx_{n}t": onnx(n) for n in sorted(self.onnx)
        }
        out |= {f"encode_torch_{n}t": torch(n) for n in (1, 2)}
        return out


def build_embedder(
    model: str,
    threads: int | None,
    backend: Literal["onnx", "torch"],
    *,
    concurrency: Literal["batched", "serialised", "parallel"] = "serialised",
    cache_dir: Path | None = None,
) -> SentenceTransformerEmbedder:
    """Build an embedder without changing this process's torch thread count.

    Args:
        model: the model folder or package.
        threads: intra-op threads of the backend (None: its default); for "torch" give None
            and set the count around each call (`bench.common.torch_threads`).
        backend: "onnx" or "torch" (see `SentenceTransformerEmbedder`; check `.backend`).
        concurrency: how concurrent calls are guarded.
        cache_dir: where the ONNX export is kept (None: the default cache).

    Returns:
        The embedder.

    Raises:
        EmbeddingError: the model cannot be loaded.
    """
    import torch

    with torch_threads(torch.get_num_threads()):  # the constructor sets the process's count
        return SentenceTransformerEmbedder(
            model, threads, concurrency=concurrency, backend=backend, cache_dir=cache_dir
        )


@cache
def floor_encoders(model: str, cache_dir: Path | None = None) -> FloorEncoders:
    """Build (once per process) the embedders of the four encode probes.

    Args:
        model: the model folder or package (`settings.embedding_model`).
        cache_dir: where the ONNX export is kept (`settings.embedding_cache_dir`).

    Returns:
        The embedders; `onnx` is empty when ONNX Runtime fell back to PyTorch.

    Raises:
        EmbeddingError: the model cannot be loaded.
    """
    onnx = {n: build_embedder(model, n, "onnx", cache_dir=cache_dir) for n in (1, 2)}
    return FloorEncoders(
        onnx={n: e for n, e in onnx.items() if e.backend == "onnx"},
        torch=build_embedder(model, None, "torch", cache_dir=cache_dir),
    )


def best_encode(samples: Mapping[str, Mapping[str, float]], p: str) -> tuple[str, float]:
    """Return the fastest encode probe at percentile `p` and its time (ms).

    Args:
        samples: `{probe: summary}` holding some of the `ENCODERS` probes.
        p: a summary key, e.g. "p50" or "p95".

    Returns:
        `(probe name, ms)`.
    """
    name = min((n for n in ENCODERS if n in samples), key=lambda n: samples[n][p])
    return name, samples[name][p]
