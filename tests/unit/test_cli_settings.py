"""A bad environment value stops every command with one line per value and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import uvicorn
from typer.testing import CliRunner, Result

from service.cli import app
from service.cli_settings import unknown_variables
from service.settings import get_settings


def invoke(args: list[str]) -> Result:
    """Run the command line with settings read afresh from the (patched) environment."""
    get_settings.cache_clear()
    try:
        return CliRunner().invoke(app, args)
    finally:
        get_settings.cache_clear()


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
    monkeypatch.setenv("RATIONALE_PORT", "99999")
    result = invoke(args)
    assert result.exit_code == 2, result.output
    errors = result.stderr.strip().splitlines()
    assert sorted(errors) == [
        "invalid setting RATIONALE_EMBEDDING_THREADS: "
        "Input should be greater than or equal to 0 (given '-1')",
        "invalid setting RATIONALE_PORT: Input should be less than or equal to 65535 (given '99999')",
        "invalid setting RATIONALE_RETRIEVAL_VECTOR_DEPTH: "
        "Input should be a valid integer, unable to parse string as an integer (given 'abc')",
    ]
    assert "Traceback" not in result.output


def test_every_refused_secret_is_its_own_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 11: prod without keys and with the development password named only the password."""
    monkeypatch.setenv("RATIONALE_ENV", "prod")
    monkeypatch.setenv("NEO4J_PASSWORD", "rationale-dev-password")
    monkeypatch.delenv("RATIONALE_API_KEYS", raising=False)
    result = invoke(["settings", "--quiet"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        "invalid settings: set NEO4J_PASSWORD: the development password is refused in prod",
        "invalid settings: RATIONALE_API_KEYS is required in prod (dev mode has no auth)",
    ]


@pytest.mark.parametrize(
    ("env", "keys", "lines"),
    [
        # Trial 13: a 1-character key was accepted in prod; "" and " " in any environment,
        # though neither can ever authenticate.
        (
            "prod",
            {"x": "team-a", "k" * 16: "team-b"},
            [
                "invalid settings: RATIONALE_API_KEYS: the key #1 (namespace 'team-a') has 1 "
                "characters; prod needs at least 16 (e.g. python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))')"
            ],
        ),
        (
            "dev",
            {
                "": "team-a",
                " ": "team-b",
                "a key": "team-c",
                "x": "team-d",
                "é" * 16: "team-e",
                "k\u200bk": "team-f",
                "k\x00k": "team-g",
            },
            [
                f"invalid settings: RATIONALE_API_KEYS: the key #{n} (namespace 'team-{ns}') "
                "is empty or holds white space, control or non-ASCII characters: it can never "
                "authenticate"
                for n, ns in ((1, "a"), (2, "b"), (3, "c"), (5, "e"), (6, "f"), (7, "g"))
            ],
        ),
    ],
)
def test_keys_that_cannot_or_should_not_authenticate_are_refused(
    monkeypatch: pytest.MonkeyPatch, env: str, keys: dict[str, str], lines: list[str]
) -> None:
    monkeypatch.setenv("RATIONALE_ENV", env)
    monkeypatch.setenv("NEO4J_PASSWORD", "a-real-password")
    grants = {key: {"namespace": ns} for key, ns in keys.items()}
    monkeypatch.setenv("RATIONALE_API_KEYS", json.dumps(grants))
    result = invoke(["settings", "--quiet"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == lines


@pytest.mark.parametrize(
    ("env", "line"),
    [
        # A whole-settings check (model_validator): its input is every setting.
        (
            {"NEO4J_PASSWORD": "neo4j"},
            "invalid settings: NEO4J_PASSWORD must not be the server default 'neo4j'",
        ),
        # A bad API key map: the key appears in the error's location.
        (
            {"RATIONALE_API_KEYS": '{"SECRETKEY123": {"namespace": "x", "scopes": ["nope"]}}'},
            "invalid setting RATIONALE_API_KEYS: "
            "Input should be 'read', 'write', 'ingest' or 'maintenance'",
        ),
        ({"RATIONALE_API_KEYS": "{not json"}, "invalid setting RATIONALE_API_KEYS: "),
    ],
)
def test_invalid_settings_never_echo_secrets(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], line: str
) -> None:
    monkeypatch.setenv("RATIONALE_API_KEYS", '{"SECRETKEY123": {"namespace": "x"}}')
    monkeypatch.setenv("RATIONALE_METRICS_KEY", "METRICSSECRET")
    monkeypatch.setenv("NEO4J_PASSWORD", "PASSWORDSECRET")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("served with bad settings"))
    result = invoke(["serve", "--port", "8123"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(line), result.stderr
    for secret in ("SECRETKEY123", "METRICSSECRET", "PASSWORDSECRET", "not json"):
        assert secret not in result.output


@pytest.mark.parametrize("command", ["serve", "ingest"])
def test_no_neo4j_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
) -> None:
    note = tmp_path / "note.md"
    note.write_text("We chose Neo4j because lineage is a graph walk.\n")
    args = {"serve": ["serve", "--port", "8123"], "ingest": ["ingest", str(note)]}[command]
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("served without Neo4j"))
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")  # nothing listens on port 1
    monkeypatch.setenv("RATIONALE_NEO4J_CONNECT_TIMEOUT_S", "2")
    result = invoke(args)
    assert result.exit_code == 1, result.output
    # One line, however the driver's message breaks and however narrow the terminal.
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("cannot start: Neo4j is not reachable at bolt://127.0.0.1:1")
    assert result.stderr.rstrip().endswith("(graph.unavailable)")
    assert "Traceback" not in result.output


def test_a_misspelt_setting_is_named_with_the_meant_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("RATIONALE_EMBEDING_THREADS", "2")
    monkeypatch.setenv("RATIONALE_URL", "http://127.0.0.1:8000")  # the client's: known
    monkeypatch.setenv("RATIONALE_RETRIEVAL_VECTOR_DEPTH", "abc")
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("served with bad settings"))
    result = invoke(["serve", "--port", "8123"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert lines[0] == (
        "warning: RATIONALE_EMBEDING_THREADS is not a Rationale setting and is ignored; "
        "did you mean RATIONALE_EMBEDDING_THREADS?"
    )
    assert lines[1].startswith("invalid setting RATIONALE_RETRIEVAL_VECTOR_DEPTH")
    assert "RATIONALE_URL" not in result.stderr


def test_unknown_variables_reads_the_environment_and_dot_env(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("RATIONALE_PORTT=8001\nNEO4J_URI=bolt://127.0.0.1:7687\n")
    environ = {
        "RATIONALE_PORT": "8001",
        "RATIONALE_API_KEY": "k",
        "RATIONALE_SOMETHING_ELSE": "1",
        "RATIONALE_NEO4J_URI": "bolt://127.0.0.1:7787",  # the Neo4j settings have no prefix
        "PATH": "/bin",
    }
    assert unknown_variables(environ, env_file) == [
        ("RATIONALE_NEO4J_URI", "NEO4J_URI"),
        ("RATIONALE_PORTT", "RATIONALE_PORT"),
        ("RATIONALE_SOMETHING_ELSE", None),
    ]
    assert unknown_variables({"RATIONALE_PORT": "1"}, tmp_path / "missing") == []


def test_settings_command_prints_values_but_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATIONALE_API_KEYS", '{"SECRETKEY123": {"namespace": "x"}}')
    monkeypatch.setenv("NEO4J_PASSWORD", "PASSWORDSECRET")
    monkeypatch.setenv("RATIONALE_RETRIEVAL_VECTOR_DEPTH", "77")
    monkeypatch.delenv("RATIONALE_METRICS_KEY", raising=False)
    shown = invoke(["settings"])
    quiet = invoke(["settings", "--quiet"])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert "RATIONALE_RETRIEVAL_VECTOR_DEPTH=77" in lines
    assert "NEO4J_PASSWORD=(set, hidden)" in lines
    assert "RATIONALE_API_KEYS=(1 set)" in lines
    assert "RATIONALE_METRICS_KEY=None" in lines
    for secret in ("SECRETKEY123", "PASSWORDSECRET"):
        assert secret not in shown.output
    assert (quiet.exit_code, quiet.output) == (0, "")


def test_settings_command_prints_effective_values_and_json(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("RATIONALE_EMBEDDING_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("RATIONALE_ALLOWED_HOSTS", '["api.example.org", "*.example.net"]')
    monkeypatch.setenv(
        "RATIONALE_VISIBILITY",
        '{"ingestion": {"recall": false, "search": true, "lineage": true}}',
    )
    shown = invoke(["settings"])
    assert shown.exit_code == 0, shown.output
    values = dict(line.split("=", 1) for line in shown.stdout.splitlines())
    # unset: the folder the encoder uses, as the README says
    assert values["RATIONALE_EMBEDDING_CACHE_DIR"] == str(tmp_path / "rationale" / "onnx")
    # structured settings are JSON that reads back as the same value
    get_settings.cache_clear()
    expected = get_settings()
    assert json.loads(values["RATIONALE_VISIBILITY"])["ingestion"]["recall"] is False
    assert json.loads(values["RATIONALE_ALLOWED_HOSTS"]) == ["api.example.org", "*.example.net"]
    for name in (
        "RATIONALE_VISIBILITY",
        "RATIONALE_ALLOWED_HOSTS",
        "RATIONALE_EMBEDDING_CACHE_DIR",
    ):
        monkeypatch.setenv(name, values[name])
    get_settings.cache_clear()
    again = get_settings()
    get_settings.cache_clear()
    assert again.visibility == expected.visibility
    assert again.allowed_hosts == expected.allowed_hosts
    assert again.embedding_cache_dir == tmp_path / "rationale" / "onnx"
    # set: printed as set
    monkeypatch.setenv("RATIONALE_EMBEDDING_CACHE_DIR", str(tmp_path / "elsewhere"))
    values = dict(line.split("=", 1) for line in invoke(["settings"]).stdout.splitlines())
    assert values["RATIONALE_EMBEDDING_CACHE_DIR"] == str(tmp_path / "elsewhere")
