"""The fail-fast breaker's own rules, on real threads and a probe that fails until told not to."""

from __future__ import annotations

import threading
import time

import neo4j
import pytest

from service.errors import GraphUnavailableError
from service.graph.availability import UNAVAILABLE, Availability, Bounded


class Server:
    """Stands in for reachability only: `up` decides whether the probe raises."""

    def __init__(self) -> None:
        self.up = False
        self.probes = 0

    def probe(self) -> None:
        self.probes += 1
        if not self.up:
            raise neo4j.exceptions.ServiceUnavailable("down")


def wait_for(condition: object, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_connectivity_failure_opens_then_probe_closes() -> None:
    server = Server()
    breaker = Availability(server.probe, probe_interval_s=0.02, retry_time_s=1.0)
    attempts = 0

    def down() -> None:
        nonlocal attempts
        attempts += 1
        raise neo4j.exceptions.ServiceUnavailable("Couldn't connect to 10.0.0.7:7687")

    with pytest.raises(GraphUnavailableError) as caught:
        breaker.call(down)
    assert caught.value.message == UNAVAILABLE
    assert "10.0.0.7" not in str(caught.value)
    assert attempts == 2  # one fresh connection, then open
    assert not breaker.available
    with pytest.raises(GraphUnavailableError):
        breaker.call(lambda: "never run")
    assert attempts == 2
    assert wait_for(lambda: server.probes >= 3)
    assert not breaker.available
    server.up = True
    assert wait_for(lambda: breaker.available)
    assert breaker.call(lambda: "ok") == "ok"
    breaker.close()


def test_transient_errors_are_retried_then_bounded() -> None:
    breaker = Availability(lambda: None, probe_interval_s=0.02, retry_time_s=0.3)
    tries = 0

    def deadlock_twice() -> str:
        nonlocal tries
        tries += 1
        if tries <= 2:
            raise neo4j.exceptions.TransientError._hydrate_neo4j(
                code="Neo.TransientError.Transaction.DeadlockDetected", message="deadlock"
            )
        return "committed"

    assert breaker.call(deadlock_twice) == "committed"
    assert tries == 3 and breaker.available

    def always_deadlocked() -> None:
        raise neo4j.exceptions.TransientError._hydrate_neo4j(
            code="Neo.TransientError.Transaction.DeadlockDetected", message="deadlock"
        )

    started = time.monotonic()
    with pytest.raises(GraphUnavailableError, match="busy"):
        breaker.call(always_deadlocked)
    assert time.monotonic() - started < 1.0
    assert breaker.available  # a busy server is not a down server
    breaker.close()


def test_domain_errors_pass_through_untouched() -> None:
    breaker = Availability(lambda: None)

    def refuse() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        breaker.call(refuse)
    assert breaker.available


def test_bounded_check_returns_none_past_budget_and_reuses_the_hung_check() -> None:
    release = threading.Event()
    started = 0

    def hung() -> bool:
        nonlocal started
        started += 1
        release.wait(5)
        return True

    bounded = Bounded[bool](0.1)
    assert bounded.run(hung) is None
    assert bounded.run(hung) is None
    assert started == 1
    release.set()
    assert wait_for(lambda: bounded.run(lambda: True) is True)
