"""The maintenance scheduler: every job on every namespace, periodically, in a daemon thread."""

from __future__ import annotations

import logging
import threading

from service.domain.maintenance.base import JobReport
from service.domain.maintenance.lease import Lease
from service.domain.maintenance.service import MaintenanceService

log = logging.getLogger(__name__)


class MaintenanceScheduler:
    """Runs `MaintenanceService.run_everywhere` every `interval_s` seconds in a daemon thread.

    `settings.maintenance_schedule_s` sets the interval (0 = off); the app's lifespan starts the
    thread and stops it on shutdown through a `threading.Event` (checked between jobs).

    With a `lease`, a round runs only on the replica that acquires it (Neo4j decides); the
    lease is renewed after every job, and a round whose lease was taken over stops. Its TTL is
    the interval, so after a round ends no replica starts the next one for one interval: each
    job runs once per period across all replicas.

    Args:
        service: the jobs.
        interval_s: seconds between the end of one round and the start of the next; 0 = off
            (`start` does nothing).
        lease: the shared lease (TTL = `interval_s`); None runs every round locally.
        namespaces: the namespaces a round covers; empty = every namespace holding memories.
    """

    def __init__(
        self,
        service: MaintenanceService,
        interval_s: float,
        lease: Lease | None = None,
        namespaces: tuple[str, ...] = (),
    ) -> None:
        self.service = service
        self.interval_s = interval_s
        self.lease = lease
        self.namespaces = namespaces
        self.rounds = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """True while the thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the thread (once); do nothing when the interval is 0."""
        if self.interval_s <= 0 or self._thread is not None:
            return
        self._thread = threading.Thread(
            target=self._loop, name="rationale-maintenance", daemon=True
        )
        self._thread.start()
        log.info(
            "maintenance scheduled every %.1f s%s",
            self.interval_s,
            f" under lease {self.lease.name!r} as {self.lease.holder}" if self.lease else "",
        )

    def stop(self, timeout_s: float = 30.0) -> None:
        """Ask the thread to stop (after the job in progress) and wait for it.

        Args:
            timeout_s: how long to wait for the job in progress, in seconds.
        """
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            if self._thread.is_alive():
                log.warning(
                    "maintenance thread still running after %.1f s; it is a daemon", timeout_s
                )

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.tick()

    def tick(self) -> list[JobReport]:
        """Run one round now if this replica gets the lease; any error is logged, never raised.

        Returns:
            The round's reports (empty when it failed or another replica holds the lease).
        """
        try:
            if self.lease is not None:
                state = self.lease.acquire()
                if not state.acquired:
                    log.debug("maintenance round skipped: lease held by %s", state.holder)
                    return []
                log.info(
                    "maintenance round %d by %s (lease %r)",
                    state.rounds,
                    self.lease.holder,
                    self.lease.name,
                )
            reports = self.service.run_everywhere(
                self._stop, namespaces=self.namespaces or None, between=self._still_ours
            )
        except Exception:  # the thread's top level: log and keep the schedule alive
            log.exception("maintenance round failed")
            return []
        self.rounds += 1
        return reports

    def _still_ours(self) -> bool:
        """Renew the lease between jobs; False when another replica has taken it over."""
        if self.lease is None or self.lease.renew():
            return True
        log.warning("maintenance lease %r lost mid-round; stopping the round", self.lease.name)
        return False
