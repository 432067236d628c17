"""The maintenance scheduler: every job on every namespace, periodically, in a daemon thread."""

from __future__ import annotations

import logging
import threading

from service.domain.maintenance.base import JobReport
from service.domain.maintenance.service import MaintenanceService

log = logging.getLogger(__name__)


class MaintenanceScheduler:
    """Runs `MaintenanceService.run_everywhere` every `interval_s` seconds in a daemon thread.

    `settings.maintenance_schedule_s` sets the interval (0 = off); the app's lifespan starts the
    thread and stops it on shutdown through a `threading.Event` (checked between jobs).

    Args:
        service: the jobs.
        interval_s: seconds between the end of one round and the start of the next; 0 = off
            (`start` does nothing).
    """

    def __init__(self, service: MaintenanceService, interval_s: float) -> None:
        self.service = service
        self.interval_s = interval_s
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
        log.info("maintenance scheduled every %.1f s", self.interval_s)

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
        """Run one round now; any error is logged, never kills the thread.

        Returns:
            The round's reports (empty when it failed).
        """
        try:
            reports = self.service.run_everywhere(self._stop)
        except Exception:  # the thread's top level: log and keep the schedule alive
            log.exception("maintenance round failed")
            return []
        self.rounds += 1
        return reports
