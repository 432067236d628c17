"""`rationale serve --host` is the bind address the Host check serves, as RATIONALE_HOST is."""

from __future__ import annotations

import socket
from typing import Any

import pytest
import uvicorn
from typer.testing import CliRunner

from service.api.hosts import HostCheckMiddleware
from service.cli import app
from service.settings import get_settings


def test_serve_host_option_joins_the_served_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    started: dict[str, Any] = {}

    def run(asgi: Any, **kwargs: Any) -> None:
        started.update(kwargs, app=asgi)

    monkeypatch.setattr(uvicorn, "run", run)
    monkeypatch.delenv("RATIONALE_ALLOWED_HOSTS", raising=False)
    monkeypatch.setenv("RATIONALE_API_KEYS", '{"k": {"namespace": "test_serve"}}')
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["serve", "--host", "10.0.0.5", "--port", "8123"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert (started["host"], started["port"]) == ("10.0.0.5", 8123)
    (check,) = [m for m in started["app"].user_middleware if m.cls is HostCheckMiddleware]
    assert check.kwargs["allowed"] == ("localhost", "127.0.0.1", "[::1]", "10.0.0.5")


def test_serve_on_a_port_in_use_exits_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A port taken was found only after the model and schema loaded (trial 6): one line, exit 1."""
    started: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: started.append(k))
    monkeypatch.setenv("RATIONALE_API_KEYS", '{"k": {"namespace": "test_serve"}}')
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        get_settings.cache_clear()
        try:
            result = CliRunner().invoke(app, ["serve", "--host", "127.0.0.1", "--port", str(port)])
        finally:
            get_settings.cache_clear()
    assert result.exit_code == 1, result.output
    assert f"127.0.0.1:{port} is in use" in result.output
    assert started == []
