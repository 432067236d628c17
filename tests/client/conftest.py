"""The real service in a subprocess (uvicorn via `python -m service.cli serve`) for the client's tests.

Two fresh `test_<hex>` namespaces A and B; keys: A with every scope, A read-only, B with every
scope. The service runs this tree's code (cwd = repository root, `-m`), against the shared
Neo4j; both namespaces are deleted at the end of the session.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from rationale_client import Client

from bench.service_process import free_port

REPO = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Service:
    """A running service: its URL, the namespaces and the keys bound to them."""

    base_url: str
    ns_a: str
    ns_b: str
    key_a: str
    key_a_read: str
    key_b: str


def _start(env: dict[str, str], log_path: Path, port: int) -> subprocess.Popen[bytes]:
    with log_path.open("wb") as log:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "service.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _wait_ready(proc: subprocess.Popen[bytes], base_url: str, log_path: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    with httpx.Client(base_url=base_url, timeout=5.0) as http:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"service exited {proc.returncode}:\n{log_path.read_text()}")
            try:
                if http.get("/readyz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"service not ready in time:\n{log_path.read_text()}")
            time.sleep(0.5)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def _drop_namespace(driver: Any, namespace: str) -> None:
    with driver.session() as session:
        session.run(
            "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
            ns=namespace,
        ).consume()


@pytest.fixture(scope="session")
def service(neo4j_driver: object) -> Iterator[Service]:
    ns_a, ns_b = (f"test_{uuid.uuid4().hex[:16]}" for _ in range(2))
    svc = Service(
        base_url="",
        ns_a=ns_a,
        ns_b=ns_b,
        key_a=f"ka-{uuid.uuid4().hex}",
        key_a_read=f"kr-{uuid.uuid4().hex}",
        key_b=f"kb-{uuid.uuid4().hex}",
    )
    grants = {
        svc.key_a: {"namespace": ns_a, "name": "client-tests"},
        svc.key_a_read: {"namespace": ns_a, "scopes": ["read"], "name": "reader"},
        svc.key_b: {"namespace": ns_b, "name": "client-tests-b"},
    }
    port = free_port()
    env = {
        **os.environ,
        "RATIONALE_ENV": "test",
        "RATIONALE_API_KEYS": json.dumps(grants),
        "RATIONALE_MAINTENANCE_SCHEDULE_S": "0",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    log_path = Path(tempfile.gettempdir()) / f"rationale-client-tests-{port}.log"
    proc = _start(env, log_path, port)
    try:
        base_url = f"http://127.0.0.1:{port}"
        _wait_ready(proc, base_url, log_path)
        yield Service(**{**svc.__dict__, "base_url": base_url})
    finally:
        _stop(proc)
        for ns in (ns_a, ns_b):
            _drop_namespace(neo4j_driver, ns)


@pytest.fixture
def client(service: Service) -> Iterator[Client]:
    with Client(service.base_url, api_key=service.key_a) as c:
        yield c


@pytest.fixture
def client_b(service: Service) -> Iterator[Client]:
    with Client(service.base_url, api_key=service.key_b) as c:
        yield c


@pytest.fixture
def reader(service: Service) -> Iterator[Client]:
    with Client(service.base_url, api_key=service.key_a_read) as c:
        yield c
