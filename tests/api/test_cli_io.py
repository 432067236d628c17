"""The `rationale` commands' input and output: ingest warnings, JSON times, JSONL files, stdin."""

from __future__ import annotations

import json
import re
from pathlib import Path

from neo4j import Driver
from typer.testing import CliRunner

from service.cli import app as cli_app
from tests.conftest import Tenant
from tests.factories import flaky_test_story

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
CCVIEWER = (
    CORPUS
    / "sessions"
    / "claude-code-jsonl"
    / "ccviewer-1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
)
#: A time as the API writes it: ISO 8601 with `T` and `Z` (never `+00:00` or a space).
API_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


def _count(driver: Driver, namespace: str) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN count(m) AS c", {"ns": namespace}
    )
    return int(records[0]["c"])


def _times(value: object) -> list[str]:
    """Return every string under `value` that looks like a time (starts with a date)."""
    if isinstance(value, dict):
        return [t for v in value.values() for t in _times(v)]
    if isinstance(value, list):
        return [t for v in value for t in _times(v)]
    return [value] if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}[T ]", value) else []


def test_ingest_shows_the_reports_warnings(tenant: Tenant, tmp_path: Path) -> None:
    lines = CCVIEWER.read_text(encoding="utf-8").splitlines()
    lines[5] = "{not json"
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli_app, ["ingest", str(path), "-n", tenant.namespace])
    assert result.exit_code == 0, result.output
    assert "jsonl.lines_skipped: line 6 " in result.output
    assert "session.jsonl" in result.output


def test_ingest_of_an_empty_folder_is_a_usage_error(tenant: Tenant, tmp_path: Path) -> None:
    (tmp_path / ".hidden").write_text("skipped: hidden", encoding="utf-8")
    result = CliRunner().invoke(cli_app, ["ingest", str(tmp_path), "-n", tenant.namespace])
    assert result.exit_code == 2, result.output
    assert "no files to ingest" in result.output


def test_json_output_writes_times_as_the_api_does(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    did = story["trace"]["produced"][0]["memory_id"]
    runner = CliRunner()
    args = ["outcome", did, "failure", "test_upload failed again", "-n", tenant.namespace]
    recorded = runner.invoke(cli_app, args)
    assert recorded.exit_code == 0, recorded.output
    found = runner.invoke(
        cli_app, ["precedents", "test_upload fails intermittently in CI", "-n", tenant.namespace]
    )
    assert found.exit_code == 0, found.output
    for output in (recorded.output, found.output):
        times = _times(json.loads(output))
        assert times, output
        assert all(API_TIME.match(t) for t in times), times
    api = tenant.get(f"/v1/memories/{did}").json()
    assert api["system_from"] in _times(json.loads(recorded.output))


def test_remember_accepts_a_bom_crlf_and_stdin(
    tenant: Tenant, neo4j_driver: Driver, tmp_path: Path
) -> None:
    lines = [
        {"kind": "observation", "content": "BOM line one"},
        {"kind": "observation", "content": "CRLF line two\u2028with a line separator"},
    ]
    path = tmp_path / "windows.jsonl"
    text = "\r\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\r\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    runner = CliRunner()
    result = runner.invoke(cli_app, ["remember", str(path), "-n", tenant.namespace])
    assert result.exit_code == 0, result.output
    assert "2 created, 0 existed already (2 lines)" in result.output
    assert _count(neo4j_driver, tenant.namespace) == 2
    piped = json.dumps({"kind": "fact", "content": "from stdin"})
    stdin = runner.invoke(
        cli_app, ["remember", "-", "-n", tenant.namespace], input="\ufeff" + piped + "\n"
    )
    assert stdin.exit_code == 0, stdin.output
    assert "1 created, 0 existed already (1 lines)" in stdin.output
    assert _count(neo4j_driver, tenant.namespace) == 3


def test_remember_refuses_a_line_naming_a_key_twice(
    tenant: Tenant, neo4j_driver: Driver, tmp_path: Path
) -> None:
    """As REST bodies do: `json` kept the last `content` and stored it (trial 10)."""
    path = tmp_path / "dup.jsonl"
    path.write_text(
        '{"kind": "fact", "content": "first line"}\n'
        '{"kind": "fact", "content": "cli dupkey A", "content": "cli dupkey B"}\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(cli_app, ["remember", str(path), "-n", tenant.namespace])
    assert result.exit_code == 2, result.output
    assert f"{path}:2: duplicate key 'content' in an object" in result.output
    assert _count(neo4j_driver, tenant.namespace) == 0


def test_ingest_shows_no_counts_for_a_file_whose_attempt_stopped(
    tenant: Tenant, tmp_path: Path
) -> None:
    """Trial 13: a file whose attempt stopped (Neo4j went away) read "units 0 ... failed 0"
    though some of its units were written: with no report its counts are unknown, shown "-"."""
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe not UTF-8")
    # A table as wide as a pipe's (240 columns): a COLUMNS=80 environment squeezed the file's
    # name to "bad…" and the row was not found.
    runner = CliRunner(env={"COLUMNS": "240"})
    result = runner.invoke(cli_app, ["ingest", str(tmp_path), "-n", tenant.namespace])
    assert result.exit_code == 1, result.output
    row = next(line for line in result.output.splitlines() if "bad.md" in line)
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[3:10] == ["-"] * 7, cells
    assert "input.invalid_format" in result.output
