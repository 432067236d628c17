"""The command line's settings: a bad environment value is one clear line and exit code 2."""

from __future__ import annotations

import typer
from pydantic import ValidationError

from service.settings import Settings, get_settings

#: Exit code of a command whose settings are invalid (as typer's for bad usage).
BAD_SETTINGS_EXIT = 2


def settings_or_exit() -> Settings:
    """Return the process settings (`get_settings`); exit with code 2 when a value is invalid.

    Each invalid value is reported on its own line on stderr, named as it is set
    (`RATIONALE_RETRIEVAL_VECTOR_DEPTH`, ...) with pydantic's reason and the value given,
    instead of a traceback through pydantic-settings.

    Raises:
        typer.Exit: code `BAD_SETTINGS_EXIT`, after the lines are written.
    """
    try:
        return get_settings()
    except ValidationError as exc:
        for error in exc.errors():
            name = ".".join(str(part) for part in error["loc"]) or "settings"
            given = f" (given {error['input']!r})" if "input" in error else ""
            typer.echo(f"invalid setting {name}: {error['msg']}{given}", err=True)
        raise typer.Exit(BAD_SETTINGS_EXIT) from None
