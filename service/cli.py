"""The `rationale` command line (typer): serve the API, ingest material, run maintenance."""

from __future__ import annotations

import errno
import ipaddress
import logging
import os
import socket
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from service import cli_memory as memory_commands
from service.cli_files import decode, expand
from service.cli_settings import cannot_start, output_console, settings_or_exit
from service.cli_settings import show as show_settings
from service.errors import TooLargeError
from service.namespaces import NAMESPACE_RULE, is_namespace

if TYPE_CHECKING:
    pass

#: Help texts are Markdown: a docstring's paragraph is rewrapped to the terminal's width (the
#: default mode kept its source line breaks, wrapping lines mid-sentence).
app = typer.Typer(
    help="Rationale: agent memory on Neo4j that keeps why next to what.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)


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


def _port_in_use(host: str, port: int) -> bool:
    """Return True when a socket on `host`:`port` is refused because one is bound there already.

    Bound as uvicorn binds it (`SO_REUSEADDR`), then closed. Any other failure (an address
    this machine does not have, a name that does not resolve) is False: uvicorn reports it.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


@app.command()
def serve(
    host: str = typer.Option(None, help="Bind address (default RATIONALE_HOST or 127.0.0.1)."),
    port: int = typer.Option(None, min=1, max=65535, help="Port (default RATIONALE_PORT or 8000)."),
) -> None:
    """Serve the REST API (docs at /docs)."""
    import uvicorn

    from service.main import create_app

    settings = settings_or_exit()
    host = host or settings.host
    port = port or settings.port
    if settings.dev_mode and not _is_loopback(host) and not settings.dev_bind_any:
        typer.echo(
            f"refusing to bind {host}: dev mode (no RATIONALE_API_KEYS) serves only on loopback",
            err=True,
        )
        raise typer.Exit(2)
    # A port in use is found before Neo4j, the schema and the model (uvicorn binds after them).
    if _port_in_use(host, port):
        typer.echo(f"cannot start: {host}:{port} is in use (pick another with --port)", err=True)
        raise typer.Exit(1)
    # Neo4j is checked before the app starts: an unreachable server or refused credentials is
    # one line and exit code 1, as for the other commands (in the app's start-up it was a
    # traceback of about 100 lines through Starlette's lifespan and uvicorn's exit code 3).
    from service.errors import GraphUnavailableError
    from service.graph.driver import create_driver

    try:
        create_driver(settings).close()
    except GraphUnavailableError as exc:
        cannot_start(exc)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # The app serves the Host names of the address it is bound to (`Settings.host_allow_list`).
    settings = settings.model_copy(update={"host": host, "port": port})
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


app.command("settings")(show_settings)

maintenance_app = typer.Typer(
    help="Maintenance jobs: they write as origin `maintenance`, actor `job:<name>`.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)
app.add_typer(maintenance_app, name="maintenance")


@maintenance_app.command("run")
def maintenance_run(
    job: Annotated[
        str,
        typer.Argument(
            help="evidence-drift, duplicate-candidates, contradiction-candidates or "
            "outcome-confidence."
        ),
    ],
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="Namespace to run on.")
    ] = "default",
) -> None:
    """Run one maintenance job on one namespace now and print its report."""
    from rich.table import Table

    from service.container import build_services
    from service.domain.maintenance import JOB_NAMES
    from service.errors import InvalidInputError, RationaleError

    console = output_console()
    if job not in JOB_NAMES:
        console.print(
            f"[red]unknown maintenance job {job!r}[/red]; known jobs: {', '.join(JOB_NAMES)}"
        )
        raise typer.Exit(2)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        services = build_services(settings_or_exit())
    except RationaleError as exc:
        cannot_start(exc)
    try:
        report = services.maintenance.run(job, namespace)
    except RationaleError as exc:
        console.print(f"[red]{job} failed: {exc.message}[/red] ({exc.code})")
        raise typer.Exit(2 if isinstance(exc, InvalidInputError) else 1) from exc
    finally:
        services.close()
    table = Table(title=f"maintenance {report.job} on {namespace}", show_header=False)
    table.add_row("examined", str(report.examined))
    table.add_row("changed", str(report.changed))
    table.add_row("memory_ids", "\n".join(report.memory_ids) or "-")
    table.add_row("trace_ids", "\n".join(report.trace_ids) or "-")
    console.print(table)


#: Show a progress bar when ingesting at least this many files, or a file at least this large.
PROGRESS_MIN_FILES = 2
PROGRESS_MIN_BYTES = 64 * 1024


@dataclass
class _IngestRow:
    """One line of the `rationale ingest` summary."""

    file: str
    format: str
    new: str = "-"
    units: int = 0
    traces: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    failed: int = 0
    refused: int = 0
    problems: str = ""
    #: The report's warnings, document-level and per unit (`<code>[: <detail>][ (unit <key>)]`).
    warnings: list[str] = field(default_factory=list)
    error: bool = False
    time_s: float = 0.0

    def counts(self) -> list[int]:
        """Return units, traces created, accepted, poor, rejected, failed and refused units."""
        v = self.verdicts
        return [
            self.units,
            self.traces,
            v["accepted"],
            v["poor"],
            v["rejected"],
            self.failed,
            self.refused,
        ]


@app.command()
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Files, or folders read recursively.", exists=True, readable=True),
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="auto, swe-agent, react, openhands, claude-code, codex, aider, terminal, adr or text.",
        ),
    ] = "auto",
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="Namespace written to.")
    ] = "default",
    actor: Annotated[
        str, typer.Option("--actor", help="Actor name recorded on every write.")
    ] = "cli",
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude",
            "-x",
            help="Skip files whose name or path under a folder matches this glob "
            "(`SOURCE.md`, `*.md`, `docs/*`); repeatable.",
        ),
    ] = None,
) -> None:
    """Ingest handed-in material (origin `ingestion`) and print a summary per file.

    Each file is one source and each of its units one transaction. Re-ingesting a file creates
    nothing and retries only its failed units. The report's warnings (skipped JSON Lines, a
    fall-back to text, ...) are listed after the table. Exit code 1 when a file or a unit
    failed, 2 on bad usage (unknown format, bad namespace, nothing to ingest).
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.table import Table

    from service.container import build_services
    from service.domain.ingestion.formats import FORMATS
    from service.errors import RationaleError

    console = output_console()
    if fmt not in ("auto", *FORMATS):
        console.print(
            f"[red]unknown format {fmt!r}[/red]; expected auto or one of {', '.join(FORMATS)}"
        )
        raise typer.Exit(2)
    if not is_namespace(namespace):
        console.print(f"[red]invalid namespace {namespace!r}[/red]: {NAMESPACE_RULE}")
        raise typer.Exit(2)
    files = expand(paths, exclude or [])
    if not files:
        # A usage error (exit code 2, as a bad format or namespace): scripts must notice.
        console.print(
            "[red]no files to ingest[/red] (empty folders, only hidden or excluded files)"
        )
        raise typer.Exit(2)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        services = build_services(settings_or_exit())
    except RationaleError as exc:
        cannot_start(exc)

    limit = services.settings.max_ingest_bytes
    sizes = {f: f.stat().st_size for f in files}
    show = len(files) >= PROGRESS_MIN_FILES or max(sizes.values()) >= PROGRESS_MIN_BYTES
    base = Path(os.path.commonpath([f.resolve().parent for f in files]))
    rows: list[_IngestRow] = []
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not show,
    )
    try:
        with progress:
            overall = progress.add_task("files", total=len(files))
            for path in files:
                started = time.monotonic()
                row = _IngestRow(file=path.resolve().relative_to(base).as_posix(), format=fmt)
                task = progress.add_task(f"  {path.name[:40]} (units)", total=None)

                def on_progress(done: int, total: int, task: TaskID = task) -> None:
                    progress.update(task, completed=done, total=total)

                try:
                    if sizes[path] > limit:
                        raise TooLargeError(f"{sizes[path]} bytes, the ingest limit is {limit}")
                    content = decode(path.read_bytes())
                    report = services.ingestion.ingest(
                        namespace, actor, content, fmt, path.name, progress=on_progress
                    )
                except RationaleError as exc:
                    row.error = True
                    row.problems = f"{exc.code}: {exc.message}"
                else:
                    row.format = report["format"]
                    row.new = "yes" if report["new"] else "no"
                    row.units = len(report["units"])
                    row.traces = report["created"].get("reasoning", 0)
                    row.verdicts = Counter(str(q["verdict"]) for q in report["quality"])
                    row.failed = report["chunks"]["failed"]
                    row.refused = report["chunks"]["refused"]
                    row.problems = "; ".join(
                        f"{u['key']}: {u['error']}" for u in report["units"] if u["status"] != "ok"
                    )[:300]
                    row.warnings = [
                        ": ".join(filter(None, (w["code"], w.get("detail"))))
                        + ("" if w["unit"] is None else f" (unit {w['unit']})")
                        for w in report["warnings"]
                    ]
                    if row.warnings:
                        many = len(row.warnings)
                        note = f"{many} warning{'s' if many > 1 else ''} (below)"
                        row.problems = f"{row.problems}; {note}" if row.problems else note
                row.time_s = time.monotonic() - started
                rows.append(row)
                progress.remove_task(task)
                progress.advance(overall)
    finally:
        services.close()

    headers = ["units", "traces created", "accepted", "poor", "rejected", "failed units", "refused"]
    table = Table(
        title=f"ingest into namespace {namespace!r} (origin ingestion), files under {base}"
    )
    for name in ["file", "format", "new", *headers, "time (s)", "problems"]:
        table.add_column(
            name, justify="left" if name in ("file", "format", "new", "problems") else "right"
        )
    totals = [0] * len(headers)
    for r in rows:
        counts = r.counts()
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        style = "red" if r.error else ("yellow" if r.failed else None)
        # A file whose attempt stopped (e.g. Neo4j went away) has no report: its counts are
        # unknown, not 0 (trial 13: "units 0, failed 0" for a file half written).
        shown = ["-"] * len(counts) if r.error else [str(c) for c in counts]
        table.add_row(r.file, r.format, r.new, *shown, f"{r.time_s:.1f}", r.problems, style=style)
    table.add_section()
    table.add_row(
        f"total ({len(rows)} files)",
        "",
        "",
        *map(str, totals),
        f"{sum(r.time_s for r in rows):.1f}",
        "",
    )
    console.print(table)
    # One line per warning, after the table: never cut to the column's width, and greppable
    # when piped. Warnings leave the exit code alone (0 unless a file or a unit failed).
    for r in rows:
        for warning in r.warnings:
            console.print(
                f"warning: {r.file}: {warning}", markup=False, highlight=False, soft_wrap=True
            )
    if any(r.error or r.failed for r in rows):
        raise typer.Exit(1)


def service_url(value: str) -> str:
    """Check `--url`: an http(s) URL with a host (else every later tool call failed).

    Raises:
        typer.BadParameter: anything else (exit code 2, the reason on stderr).
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018 (a port out of range or not a number raises here)
    except ValueError as exc:
        raise typer.BadParameter(f"{value!r} is not a URL: {exc}") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise typer.BadParameter(
            f"{value!r} is not an http(s) URL with a host, e.g. http://127.0.0.1:8000"
        )
    return value.strip()


@app.command()
def mcp(
    url: Annotated[
        str,
        typer.Option(
            envvar="RATIONALE_URL",
            help="The Rationale service to proxy to.",
            callback=service_url,
        ),
    ] = "http://127.0.0.1:8000",
    key: Annotated[
        str | None,
        typer.Option(envvar="RATIONALE_API_KEY", help="API key (its namespace and scopes apply)."),
    ] = None,
) -> None:
    """Serve the MCP tools on stdio for an agent host, proxied to the service over REST."""
    import anyio

    from service.mcp.stdio import serve_stdio

    anyio.run(serve_stdio, url, key)


app.command()(memory_commands.outcome)
app.command()(memory_commands.precedents)
app.command()(memory_commands.remember)

if __name__ == "__main__":
    app()
