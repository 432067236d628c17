"""A bad environment value stops every command with one line per value and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import uvicorn
from typer.testing import CliRunner

from service.cli import app
from service.settings import get_settings


@pytest.mark.parametrize("command", ["serve", "maintenance", "ingest", "remember"])
def test_invalid_settings_exit_2_with_the_variable_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
) -> None:
    note = tmp_path / "note.md"
    note.write_text("We chose Neo4j because lineage is a graph walk.\n")
    lines = tmp_path / "memories.jsonl"
    lines.write_text('{"kind": "fact", "content": "Lineage is a graph walk."}\n')
    args = {
        "serve": ["serve", "--port", "8123"],
        "maintenance": ["maintenance", "run", "evidence-drift"],
        "ingest": ["ingest", str(note)],
        "remember": ["remember", str(lines)],
    }[command]
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("served with bad settings"))
    monkeypatch.setenv("RATIONALE_RETRIEVAL_VECTOR_DEPTH", "abc")
    monkeypatch.setenv("RATIONALE_EMBEDDING_THREADS", "-1")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, args)
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert sorted(lines) == [
        "invalid setting RATIONALE_EMBEDDING_THREADS: "
        "Input should be greater than or equal to 0 (given '-1')",
        "invalid setting RATIONALE_RETRIEVAL_VECTOR_DEPTH: "
        "Input should be a valid integer, unable to parse string as an integer (given 'abc')",
    ]
    assert "Traceback" not in result.output
