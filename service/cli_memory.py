"""The `rationale` commands on decisions and memories: outcome, precedents, remember (JSON Lines).

Registered on the `rationale` app by `service.cli`; each opens the services in process, as the
ingest and maintenance commands do.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from service.cli_settings import cannot_start, settings_or_exit
from service.namespaces import NAMESPACE_RULE, is_namespace

if TYPE_CHECKING:
    from service.container import Services


def _json_out(value: Any) -> None:
    """Print a domain result (a dataclass) as JSON, the one place the commands write JSON.

    Values are serialised as the API's responses are (pydantic): times as ISO 8601 with `T`
    and `Z` (`2026-12-05T00:42:39.326839Z`), not `str(datetime)`'s `... 00:42:39+00:00`.
    """
    import json
    from dataclasses import asdict

    from pydantic_core import to_jsonable_python
    from rich.console import Console

    Console().print_json(json.dumps(to_jsonable_python(asdict(value), fallback=str)))


def _services_or_exit() -> Services:
    from service.container import build_services
    from service.errors import RationaleError

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return build_services(settings_or_exit())
    except RationaleError as exc:
        cannot_start(exc)


def outcome(
    decision_id: Annotated[str, typer.Argument(help="The decision's memory_id.")],
    result: Annotated[str, typer.Argument(help="success, failure or mixed.")],
    content: Annotated[str, typer.Argument(help="What was observed.")],
    observed_at: Annotated[
        str | None, typer.Option(help="When it was observed (ISO 8601 with offset).")
    ] = None,
    cite: Annotated[
        list[str] | None, typer.Option(help="memory_id of evidence (repeatable).")
    ] = None,
    namespace: Annotated[str, typer.Option("--namespace", "-n", help="Namespace.")] = "default",
    actor: Annotated[str, typer.Option("--actor", help="Who records it.")] = "cli",
) -> None:
    """Record an outcome of a decision (origin `user`, as through the API) and print it as JSON.

    A failure or mixed outcome makes an active decision `challenged`. Exit code 2 on bad input
    (unknown decision, not a decision, bad result or time), 1 when Neo4j or the model fails.
    """
    from pydantic import TypeAdapter, ValidationError

    from service.domain.memories import Writer
    from service.domain.outcomes import NewOutcome
    from service.errors import InvalidInputError, NotFoundError, RationaleError
    from service.origins import Origin
    from service.schemas import UtcDatetime

    try:
        when = TypeAdapter(UtcDatetime).validate_python(observed_at) if observed_at else None
    except ValidationError as exc:
        typer.echo(f"--observed-at: {exc.errors()[0]['msg']}", err=True)
        raise typer.Exit(2) from exc
    services = _services_or_exit()
    try:
        recorded = services.outcomes.record(
            Writer(namespace=namespace, origin=Origin.USER, actor=actor),
            decision_id,
            NewOutcome(result=result, content=content, observed_at=when, cites=tuple(cite or ())),
        )
    except RationaleError as exc:
        typer.echo(f"{exc.message} ({exc.code})", err=True)
        bad = isinstance(exc, InvalidInputError | NotFoundError)
        raise typer.Exit(2 if bad else 1) from exc
    finally:
        services.close()
    _json_out(recorded)


def precedents(
    situation: Annotated[str, typer.Argument(help="The situation at hand.")],
    limit: Annotated[int, typer.Option(help="Max precedents, 1..100.")] = 5,
    namespace: Annotated[str, typer.Option("--namespace", "-n", help="Namespace.")] = "default",
) -> None:
    """Print the past decisions resembling a situation (reasoning, outcome record) as JSON."""
    from service.domain.precedents import PrecedentRequest
    from service.errors import InvalidInputError, RationaleError

    services = _services_or_exit()
    try:
        result = services.precedents.find(
            namespace, PrecedentRequest(situation=situation, limit=limit)
        )
    except RationaleError as exc:
        typer.echo(f"{exc.message} ({exc.code})", err=True)
        raise typer.Exit(2 if isinstance(exc, InvalidInputError) else 1) from exc
    finally:
        services.close()
    _json_out(result)


def remember(
    path: Annotated[
        Path,
        typer.Argument(help="JSON Lines file (one memory body per line), or - for stdin."),
    ],
    namespace: Annotated[str, typer.Option("--namespace", "-n", help="Namespace.")] = "default",
    actor: Annotated[str, typer.Option("--actor", help="Who writes (unless a line says).")] = "cli",
) -> None:
    """Create many memories from a JSON Lines file, in batches (origin `user`, as the API).

    Each line is a body of `POST /v1/memories` (`{"kind": "fact", "content": ...}`). Every line
    is checked before anything is written; the memories are then written in batches of
    RATIONALE_MAX_BATCH_ITEMS, each batch one embedding call and one transaction (all or
    nothing), exactly as `POST /v1/memories/batch`. Prints what was created and what existed.
    `-` reads standard input. A UTF-8 BOM and CRLF line ends are accepted (as `ingest` does).
    Exit code 2 on bad input (every line at fault is named), 1 when Neo4j or the model fails.
    """
    import json

    from pydantic import ValidationError

    from service.domain.memories import Writer
    from service.domain.memories.batch import create_many
    from service.domain.memories.batch_checks import BatchItem
    from service.domain.models import NewMemory
    from service.errors import InvalidInputError, PositionTaken, RationaleError, TooLargeError
    from service.json_types import strict_loads
    from service.origins import Origin
    from service.schemas import MemoryCreate

    if not is_namespace(namespace):
        typer.echo(f"--namespace: {NAMESPACE_RULE}", err=True)
        raise typer.Exit(2)
    items: list[BatchItem] = []
    lines: list[int] = []
    stdin = str(path) == "-"
    name = "<stdin>" if stdin else str(path)
    try:
        raw = typer.get_binary_stream("stdin").read() if stdin else path.read_bytes()
        # utf-8-sig drops a leading BOM (an editor's on Windows), which json.loads refuses.
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        typer.echo(f"{name}: {exc}", err=True)
        raise typer.Exit(2) from exc
    # Lines end at \n only (a CR before it is dropped): str.splitlines would also cut a line
    # at a U+2028 or U+0085 inside a JSON string, which JSON allows unescaped.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            body = MemoryCreate.model_validate(strict_loads(line))
        except json.JSONDecodeError as exc:
            typer.echo(f"{name}:{number}: {exc}", err=True)
            raise typer.Exit(2) from exc
        except ValidationError as exc:
            # One line per problem, as the API's 422 names them (pydantic's own text ends
            # with a link to its documentation: trial 17).
            for problem in exc.errors():
                where = ".".join(str(p) for p in problem["loc"]) or "line"
                typer.echo(f"{name}:{number}: {where}: {problem['msg']}", err=True)
            raise typer.Exit(2) from exc
        writer = Writer(namespace=namespace, origin=Origin.USER, actor=body.actor or actor)
        items.append(
            BatchItem(writer=writer, memory=NewMemory(**body.model_dump(exclude={"actor"})))
        )
        lines.append(number)
    if not items:
        typer.echo(f"{name}: no memories", err=True)
        raise typer.Exit(2)
    services = _services_or_exit()
    size = services.settings.max_batch_items
    created = existing = 0
    try:
        for at in range(0, len(items), size):
            try:
                outcomes = create_many(services.memories, items[at : at + size], size)
            except (InvalidInputError, TooLargeError, PositionTaken) as exc:
                # One line per problem, each at its line of the file (`errors`: every item).
                for problem in exc.extra.get("errors") or [exc.extra]:
                    index = problem.get("index")
                    where = f"{name}:{lines[at + index]}" if isinstance(index, int) else name
                    message = problem.get("detail", exc.message)
                    typer.echo(f"{where}: {message} ({problem.get('code', exc.code)})", err=True)
                raise typer.Exit(2) from exc
            created += sum(o.created for o in outcomes)
            existing += sum(not o.created for o in outcomes)
    except RationaleError as exc:
        typer.echo(f"{exc.message} ({exc.code})", err=True)
        raise typer.Exit(1) from exc
    finally:
        services.close()
    typer.echo(f"{created} created, {existing} existed already ({len(items)} lines)")
