"""Neo4j frozen (SIGSTOP: a stopped JVM, a long pause, packets dropped silently) under a live service.

Trial 13: a request already holding a connection when the server froze waited 120 s (Neo4j's
default `connection.recv_timeout_seconds` hint, keep-alive 60 s x 2 probes) before its 503. The
server's keep-alive settings (`neo4j-server/neo4j.conf.template`: 2 s x 2) make the driver give
such a connection up after 4 s of silence; a long query stays alive on the server's NOOPs.
"""

from __future__ import annotations

import signal
import threading
import time

from tests.faults.conftest import Bound
from tests.faults.test_unavailable import Answer, call, write

#: A request caught by the freeze: the driver's recv timeout (4 s) plus the breaker's work; far
#: below the 120 s it took with Neo4j's defaults.
FROZEN_S = 15.0


def test_a_frozen_server_fails_requests_in_flight_within_seconds(bound: Bound) -> None:
    acked = write(bound, "acknowledged before the freeze")
    assert acked.status == 201, acked.response.text
    memory_id = acked.response.json()["memory_id"]
    # Every request below reuses a pooled connection (the one the write left idle).
    answers: dict[str, Answer] = {}

    def ask(name: str, method: str, path: str, json: object = None) -> None:
        answers[name] = call(bound, method, path, json)

    bound.server.signal(signal.SIGSTOP)
    try:
        threads = [
            threading.Thread(target=ask, args=("read", "GET", f"/v1/memories/{memory_id}")),
            threading.Thread(
                target=ask, args=("recall", "POST", "/v1/recall", {"query": "freeze", "limit": 3})
            ),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(FROZEN_S + 30)
        assert not any(t.is_alive() for t in threads), "a request still hangs"
        for name, answer in answers.items():
            assert answer.status == 503, f"{name}: {answer.status} {answer.response.text}"
            assert answer.seconds < FROZEN_S, f"{name}: 503 after {answer.seconds:.1f} s"
            assert answer.response.json()["code"] == "graph.unavailable"
    finally:
        bound.server.signal(signal.SIGCONT)
    # Woken, the server serves again without a restart of the service.
    deadline = time.monotonic() + 30
    survived = call(bound, "GET", f"/v1/memories/{memory_id}")
    while survived.status != 200 and time.monotonic() < deadline:
        time.sleep(0.5)
        survived = call(bound, "GET", f"/v1/memories/{memory_id}")
    assert survived.status == 200, survived.response.text
    assert survived.response.json()["content"] == "acknowledged before the freeze"
