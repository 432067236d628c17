"""The stdio proxy stays light (no torch, no Neo4j driver, no domain); tool enums follow the domain."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from service.domain.ingestion.formats import FORMATS
from service.domain.models import WRITABLE_KINDS, Kind, StepKind, StepStatus
from service.mcp import arguments
from service.origins import Origin

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import service.cli, service.mcp.stdio, service.mcp.tools, service.mcp.rest
heavy = ("torch", "neo4j", "neomodel", "sentence_transformers", "fastapi", "numpy")
loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy or m.startswith(
    ("service.domain", "service.graph", "service.container", "service.schemas", "service.api")))
print(",".join(loaded))
"""


def test_the_stdio_entry_loads_neither_torch_nor_neo4j_nor_the_domain() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "", out.stdout


def test_tool_enums_are_the_domain_enums() -> None:
    assert set(get_args(arguments.MemoryKind)) == {k.value for k in WRITABLE_KINDS}
    assert set(get_args(arguments.AnyKind)) == {k.value for k in Kind}
    assert set(get_args(arguments.StepKind)) == {k.value for k in StepKind}
    assert set(get_args(arguments.StepStatus)) == {k.value for k in StepStatus}
    assert set(get_args(arguments.OriginName)) == {o.value for o in Origin}
    assert get_args(arguments.IngestFormat) == ("auto", *FORMATS)


@pytest.mark.parametrize("url", ["not a url", "ftp://host", "http://", "http://host:99999"])
def test_mcp_refuses_a_service_url_it_could_never_call(url: str) -> None:
    # A fresh-user trial: `rationale mcp --url "not a url"` started and failed every call.
    from typer.testing import CliRunner

    from service.cli import app as cli_app

    result = CliRunner().invoke(cli_app, ["mcp", "--url", url], input="")
    assert result.exit_code == 2, result.output
    assert "URL" in result.output
