"""A 503 while Neo4j is down is not an ERROR line per request (trial 9: ~430 lines in 25 s)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from starlette.requests import Request

from service import errors
from service.api.errors import handle_domain_error


def _request() -> Request:
    return Request({"type": "http", "method": "POST", "path": "/v1/recall", "headers": []})


def test_graph_unavailable_is_no_error_line(caplog: pytest.LogCaptureFixture) -> None:
    # The breaker logs the outage once (a warning when it opens, another when it closes).
    with caplog.at_level(logging.DEBUG, logger="service.api.errors"):
        answer = asyncio.run(handle_domain_error(_request(), errors.GraphUnavailableError("down")))
    # The breaker probes every 0.5 s: come back in a second, as /readyz says (trial 17: 5 vs 1).
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
    assert [r.levelno for r in caplog.records] == [logging.DEBUG]


def test_other_server_faults_stay_errors(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="service.api.errors"):
        answer = asyncio.run(handle_domain_error(_request(), errors.EmbeddingError("model")))
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert [r.levelno for r in caplog.records] == [logging.ERROR]
