"""The OpenAPI contract, exactly: schemathesis with every check over the whole schema, 0 failures.

A live service subprocess (this tree's code, the real Neo4j and model) on a fresh `test_<hex>`
namespace; the schemathesis CLI (pinned in the dev extra) runs every phase, stateful links
included, with the fixed seed and bounded examples of `tests/api/schemathesis.toml`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from bench.service_process import free_port
from tests.client.conftest import _drop_namespace, _start, _stop, _wait_ready

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "schemathesis.toml"
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")


@pytest.fixture(scope="module")
def live(
    neo4j_driver: Driver, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    namespace = f"test_{uuid.uuid4().hex[:16]}"
    key = f"kc-{uuid.uuid4().hex}"
    port = free_port()
    env = {
        **os.environ,
        "RATIONALE_ENV": "test",
        "RATIONALE_API_KEYS": json.dumps({key: {"namespace": namespace, "name": "contract"}}),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    log = tmp_path_factory.mktemp("contract") / "service.log"
    proc = _start(env, log, port)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(proc, base, log)
        yield base, key
    finally:
        _stop(proc)
        _drop_namespace(neo4j_driver, namespace)


def test_schemathesis_all_checks_zero_failures(live: tuple[str, str], tmp_path: Path) -> None:
    base, key = live
    run = subprocess.run(
        [
            str(SCHEMATHESIS),
            "--config-file",
            str(CONFIG),
            "run",
            f"{base}/openapi.json",
            "--checks",
            "all",
            "--header",
            f"Authorization: Bearer {key}",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    out = run.stdout + run.stderr
    at = out.find("SUMMARY")
    summary = out[out.rfind("\n", 0, at) + 1 :] if at >= 0 else out[-4000:]
    print(summary)  # the run's summary, kept in the test log (-s or -rP)
    assert run.returncode == 0, out[-20000:]
