"""Fail fast while Neo4j is unreachable: a circuit breaker with a background probe, bounded retries.

The breaker is *closed* while Neo4j answers. A connectivity failure (refused or timed-out
connection, a dropped session, the database stopping) *opens* it: from then on every request
fails at once with `GraphUnavailableError` (HTTP 503 with `Retry-After`) instead of waiting out
the driver's retry window, and one daemon thread probes the server (`RETURN 1`) every
`probe_interval_s` until it answers, then closes the breaker. Recovery needs no restart.

Transient server errors (deadlocks, lock timeouts) are retried with exponential backoff for at
most `retry_time_s`; the driver's own retry loop is turned off (`max_transaction_retry_time=0`
in `service.graph.driver`) so this module decides what is retried and for how long.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Generic, TypeVar

import neo4j

from service.errors import GraphUnavailableError

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The one message clients see while the graph is down; it names no host, port or driver text.
UNAVAILABLE = "the graph database is unavailable; retry later"

#: Neo4j codes of transient errors that mean "the database is not serving", not "retry me".
_DOWN_CODES = ("Neo.TransientError.General.DatabaseUnavailable",)

_FIRST_BACKOFF_S = 0.05


def is_connectivity_error(exc: BaseException) -> bool:
    """Return True when `exc` means the server (or its database) cannot be reached right now."""
    if isinstance(exc, neo4j.exceptions.ServiceUnavailable | neo4j.exceptions.SessionExpired):
        return True
    if isinstance(exc, neo4j.exceptions.Neo4jError):
        return (exc.code or "") in _DOWN_CODES
    return isinstance(exc, ConnectionError)


class Availability:
    """The circuit breaker in front of every graph call.

    Args:
        probe: returns normally when the server answers, raises otherwise; must be bounded in
            time by itself (short driver timeouts). Called only from the probe thread.
        probe_interval_s: pause between two probes while the breaker is open, in seconds.
        retry_time_s: how long transient errors are retried within one call, in seconds.
    """

    def __init__(
        self,
        probe: Callable[[], object],
        *,
        probe_interval_s: float = 0.5,
        retry_time_s: float = 5.0,
    ) -> None:
        self._probe = probe
        self.probe_interval_s = probe_interval_s
        self.retry_time_s = retry_time_s
        self._lock = threading.Lock()
        self._open = False
        self._since = 0.0
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    @property
    def available(self) -> bool:
        """True while the breaker is closed (the last contact with Neo4j succeeded)."""
        return not self._open

    def state(self) -> dict[str, object]:
        """Return `{"state": "closed"|"open", "open_for_s": float}` for health endpoints."""
        with self._lock:
            if not self._open:
                return {"state": "closed", "open_for_s": 0.0}
            return {"state": "open", "open_for_s": round(time.monotonic() - self._since, 3)}

    def check(self) -> None:
        """Fail at once while the breaker is open.

        Raises:
            GraphUnavailableError: the breaker is open.
        """
        if self._open:
            raise GraphUnavailableError(UNAVAILABLE)

    def trip(self, cause: BaseException | None = None) -> None:
        """Open the breaker (if closed) and start the background probe."""
        with self._lock:
            if self._stopped.is_set():
                return
            if not self._open:
                self._open = True
                self._since = time.monotonic()
                log.warning("graph unavailable, failing fast until it answers: %s", cause)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._probe_loop, name="graph-probe", daemon=True
                )
                self._thread.start()

    def _probe_loop(self) -> None:
        while not self._stopped.wait(self.probe_interval_s):
            try:
                self._probe()
            except Exception as exc:  # any failure means "still down"; keep probing
                log.debug("graph probe failed: %s", exc)
                continue
            with self._lock:
                down_s = time.monotonic() - self._since
                self._open = False
                self._thread = None
            log.warning("graph available again after %.1f s", down_s)
            return

    def call(self, attempt: Callable[[], T]) -> T:
        """Run one unit of graph work with fail-fast and bounded retries.

        A connectivity failure is retried once at once (a pooled connection may be stale after
        a server restart); a second one opens the breaker. Transient errors are retried with
        jittered exponential backoff until `retry_time_s` has passed.

        Args:
            attempt: one try of the work (a whole transaction; it is re-run on retry).

        Returns:
            What `attempt` returns.

        Raises:
            GraphUnavailableError: the breaker is open, the server is unreachable, or transient
                errors outlasted `retry_time_s`.
        """
        deadline = time.monotonic() + self.retry_time_s
        backoff = _FIRST_BACKOFF_S
        connectivity_failures = 0
        while True:
            self.check()
            started = time.monotonic()
            try:
                return attempt()
            except Exception as exc:
                log.debug(
                    "graph attempt failed after %.3f s: %s %s",
                    time.monotonic() - started,
                    type(exc).__name__,
                    getattr(exc, "code", ""),
                )
                if is_connectivity_error(exc):
                    connectivity_failures += 1
                    # A quick failure may be one stale connection: try a fresh one once. A slow
                    # one (a timeout) is not repeated, so the caller's answer stays fast.
                    quick = time.monotonic() - started < 0.25
                    if connectivity_failures == 1 and quick:
                        continue
                    self.trip(exc)
                    raise GraphUnavailableError(UNAVAILABLE) from exc
                if isinstance(exc, neo4j.exceptions.Neo4jError) and exc.is_retryable():
                    if time.monotonic() + backoff > deadline:
                        raise GraphUnavailableError(
                            f"the graph database is busy ({exc.code}); retry later"
                        ) from exc
                    time.sleep(backoff * random.uniform(0.8, 1.2))
                    backoff *= 2
                    continue
                raise

    def close(self) -> None:
        """Stop the probe thread (at shutdown); the breaker stays as it was."""
        self._stopped.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=self.probe_interval_s + 2.0)


class Bounded(Generic[T]):
    """Run a check in a daemon thread and wait for it at most `budget_s` (for `/readyz`).

    If the previous check is still running (a hung socket, a slow server), the new caller waits
    on that one instead of piling up threads, and a check that finished less than `max_age_s`
    ago is answered from its result (so a check that overran one caller's budget still serves
    the next); a hung check never blocks the process from exiting.

    Args:
        budget_s: the longest a caller waits, in seconds.
        max_age_s: how long a finished check's result is reused, in seconds.
    """

    def __init__(self, budget_s: float, max_age_s: float = 1.0) -> None:
        self.budget_s = budget_s
        self.max_age_s = max_age_s
        self._lock = threading.Lock()
        self._running: Future[T] | None = None
        self._finished_at = 0.0

    def run(self, check: Callable[[], T]) -> T | None:
        """Return `check()`'s result (or raise its error), or None when it overran the budget."""
        with self._lock:
            fresh = time.monotonic() - self._finished_at < self.max_age_s
            if self._running is None or (self._running.done() and not fresh):
                future: Future[T] = Future()
                self._running = future

                def work() -> None:
                    try:
                        result = check()
                    except BaseException as exc:
                        self._finished_at = time.monotonic()
                        future.set_exception(exc)
                    else:
                        self._finished_at = time.monotonic()
                        future.set_result(result)

                threading.Thread(target=work, name="graph-ready", daemon=True).start()
            running = self._running
        try:
            return running.result(timeout=self.budget_s)
        except FutureTimeout:
            return None
