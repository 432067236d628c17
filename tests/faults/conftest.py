"""A second Neo4j that these tests own (never the shared one on 7687), and a service bound to it.

The server lives in this tree's `.neo4j-faults/` (git-ignored; jars fetched once) on a free Bolt
and HTTP port chosen per session (so two worktrees running these tests do not meet on one
server), and is driven only through `scripts/neo4j` with `NEO4J_HOME_DIR`; the session fixture
always stops it, also when a test fails.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase

from bench.service_process import free_port
from service.embeddings import FakeEmbedder
from service.keys import ApiKey
from service.main import create_app
from service.settings import Settings
from tests.conftest import make_settings

ROOT = Path(__file__).resolve().parents[2]
FAULTS_HOME = ROOT / ".neo4j-faults"
FAULTS_BOLT_PORT, FAULTS_HTTP_PORT = (str(free_port()) for _ in range(2))
FAULTS_URI = f"bolt://127.0.0.1:{FAULTS_BOLT_PORT}"
SHARED_BOLT_PORT = "7687"


class FaultServer:
    """Start, stop and SIGKILL the test-owned Neo4j through `scripts/neo4j` (by its pid file)."""

    def __init__(self) -> None:
        assert not FAULTS_URI.endswith(":" + SHARED_BOLT_PORT), "never the shared server"
        self.uri = FAULTS_URI
        self.env = {
            **os.environ,
            "NEO4J_HOME_DIR": str(FAULTS_HOME),
            "NEO4J_URI": FAULTS_URI,
            "NEO4J_HTTP_PORT": FAULTS_HTTP_PORT,
            "NEO4J_HEAP_INITIAL": "256m",
            "NEO4J_HEAP_MAX": "512m",
            "NEO4J_PAGECACHE": "128m",
        }

    def _script(self, command: str, timeout_s: float) -> str:
        done = subprocess.run(
            [str(ROOT / "scripts" / "neo4j"), command],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        out = done.stdout + done.stderr
        assert done.returncode == 0, f"scripts/neo4j {command} failed:\n{out}"
        return out

    def start(self) -> float:
        """Start the server and wait until it accepts the credentials; return that moment."""
        out = self._script("start", 300)
        assert "not started by scripts/neo4j" not in out, (
            f"port {FAULTS_BOLT_PORT} is someone else's:\n{out}"
        )
        assert self.pid() is not None, out
        return time.monotonic()

    def stop(self) -> None:
        """`scripts/neo4j stop`: SIGTERM (SIGKILL after 60 s) of our server only."""
        self._script("stop", 120)

    def pid(self) -> int | None:
        """The pid `scripts/neo4j` recorded for our server, if it is alive."""
        try:
            pid = int((FAULTS_HOME / "run" / "neo4j.pid").read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if Path(f"/proc/{pid}").exists() else None

    def signal(self, signum: int) -> None:
        """Send `signum` to our server (SIGSTOP freezes it, SIGCONT wakes it)."""
        pid = self.pid()
        assert pid is not None, "the fault server is not running"
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        assert f"--home-dir={FAULTS_HOME}" in cmdline, "the pid file names another process"
        os.kill(pid, signum)

    def kill(self) -> None:
        """SIGKILL our server (by the pid in its pid file) and wait until it is gone."""
        pid = self.pid()
        assert pid is not None, "the fault server is not running"
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        assert f"--home-dir={FAULTS_HOME}" in cmdline, "the pid file names another process"
        os.kill(pid, 9)
        deadline = time.monotonic() + 30
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        self._script("stop", 60)  # clears the stale pid file


@pytest.fixture(scope="session")
def fault_server() -> Iterator[FaultServer]:
    server = FaultServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Bound:
    """A service app on the fault server, with one namespace and its key."""

    client: TestClient
    server: FaultServer
    namespace: str
    key: str
    ref_namespace: str
    ref_key: str
    settings: Settings

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    @property
    def ref_headers(self) -> dict[str, str]:
        """The key of a second namespace (a reference written without a fault)."""
        return {"Authorization": f"Bearer {self.ref_key}"}

    def driver(self) -> Driver:
        """A driver on the fault server (the caller closes it)."""
        return GraphDatabase.driver(
            self.server.uri,
            auth=(self.settings.neo4j_username, self.settings.neo4j_password.get_secret_value()),
        )


@pytest.fixture
def bound(fault_server: FaultServer) -> Iterator[Bound]:
    namespace, ref_namespace = (f"test_{uuid.uuid4().hex[:16]}" for _ in range(2))
    key, ref_key = (f"k-{uuid.uuid4().hex}" for _ in range(2))
    settings = make_settings(
        NEO4J_URI=fault_server.uri,
        RATIONALE_API_KEYS={
            key: ApiKey(namespace=namespace, name="faults").model_dump(),
            ref_key: ApiKey(namespace=ref_namespace, name="faults").model_dump(),
        },
    )
    app = create_app(settings, embedder=FakeEmbedder(384))
    try:
        with TestClient(app) as client:
            yield Bound(client, fault_server, namespace, key, ref_namespace, ref_key, settings)
    finally:
        if fault_server.pid() is None:
            fault_server.start()
        driver = GraphDatabase.driver(
            fault_server.uri,
            auth=(settings.neo4j_username, settings.neo4j_password.get_secret_value()),
        )
        with driver:
            for ns in (namespace, ref_namespace):
                driver.execute_query("MATCH (n {namespace: $ns}) DETACH DELETE n", ns=ns)
