"""The real service as a separate process (`rationale serve`) for the load benchmarks.

The suite starts `.venv/bin/rationale serve --port <free port>` with `RATIONALE_API_KEYS` holding
one bench key per `bench_*` namespace, waits for `GET /readyz`, drives it over HTTP from the
benchmark process, reads its peak RSS from `/proc/<pid>/status` (`VmHWM`), and stops it with
SIGTERM (SIGKILL after a grace period) — only the process it started, by its pid.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import httpx

from bench.common import REPO, proc_status_kb


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServiceProcess:
    """A `rationale serve` subprocess with API keys for the given namespaces.

    Args:
        keys: API key -> namespace; each key gets scopes read and write, name `bench-load`
            (so every write through it has `created_by_actor = bench-load`).
        env: extra environment variables for the service (e.g. `OMP_NUM_THREADS`).
        ready_timeout_s: how long to wait for `/readyz` (schema and model load included).
    """

    def __init__(
        self,
        keys: dict[str, str],
        env: dict[str, str] | None = None,
        ready_timeout_s: float = 300.0,
    ) -> None:
        self.keys = keys
        self.env = env or {}
        self.ready_timeout_s = ready_timeout_s
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = Path(tempfile.gettempdir()) / f"rationale-bench-{self.port}.log"
        self.startup_s = 0.0

    def __enter__(self) -> ServiceProcess:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def pid(self) -> int:
        """The service's pid."""
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        """Start the service and wait until `/readyz` answers 200.

        Raises:
            RuntimeError: it exited or did not get ready in time (the log's tail is included).
        """
        grants = {
            key: {"namespace": ns, "scopes": ["read", "write"], "name": "bench-load"}
            for key, ns in self.keys.items()
        }
        env = {
            **os.environ,
            "RATIONALE_API_KEYS": json.dumps(grants),
            "RATIONALE_MAINTENANCE_SCHEDULE_S": "0",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            **self.env,
        }
        exe = Path(sys.executable).parent / "rationale"
        started = time.perf_counter()
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [str(exe), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=REPO,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + self.ready_timeout_s
        with httpx.Client(base_url=self.base_url, timeout=5.0) as client:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(
                        f"the service exited with {self.proc.returncode}:\n{self.log_tail()}"
                    )
                try:
                    if client.get("/readyz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"the service was not ready in time:\n{self.log_tail()}")
                time.sleep(0.5)
        self.startup_s = time.perf_counter() - started

    def peak_rss_mb(self) -> float | None:
        """Return the service's peak resident set size so far (`VmHWM`), in MiB."""
        kb = proc_status_kb(self.pid, "VmHWM") if self.proc else None
        return None if kb is None else kb / 1024

    def rss_mb(self) -> float | None:
        """Return the service's current resident set size (`VmRSS`), in MiB."""
        kb = proc_status_kb(self.pid, "VmRSS") if self.proc else None
        return None if kb is None else kb / 1024

    def log_tail(self, lines: int = 30) -> str:
        """Return the last lines of the service's log."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Stop the service: SIGTERM, then SIGKILL after 20 s (this process only, by pid)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
