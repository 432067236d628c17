"""Rationale benchmarks: one module per benchmark, each a subcommand of `python -m bench`."""
