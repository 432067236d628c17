"""Run a Cypher file from cypher/ against NEO4J_URI and print what it returns (scripts/cypher).

A file's header lists its parameters as Neo4j Browser does: `// :param name => <cypher expr>`.
Each expression is evaluated by the server (`RETURN <expr> AS v`, with the parameters before it
available as `$name`), then every statement of the file (split on `;`) runs with those parameters.
`--param name=<cypher expr>` overrides or adds one.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase, Query
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable
from neo4j.graph import Node, Relationship
from neo4j.graph import Path as GraphPath
from rich.console import Console
from rich.table import Table
from rich.text import Text

PARAM_LINE = re.compile(r"^\s*//\s*:param\s+`?([A-Za-z_][A-Za-z0-9_]*)`?\s*=>\s*(.+?)\s*;?\s*$")
LIST_SHOWN = 8
TEXT_SHOWN = 300

console = Console()


def header_params(text: str) -> dict[str, str]:
    """The `// :param name => expr` lines of a file, in order."""
    params: dict[str, str] = {}
    for line in text.splitlines():
        match = PARAM_LINE.match(line)
        if match:
            params[match.group(1)] = match.group(2)
    return params


def split_statements(text: str) -> Iterator[str]:
    """Split on `;` outside strings, quoted names and comments; skip comment-only pieces."""
    start = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in "'\"`":
            i += 1
            while i < n and text[i] != c:
                i += 2 if text[i] == "\\" and c != "`" else 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 1
        elif c == ";":
            yield from _statement(text[start:i])
            start = i + 1
        i += 1
    yield from _statement(text[start:])


def _statement(piece: str) -> Iterator[str]:
    code = re.sub(r"/\*.*?\*/", "", piece, flags=re.DOTALL)
    code = re.sub(r"^\s*//.*$", "", code, flags=re.MULTILINE)
    if code.strip():
        yield piece.strip()


def show(value: Any, full: bool = False) -> str:
    """A compact, readable rendering of one returned value."""
    if value is None:
        return "null"
    if isinstance(value, Node):
        labels = "".join(f":{label}" for label in sorted(value.labels))
        return f"({labels} {show(dict(value), full)})"
    if isinstance(value, Relationship):
        return f"[:{value.type} {show(dict(value), full)}]"
    if isinstance(value, GraphPath):
        parts = [show(value.start_node, full)]
        for rel in value.relationships:
            parts.append(f"-{show(rel, full)}->{show(rel.end_node, full)}")
        return "".join(parts)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {show(v, full)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        items = value if full or len(value) <= LIST_SHOWN else value[:3]
        shown = ", ".join(show(v, full) for v in items)
        if len(items) < len(value):
            shown += f", ... ({len(value)} items)"
        return f"[{shown}]"
    if isinstance(value, float):
        text = f"{value:.6g}"
        return text if any(c in text for c in ".ein") else text + ".0"
    if isinstance(value, str):
        text = value if full or len(value) <= TEXT_SHOWN else value[:TEXT_SHOWN] + "..."
        return text
    if hasattr(value, "iso_format"):
        return str(value.iso_format())
    return str(value)


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/cypher", description=__doc__.splitlines()[0])
    parser.add_argument(
        "file", type=Path, help="a .cypher file, e.g. cypher/retrieval/recall.cypher"
    )
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=EXPR",
        help="set a parameter to a Cypher expression (overrides the header)",
    )
    parser.add_argument("-d", "--database", default=os.environ.get("NEO4J_DATABASE", "neo4j"))
    parser.add_argument("--full", action="store_true", help="do not shorten long lists and strings")
    args = parser.parse_args()

    path: Path = args.file
    if not path.is_file():
        candidate = Path(__file__).resolve().parent.parent / "cypher" / path
        if not candidate.is_file():
            parser.error(f"no such file: {path}")
        path = candidate
    text = path.read_text(encoding="utf-8")
    exprs = header_params(text)
    for item in args.param:
        name, sep, expr = item.partition("=")
        if not sep or not name.strip():
            parser.error(f"--param wants NAME=EXPR, got {item!r}")
        exprs[name.strip()] = expr.strip()

    uri = os.environ.get("NEO4J_URI", "bolt://127.0.0.1:7687")
    auth = (os.environ.get("NEO4J_USERNAME", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))
    try:
        with (
            GraphDatabase.driver(uri, auth=auth) as driver,
            driver.session(database=args.database) as session,
        ):
            params: dict[str, Any] = {}
            for name, expr in exprs.items():
                record = session.run(Query(f"RETURN {expr} AS v"), params).single(strict=True)
                params[name] = record["v"]
            if params:
                table = Table(title="parameters", title_justify="left")
                table.add_column("name")
                table.add_column("value")
                for name, value in params.items():
                    table.add_row(Text(name), Text(show(value, args.full)))
                console.print(table)
            for number, statement in enumerate(split_statements(text), start=1):
                started = time.monotonic()
                result = session.run(Query(statement), params)
                keys = result.keys()
                records = list(result)
                summary = result.consume()
                took = (time.monotonic() - started) * 1000
                if keys:
                    table = Table(title=f"statement {number}", title_justify="left")
                    for key in keys:
                        table.add_column(Text(key))
                    for record in records:
                        table.add_row(*(Text(show(record[key], args.full)) for key in keys))
                    console.print(table)
                counters = {
                    k: v for k, v in vars(summary.counters).items() if v and not k.startswith("_")
                }
                tail = f", {counters}" if counters else ""
                console.print(
                    Text(
                        f"statement {number}: {len(records)} rows, {took:.0f} ms{tail}", style="dim"
                    )
                )
    except AuthError as exc:
        print(f"error: {uri} rejected the credentials: {exc.message}", file=sys.stderr)
        return 1
    except ServiceUnavailable as exc:
        print(f"error: no Neo4j at {uri} ({exc}); try scripts/neo4j start", file=sys.stderr)
        return 1
    except Neo4jError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
