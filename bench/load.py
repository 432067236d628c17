"""Closed-loop HTTP load from the benchmark process: N requests at concurrency c (threads, httpx).

Each of the c workers owns one keep-alive `httpx.Client` and takes the next request from a shared
queue as soon as its previous one answered (closed loop: c requests in flight, no think time).
Latency is measured per request around the whole call (connect reuse, send, server, read the
body); throughput is requests answered / wall-clock seconds of the whole batch. A response whose
status is not the expected one counts as an error and its latency is not kept.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx

#: One request: builds and sends it on the given client, returns the response.
Request = Callable[[httpx.Client], httpx.Response]


@dataclass
class LoadResult:
    """What one batch measured."""

    latencies_ms: list[float]
    wall_s: float
    concurrency: int
    errors: int = 0
    error_sample: list[str] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        """Successful requests per second over the whole batch."""
        return len(self.latencies_ms) / self.wall_s if self.wall_s > 0 else 0.0


def run_load(
    base_url: str,
    headers: dict[str, str],
    requests: Sequence[Request],
    concurrency: int,
    *,
    expect: tuple[int, ...] = (200, 201),
    warmup: Sequence[Request] = (),
    keep: Callable[[httpx.Response], Any] | None = None,
    timeout_s: float = 120.0,
) -> LoadResult:
    """Send `requests` with `concurrency` workers; return latencies, wall time and errors.

    Args:
        base_url: the service's URL.
        headers: sent with every request (the bench key).
        requests: the timed requests, taken in order by whichever worker is free.
        concurrency: workers (requests in flight).
        expect: statuses that count as success.
        warmup: untimed requests sent first, one per worker round (connections and caches).
        keep: extracts what to keep from each successful response (e.g. an id), in order of
            completion.
        timeout_s: per-request timeout.

    Returns:
        The batch's `LoadResult`.
    """
    lock = threading.Lock()
    cursor = iter(range(len(requests)))
    result = LoadResult([], 0.0, concurrency)

    def worker(w: int) -> None:
        with httpx.Client(base_url=base_url, headers=headers, timeout=timeout_s) as client:
            for i, req in enumerate(warmup):
                if i % concurrency == w:
                    req(client)
            barrier.wait(timeout=600)
            while True:
                with lock:
                    nxt = next(cursor, None)
                if nxt is None:
                    return
                t0 = time.perf_counter()
                try:
                    response = requests[nxt](client)
                    ok = response.status_code in expect
                    detail = f"{response.status_code} {response.text[:300]}"
                except httpx.HTTPError as exc:
                    response, ok, detail = None, False, f"{type(exc).__name__}: {exc}"
                ms = (time.perf_counter() - t0) * 1000.0
                with lock:
                    if ok and response is not None:
                        result.latencies_ms.append(ms)
                        if keep is not None:
                            result.responses.append(keep(response))
                    else:
                        result.errors += 1
                        if len(result.error_sample) < 3:
                            result.error_sample.append(detail)

    barrier = threading.Barrier(concurrency + 1)
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        futures = [pool.submit(worker, w) for w in range(concurrency)]
        barrier.wait(timeout=600)
        started = time.perf_counter()
        for f in futures:
            f.result()
        result.wall_s = time.perf_counter() - started
    return result
