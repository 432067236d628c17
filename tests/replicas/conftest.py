"""Real service processes (`python -m service.cli serve`, this tree's code) on the shared Neo4j.

Each `Replica` is its own OS process on a free port with the real model, started with the keys
of a fresh `test_<hex>` namespace; the namespace and any `:Lease` a test names are deleted at
the end. Processes are stopped (SIGTERM, then SIGKILL) or killed by their own pid only.
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
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from neo4j import Driver

from bench.service_process import free_port

REPO = Path(__file__).resolve().parents[2]
READY_TIMEOUT_S = 300.0


class Replica:
    """One service process.

    Args:
        name: a label for its log file.
        keys: API key -> namespace (every scope).
        env: extra environment (settings) for this process.
    """

    def __init__(self, name: str, keys: dict[str, str], env: dict[str, str]) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = Path(tempfile.gettempdir()) / f"rationale-{name}-{self.port}.log"
        grants = {key: {"namespace": ns, "name": "replica"} for key, ns in keys.items()}
        self.env = {
            **os.environ,
            "RATIONALE_ENV": "test",
            "RATIONALE_API_KEYS": json.dumps(grants),
            "RATIONALE_MAINTENANCE_SCHEDULE_S": "0",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "PYTHONPATH": str(REPO),
            **env,
        }
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        """The process id."""
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> Replica:
        """Start the process (do not wait)."""
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve", "--port", str(self.port)],
                cwd=REPO,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        return self

    def wait_ready(self) -> Replica:
        """Wait until `/readyz` answers 200.

        Raises:
            RuntimeError: the process exited or was not ready within `READY_TIMEOUT_S`.
        """
        assert self.proc is not None
        deadline = time.monotonic() + READY_TIMEOUT_S
        with httpx.Client(base_url=self.base_url, timeout=5.0) as http:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"replica exited {self.proc.returncode}:\n{self.log()}")
                try:
                    if http.get("/readyz").status_code == 200:
                        return self
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"replica not ready in time:\n{self.log()}")
                time.sleep(0.5)

    def log(self) -> str:
        """The process's output so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        """SIGKILL this process (by its pid) and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()


@dataclass
class Cluster:
    """The namespace and its key, a reference namespace, and the replicas a test started (stopped at teardown)."""

    namespace: str
    key: str
    driver: Driver
    ref_namespace: str = field(default_factory=lambda: f"test_{uuid.uuid4().hex[:16]}")
    ref_key: str = field(default_factory=lambda: f"k-{uuid.uuid4().hex}")
    replicas: list[Replica] = field(default_factory=list)
    leases: list[str] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        """The namespace's bearer header."""
        return {"Authorization": f"Bearer {self.key}"}

    @property
    def ref_headers(self) -> dict[str, str]:
        """The reference namespace's bearer header (a second tenant for comparisons)."""
        return {"Authorization": f"Bearer {self.ref_key}"}

    def replica(self, name: str, **env: str) -> Replica:
        """Create (not start) a replica for this namespace with extra settings."""
        r = Replica(name, {self.key: self.namespace, self.ref_key: self.ref_namespace}, env)
        self.replicas.append(r)
        return r

    def start(self, *replicas: Replica) -> None:
        """Start all, then wait until each is ready (they load in parallel)."""
        for r in replicas:
            r.start()
        for r in replicas:
            r.wait_ready()

    def lease_name(self) -> str:
        """A fresh lease name, deleted at teardown."""
        name = f"test_lease_{uuid.uuid4().hex[:12]}"
        self.leases.append(name)
        return name


@pytest.fixture
def cluster(neo4j_driver: Driver) -> Iterator[Cluster]:
    c = Cluster(f"test_{uuid.uuid4().hex[:16]}", f"k-{uuid.uuid4().hex}", neo4j_driver)
    try:
        yield c
    finally:
        for r in c.replicas:
            r.stop()
        with neo4j_driver.session() as session:
            for ns in (c.namespace, c.ref_namespace):
                session.run(
                    "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
                    ns=ns,
                ).consume()
            session.run("MATCH (l:Lease) WHERE l.name IN $names DELETE l", names=c.leases).consume()
