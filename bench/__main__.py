"""`python -m bench <benchmark> [options]` (via `scripts/bench`): one subcommand per benchmark module.

`scripts/bench --quick` / `scripts/bench --full` run the whole suite (`bench/suite.py`): speed and
scale against the floors, and retrieval quality on LoCoMo.

Add a benchmark by writing `bench/<name>.py` with a typer-compatible function and registering it
below with `app.command("<name>")(<module>.main)`.
"""

from __future__ import annotations

import typer

from bench import batch, locomo_service, peer, precedents, soak, suite, tenancy, threads

app = typer.Typer(help="Rationale benchmarks (real Neo4j, real model).", no_args_is_help=True)


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    quick: bool = typer.Option(
        False, "--quick", help="Run the suite's smoke profile: 10k memories, 1 LoCoMo conversation."
    ),
    full: bool = typer.Option(
        False,
        "--full",
        help="Run the full suite: 10k, 100k and 1M memories, all LoCoMo conversations.",
    ),
) -> None:
    """Rationale benchmarks (real Neo4j, real model)."""
    if quick and full:
        raise typer.BadParameter("give --quick or --full, not both")
    if (quick or full) and ctx.invoked_subcommand is not None:
        raise typer.BadParameter("--quick/--full run the suite; give them without a subcommand")
    if quick or full:
        suite.run(suite.PROFILES["full" if full else "quick"])
    elif ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


app.command("batch")(batch.main)
app.command("precedents")(precedents.main)
app.command("suite")(suite.main)
app.command("fill")(tenancy.fill_main)
app.command("peer")(peer.main)
app.command("locomo")(locomo_service.main)
app.command("threads")(threads.main)
app.command("soak")(soak.main)

if __name__ == "__main__":
    app()
