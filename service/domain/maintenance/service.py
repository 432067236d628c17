"""The maintenance service: the registry of jobs, run on one namespace or on all of them."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from service import metrics
from service.domain.maintenance.base import JobReport, MaintenanceConfig, MaintenanceJob
from service.domain.maintenance.contradictions import ContradictionCandidates
from service.domain.maintenance.drift import EvidenceDrift
from service.domain.maintenance.duplicates import DuplicateCandidates
from service.domain.maintenance.outcome_confidence import OutcomeConfidence
from service.domain.memories import MemoryService
from service.domain.policy import VisibilityPolicy
from service.domain.reasoning import ReasoningService
from service.errors import InvalidInputError, RationaleError
from service.graph.query_names import QueryName
from service.graph.repository import Graph
from service.namespaces import is_namespace

log = logging.getLogger(__name__)


#: Every job, in the order a full round runs them.
JOBS: tuple[type[MaintenanceJob], ...] = (
    EvidenceDrift,
    DuplicateCandidates,
    ContradictionCandidates,
    OutcomeConfidence,
)

#: The names `POST /v1/maintenance/run` and `rationale maintenance run` accept.
JOB_NAMES: tuple[str, ...] = tuple(job.name for job in JOBS)


class MaintenanceService:
    """The registry of jobs, run on one namespace or on every namespace holding memories.

    Args:
        graph: the query runner.
        memories: the memory store.
        reasoning: the trace store.
        policy: the visibility policy (which origins the jobs take as input).
        config: thresholds of the jobs.
    """

    def __init__(
        self,
        graph: Graph,
        memories: MemoryService,
        reasoning: ReasoningService,
        policy: VisibilityPolicy,
        config: MaintenanceConfig,
    ) -> None:
        self.graph = graph
        self.jobs: dict[str, MaintenanceJob] = {
            job.name: job(graph, memories, reasoning, policy, config) for job in JOBS
        }

    def names(self) -> list[str]:
        """Return the known job names, in run order."""
        return list(self.jobs)

    def run(self, job: str, namespace: str) -> JobReport:
        """Run one job on one namespace.

        Args:
            job: a name from `names()`.
            namespace: the tenant (`[A-Za-z0-9_-]{1,64}`).

        Returns:
            The job's report.

        Raises:
            InvalidInputError: unknown job (the message and `known_jobs` name the known ones) or
                a malformed namespace.
            GraphUnavailableError: Neo4j is unreachable.
        """
        if job not in self.jobs:
            raise InvalidInputError(
                f"unknown maintenance job {job!r}; known jobs: {', '.join(self.jobs)}",
                extra={"known_jobs": list(self.jobs)},
            )
        if not is_namespace(namespace):
            raise InvalidInputError(f"namespace {namespace!r} must match [A-Za-z0-9_-]{{1,64}}")
        try:
            report = self.jobs[job].run(namespace)
        except RationaleError:
            metrics.maintenance_ran(job, 0, ok=False)
            raise
        metrics.maintenance_ran(job, report.changed)
        log.info(
            "maintenance %s on %s: examined %d, changed %d",
            job,
            namespace,
            report.examined,
            report.changed,
        )
        return report

    def namespaces(self) -> list[str]:
        """Return every namespace that holds at least one memory, sorted."""
        return [r["namespace"] for r in self.graph.run(QueryName.MAINTENANCE_LIST_NAMESPACES, {})]

    def run_everywhere(
        self,
        stop: threading.Event | None = None,
        namespaces: Sequence[str] | None = None,
        between: Callable[[], bool] | None = None,
    ) -> list[JobReport]:
        """Run every job on every namespace holding memories; a failing job is logged and skipped.

        Args:
            stop: when set, no further job starts (the scheduler's shutdown signal).
            namespaces: the namespaces to cover; None = every namespace holding memories.
            between: called after each job; when it returns False no further job starts
                (the scheduler renews its lease here).

        Returns:
            The reports of the jobs that ran.
        """
        reports: list[JobReport] = []
        for namespace in self.namespaces() if namespaces is None else namespaces:
            for job in self.jobs:
                if stop is not None and stop.is_set():
                    return reports
                try:
                    reports.append(self.run(job, namespace))
                except RationaleError as exc:
                    log.error(
                        "maintenance %s on %s failed: %s (%s)",
                        job,
                        namespace,
                        exc.message,
                        exc.code,
                    )
                if between is not None and not between():
                    return reports
        return reports
