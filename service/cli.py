"""The `rationale` command line (typer): serve the API, ingest material, run maintenance."""

from __future__ import annotations

import ipaddress
import logging

import typer

from service.settings import get_settings

app = typer.Typer(help="Rationale: agent memory on Neo4j that keeps why next to what.", no_args_is_help=True)


@app.callback()
def main() -> None:
    """Rationale: agent memory on Neo4j that keeps why next to what."""


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@app.command()
def serve(
    host: str = typer.Option(None, help="Bind address (default RATIONALE_HOST or 127.0.0.1)."),
    port: int = typer.Option(None, help="Port (default RATIONALE_PORT or 8000)."),
) -> None:
    """Serve the REST API (docs at /docs)."""
    import uvicorn

    from service.main import create_app

    settings = get_settings()
    host = host or settings.host
    port = port or settings.port
    if settings.dev_mode and not _is_loopback(host) and not settings.dev_bind_any:
        typer.echo(
            f"refusing to bind {host}: dev mode (no RATIONALE_API_KEYS) serves only on loopback", err=True
        )
        raise typer.Exit(2)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


if __name__ == "__main__":
    app()
