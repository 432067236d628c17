"""The `rationale` commands' input and output: ingest warnings, JSON times, JSONL files, stdin."""

from __future__ import annotations

import codecs
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
    (tmp_path / "bad.md").write_bytes(b"\xc3\x28 not UTF-8")
    # A table as wide as a pipe's (240 columns): a COLUMNS=80 environment squeezed the file's
    # name to "bad…" and the row was not found.
    runner = CliRunner(env={"COLUMNS": "240"})
    result = runner.invoke(cli_app, ["ingest", str(tmp_path), "-n", tenant.namespace])
    assert result.exit_code == 1, result.output
    row = next(line for line in result.output.splitlines() if "bad.md" in line)
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[3:10] == ["-"] * 7, cells
    assert "input.invalid_format" in result.output


def _row(output: str, name: str) -> list[str]:
    row = next(line for line in output.splitlines() if name in line)
    return [c.strip() for c in row.split("│")[1:-1]]


def test_ingest_reads_utf16_files_by_their_byte_order_mark(
    tenant: Tenant, neo4j_driver: Driver, tmp_path: Path
) -> None:
    """Windows tools save UTF-16 with a BOM (PowerShell's `>`, Notepad's "Unicode"): such a file
    was refused as not UTF-8 (trial 13). Its text is read; a UTF-8 copy is the same source."""
    text = (
        "# ADR 7: Keep the build cache on the CI runners\n\n## Status\n\nAccepted\n\n"
        "## Context\n\nCold builds take 14 minutes; the naïve fix was a bigger runner.\n\n"
        "## Decision\n\nWe keep the build cache on the runners.\n"
    )
    (tmp_path / "le").mkdir()
    (tmp_path / "le" / "adr-7-le.md").write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    runner = CliRunner(env={"COLUMNS": "240"})
    result = runner.invoke(cli_app, ["ingest", str(tmp_path / "le"), "-n", tenant.namespace])
    assert result.exit_code == 0, result.output
    assert _row(result.output, "adr-7-le.md")[1:3] == ["adr", "yes"], result.output
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) WHERE m.content CONTAINS 'naïve fix' RETURN count(m) AS c",
        {"ns": tenant.namespace},
    )
    assert records[0]["c"] >= 1
    stored = _count(neo4j_driver, tenant.namespace)
    for name, raw in (
        ("adr-7-be.md", codecs.BOM_UTF16_BE + text.encode("utf-16-be")),
        ("adr-7.md", text.encode("utf-8")),
    ):
        (tmp_path / name).write_bytes(raw)
        result = runner.invoke(cli_app, ["ingest", str(tmp_path / name), "-n", tenant.namespace])
        assert result.exit_code == 0, result.output
        assert _row(result.output, name)[2] == "no", result.output
    assert _count(neo4j_driver, tenant.namespace) == stored
    # A lone surrogate after the mark is no UTF-16 text: refused, nothing written.
    (tmp_path / "broken.md").write_bytes(codecs.BOM_UTF16_LE + b"\x00\xd8a\x00")
    result = runner.invoke(cli_app, ["ingest", str(tmp_path / "broken.md"), "-n", tenant.namespace])
    assert result.exit_code == 1, result.output
    assert "not UTF-16 (by its byte order mark)" in result.output
    assert _count(neo4j_driver, tenant.namespace) == stored


def test_ingest_skips_files_the_exclusions_match(tenant: Tenant, tmp_path: Path) -> None:
    """Trial 17: `rationale ingest` of a corpus folder ingested its SOURCE.md too."""
    (tmp_path / "runs").mkdir()
    (tmp_path / "SOURCE.md").write_text("# Source\n\n| file | licence |\n|---|---|\n| a | MIT |\n")
    (tmp_path / "runs" / "notes.md").write_text("The nightly build takes 14 minutes on CI.\n")
    (tmp_path / "runs" / "keep.txt").write_text("The cache volume filled up on Tuesday.\n")
    runner = CliRunner(env={"COLUMNS": "240"})
    args = ["ingest", str(tmp_path), "-n", tenant.namespace, "-x", "SOURCE.md", "-x", "runs/*.md"]
    result = runner.invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    assert "keep.txt" in result.output
    assert "SOURCE.md" not in result.output and "notes.md" not in result.output
    # Everything excluded: nothing to ingest is a usage error, as an empty folder is.
    result = runner.invoke(cli_app, ["ingest", str(tmp_path), "-n", tenant.namespace, "-x", "*"])
    assert result.exit_code == 2 and "excluded" in result.output, result.output


def test_remember_names_each_problem_of_a_bad_line(
    tenant: Tenant, neo4j_driver: Driver, tmp_path: Path
) -> None:
    """Trial 17: pydantic's whole message was printed, its documentation link included."""
    path = tmp_path / "bad.jsonl"
    path.write_text('{"kind": "wish", "content": "x", "confidence": 2}\n', encoding="utf-8")
    result = CliRunner().invoke(cli_app, ["remember", str(path), "-n", tenant.namespace])
    assert result.exit_code == 2, result.output
    assert f"{path}:1: kind: " in result.output and f"{path}:1: confidence: " in result.output
    assert "errors.pydantic.dev" not in result.output
    assert _count(neo4j_driver, tenant.namespace) == 0
