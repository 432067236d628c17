"""The command line's settings: a bad environment value is one clear line and exit code 2."""

from __future__ import annotations

import difflib
import json
import os
import sys
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from pydantic import SecretStr, ValidationError
from pydantic_core import to_jsonable_python

from service.errors import RationaleError
from service.settings import Settings, get_settings

if TYPE_CHECKING:
    from rich.console import Console

#: Exit code of a command whose settings are invalid (as typer's for bad usage).
BAD_SETTINGS_EXIT = 2
#: Words that mark a variable whose value (or whose keys, for a map) is a secret.
SECRET_WORDS = ("KEY", "PASSWORD", "SECRET", "TOKEN")


#: Prefix of the service's own variables (`Settings`) and of those its tools read.
PREFIX = "RATIONALE_"
#: `RATIONALE_*` variables read by something other than `Settings`: the Python client and
#: `rationale` memory commands (`URL`, `API_KEY`), the benchmarks (`CORPUS`, `LOCOMO_DIR`), and
#: the report scripts' re-exec guards.
OTHER_VARIABLES = frozenset(
    {
        "RATIONALE_URL",
        "RATIONALE_API_KEY",
        "RATIONALE_CORPUS",
        "RATIONALE_LOCOMO_DIR",
        "RATIONALE_GATE_REPORT_REEXEC",
        "RATIONALE_INGEST_REPORT_REEXEC",
    }
)


def unknown_variables(
    environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
) -> list[tuple[str, str | None]]:
    """Return the `RATIONALE_*` names set but read by nothing, each with its likeliest meaning.

    A misspelt setting (`RATIONALE_EMBEDING_THREADS=2`) is otherwise ignored without a word
    (`extra="ignore"`: the environment also carries other programs' variables).

    Args:
        environ: the variables to check (default `os.environ`).
        env_file: a `.env` file whose names are checked too (as `Settings` reads it), or None.

    Returns:
        `(name, suggestion)` pairs sorted by name; `suggestion` is the name without the prefix
        when that is a setting (`RATIONALE_NEO4J_URI` -> `NEO4J_URI`), else the closest known
        name (`difflib`, ratio >= 0.8), or None.
    """
    names = set(os.environ if environ is None else environ)
    if env_file is not None and env_file.is_file():
        from dotenv import dotenv_values

        names |= set(dotenv_values(env_file))
    known = {str(f.validation_alias) for f in Settings.model_fields.values()} | OTHER_VARIABLES
    unknown = sorted(n for n in names if n.upper().startswith(PREFIX) and n.upper() not in known)

    def meant(name: str) -> str | None:
        # A setting without the prefix (NEO4J_URI) given with it (RATIONALE_NEO4J_URI).
        bare = name.upper().removeprefix(PREFIX)
        if bare in known:
            return bare
        return next(iter(difflib.get_close_matches(name.upper(), known, 1, 0.8)), None)

    return [(n, meant(n)) for n in unknown]


def _secret_variables() -> frozenset[str]:
    """Return the names (aliases) of the settings never to echo: secrets and key maps."""
    names = set()
    for name, info in Settings.model_fields.items():
        alias = str(info.validation_alias or name).upper()
        annotation = info.annotation
        typed_secret = annotation is SecretStr or SecretStr in typing.get_args(annotation)
        if typed_secret or any(word in alias for word in SECRET_WORDS):
            names.add(alias)
    return frozenset(names)


def describe(error: dict[str, Any], secrets: frozenset[str]) -> str:
    """Return one line for one pydantic error of `Settings`.

    The line names the variable (the first part of the error's location: a deeper part can be
    an API key, so it is never shown) and gives the value only for a plain, non-secret
    variable; an error of the whole settings (a `model_validator`) names its variable in its
    message and shows no value (its input is every setting, passwords included).
    """
    loc = [str(part) for part in error.get("loc", ())]
    message = str(error["msg"]).removeprefix("Value error, ")
    if not loc:
        return f"invalid settings: {message}"
    name = loc[0]
    shown = len(loc) == 1 and name.upper() not in secrets and "input" in error
    given = f" (given {error['input']!r})" if shown else ""
    return f"invalid setting {name}: {message}{given}"


def settings_or_exit() -> Settings:
    """Return the process settings (`get_settings`); exit with code 2 when a value is invalid.

    Each invalid value is reported on its own line on stderr (`describe`): named as it is set
    (`RATIONALE_RETRIEVAL_VECTOR_DEPTH`, ...), with pydantic's reason and, unless it is a
    secret, the value given; instead of a traceback through pydantic-settings.

    A `RATIONALE_*` variable that nothing reads (`unknown_variables`, usually a misspelt
    setting) is named in a warning line, with the likeliest meant name.

    Raises:
        typer.Exit: code `BAD_SETTINGS_EXIT`, after the lines are written.
    """
    for name, meant in unknown_variables():
        hint = f"; did you mean {meant}?" if meant else ""
        typer.echo(f"warning: {name} is not a Rationale setting and is ignored{hint}", err=True)
    try:
        return get_settings()
    except ValidationError as exc:
        secrets = _secret_variables()
        for error in exc.errors():
            typer.echo(describe(dict(error), secrets), err=True)
        raise typer.Exit(BAD_SETTINGS_EXIT) from None


def _default_cache_dir() -> Path:
    from service.onnx_encoder import default_cache_dir

    return default_cache_dir()


#: What an unset (None) setting means, for the settings whose None stands for a computed value.
UNSET_MEANS: dict[str, Callable[[], Any]] = {"embedding_cache_dir": _default_cache_dir}


def shown_value(name: str, value: Any) -> str:
    """Return a setting's value as `rationale settings` prints it: as it could be set again.

    Args:
        name: the `Settings` field name.
        value: its value (not a secret: those are never passed).

    Returns:
        The effective value of an unset setting with a computed default (`UNSET_MEANS`: the
        ONNX cache folder); compact JSON for a structured one (maps and lists, read back as
        JSON by `Settings`); `str(value)` otherwise.
    """
    if value is None and name in UNSET_MEANS:
        value = UNSET_MEANS[name]()
    if isinstance(value, dict | list | tuple | set | frozenset):
        return json.dumps(to_jsonable_python(value), ensure_ascii=False, separators=(",", ":"))
    return str(value)


def show(
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="Only check: print nothing when every value is valid."
    ),
) -> None:
    """Check the settings (environment and `.env`) and print the value of each, secrets hidden.

    Each line is `NAME=value` with the effective value (`shown_value`: an unset cache folder as
    the folder used, maps and lists as JSON), so a line can be pasted back into `.env`.

    Exit code 2 with one line per invalid value, as every command (`settings_or_exit`).
    """
    settings = settings_or_exit()
    if quiet:
        return
    secrets = _secret_variables()
    for name, info in Settings.model_fields.items():
        alias = str(info.validation_alias or name)
        value = getattr(settings, name)
        if alias.upper() in secrets and value is not None:
            shown = f"({len(value)} set)" if isinstance(value, dict) else "(set, hidden)"
        else:
            shown = shown_value(name, value)
        typer.echo(f"{alias}={shown}")


def cannot_start(exc: RationaleError) -> NoReturn:
    """Write `cannot start: <message> (<code>)` as one line on stderr and exit with code 1.

    The message's own line breaks (the driver's connection errors have some) become spaces,
    and the line is not wrapped to the terminal's width.

    Raises:
        typer.Exit: code 1.
    """
    typer.echo(f"cannot start: {' '.join(exc.message.split())} ({exc.code})", err=True)
    raise typer.Exit(1) from exc


def output_console() -> Console:
    """Return the console a command prints tables and reports to.

    On a terminal, its width; piped or redirected (rich's default of 80 columns would cut the
    tables' cells to "..."), 240 columns, or `COLUMNS` when set.
    """
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 240)
