"""The process's one Neo4j driver, and the only code that binds neomodel to it."""

from __future__ import annotations

import logging

import neo4j
from neo4j import Driver, GraphDatabase
from neomodel import get_config

from service.errors import GraphUnavailableError
from service.settings import Settings


class LostConnectionRecords(logging.Filter):
    """Demote the driver's "connection found dead" errors to DEBUG (on the `neo4j.io` logger).

    While Neo4j is down or restarting the driver logs an ERROR for each pooled connection it
    finds dead (`Failed to read from defunct connection ...`). The outage is the service's to
    report: the breaker logs one warning as it opens and one as it closes
    (`graph.availability`), and each refused request is an access-log line; these records are
    kept only where `neo4j.io` logs DEBUG.
    """

    PREFIX = "[#%04X]  _: <CONNECTION> error"

    def filter(self, record: logging.LogRecord) -> bool:
        """Return whether to emit `record`, demoted to DEBUG when it is a lost connection."""
        if record.levelno < logging.ERROR or not str(record.msg).startswith(self.PREFIX):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def _quiet_lost_connections() -> None:
    io = logging.getLogger("neo4j.io")
    if not any(isinstance(f, LostConnectionRecords) for f in io.filters):
        io.addFilter(LostConnectionRecords())


def create_driver(settings: Settings) -> Driver:
    """Build the driver and check the server answers (its lost-connection errors demoted).

    Args:
        settings: connection settings (`NEO4J_*`).

    Returns:
        A connected driver; the caller closes it.

    Raises:
        GraphUnavailableError: the server cannot be reached or refuses the credentials.
    """
    _quiet_lost_connections()
    driver = GraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_username, settings.neo4j_password.get_secret_value()),
        max_connection_pool_size=50,
        # Fail fast (DESIGN §13): short connect/acquire timeouts, and no driver-side retry
        # window; `service.graph.availability` retries transient errors for a bounded time.
        connection_timeout=settings.neo4j_connect_timeout_s,
        connection_acquisition_timeout=settings.neo4j_acquisition_timeout_s,
        max_transaction_retry_time=0.0,
        notifications_min_severity="OFF",
    )
    try:
        driver.verify_connectivity()
    except neo4j.exceptions.AuthError as exc:
        driver.close()
        raise GraphUnavailableError(
            f"Neo4j refused the credentials for {settings.neo4j_username!r}"
        ) from exc
    except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired, OSError) as exc:
        driver.close()
        raise GraphUnavailableError(
            f"Neo4j is not reachable at {settings.neo4j_uri}: {exc}"
        ) from exc
    return driver


def bind_neomodel(driver: Driver, settings: Settings) -> None:
    """Point neomodel's global config at the shared driver (never a URL of its own).

    neomodel keeps its connection in ContextVars that a FastAPI lifespan cannot reach from
    request handlers, but every new context falls back to the global config, so the driver is
    set there and `database_url` is cleared (a URL would make neomodel build its own driver).

    Args:
        driver: the process's driver.
        settings: for the database name.
    """
    config = get_config()
    config.database_url = None
    config.driver = driver
    config.database_name = settings.neo4j_database


def unbind_neomodel(driver: Driver) -> None:
    """Clear neomodel's global driver if it is `driver` (called before the driver is closed)."""
    config = get_config()
    if config.driver is driver:
        config.driver = None
