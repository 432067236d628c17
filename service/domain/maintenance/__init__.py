"""Maintenance: background jobs that adjust and propose, never taking over authorship."""

from service.domain.maintenance.base import JobReport, MaintenanceConfig, MaintenanceJob
from service.domain.maintenance.lease import Lease, LeaseState
from service.domain.maintenance.scheduler import MaintenanceScheduler
from service.domain.maintenance.service import JOB_NAMES, JOBS, MaintenanceService

__all__ = [
    "JOBS",
    "JOB_NAMES",
    "JobReport",
    "Lease",
    "LeaseState",
    "MaintenanceConfig",
    "MaintenanceJob",
    "MaintenanceScheduler",
    "MaintenanceService",
]
