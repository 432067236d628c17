"""Loads and validates the named Cypher files under `cypher/` into a registry.

A file is one statement with a `//` header (the idea of aiosql's named queries):

    // One-sentence purpose.
    // mode: read|write|schema
    // returns: none|one|optional|many|scalar
    // values: plain                       (optional; see `NamedQuery.plain`)
    // :param namespace => 'default'
    MATCH (m:Memory {namespace: $namespace}) ...

The name is the path below `cypher/` without `.cypher` (`memory/get_memory`). Parameters used in
the statement (after stripping comments and string literals, as datasette's
`named_parameters` does) must equal the declared `:param` set.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, LiteralString, cast

from service.errors import CypherFileError

Mode = Literal["read", "write", "schema"]
Returns = Literal["none", "one", "optional", "many", "scalar"]

_PARAM_DECL = re.compile(r"^//\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*$")
_KEY = re.compile(r"^//\s*(mode|returns|values)\s*:\s*(\S+)\s*$")
_PARAM_USE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# Strings and comments in one left-to-right scan, so `//` inside a string and `'` inside a
# comment are both read correctly.
_TOKENS = re.compile(
    r"(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`)|(?P<comment>//[^\n]*|/\*.*?\*/)",
    re.DOTALL,
)


@dataclass(frozen=True)
class NamedQuery:
    """One validated Cypher file.

    Attributes:
        name: path below `cypher/` without the suffix, e.g. `memory/get_memory`.
        purpose: the header's first line.
        mode: `read`, `write` or `schema` (schema statements run in auto-commit).
        returns: result shape the repository asserts.
        params: declared parameter names, equal to those the statement uses.
        examples: `name -> Cypher expression` from the header, for `EXPLAIN` and the Browser.
        text: the whole file (header comments included; Neo4j ignores them).
        plain: the header says `// values: plain`: the rows hold only strings, numbers,
            booleans, nulls and lists and maps of them (no node, relationship, path or
            temporal value), so the repository hands them on as the driver decoded them,
            without the `to_native` walk (a fulltext answer of 210 hits: 0.2-0.37 ms of
            Python against 0.003 ms; a complete round returns up to 1,000).
    """

    name: str
    purpose: str
    mode: Mode
    returns: Returns
    params: frozenset[str]
    examples: dict[str, str]
    text: LiteralString
    plain: bool = False


def strip_code(text: str) -> str:
    """Return `text` with comments and string literals removed (to find `$params` and `;`)."""
    return _TOKENS.sub(lambda m: "''" if m.group("str") else " ", text)


def parse_query(name: str, text: str) -> NamedQuery:
    """Parse and validate one Cypher file.

    Args:
        name: the query's name (path below `cypher/`, no suffix).
        text: the file's text.

    Returns:
        The validated `NamedQuery`.

    Raises:
        CypherFileError: missing purpose, mode or returns; undeclared or unused parameters;
            more than one statement; an empty statement.
    """
    lines = text.splitlines()
    first = lines[0].strip() if lines else ""
    if (
        not first.startswith("//")
        or not first.lstrip("/ ").strip()
        or _KEY.match(first)
        or _PARAM_DECL.match(first)
    ):
        raise CypherFileError(f"{name}: line 1 must be a `//` purpose sentence")
    purpose = lines[0].lstrip("/ ").strip()
    keys: dict[str, str] = {}
    examples: dict[str, str] = {}
    for line in lines:
        if m := _KEY.match(line.strip()):
            keys[m.group(1)] = m.group(2)
        elif m := _PARAM_DECL.match(line.strip()):
            examples[m.group(1)] = m.group(2)
    mode = keys.get("mode")
    returns = keys.get("returns")
    if mode not in ("read", "write", "schema"):
        raise CypherFileError(f"{name}: header needs `// mode: read|write|schema`")
    if returns not in ("none", "one", "optional", "many", "scalar"):
        raise CypherFileError(f"{name}: header needs `// returns: none|one|optional|many|scalar`")
    values = keys.get("values")
    if values not in (None, "plain"):
        raise CypherFileError(f"{name}: `// values:` takes only `plain`")
    code = strip_code(text).strip()
    if not code:
        raise CypherFileError(f"{name}: no statement")
    if ";" in code.rstrip(";"):
        raise CypherFileError(f"{name}: exactly one statement per file (found `;`)")
    if code.endswith(";"):
        raise CypherFileError(f"{name}: no trailing `;`")
    used = set(_PARAM_USE.findall(code))
    declared = set(examples)
    if used != declared:
        missing = sorted(used - declared)
        unused = sorted(declared - used)
        raise CypherFileError(f"{name}: undeclared params {missing}, unused params {unused}")
    return NamedQuery(
        name=name,
        purpose=purpose,
        mode=cast(Mode, mode),
        returns=cast(Returns, returns),
        params=frozenset(used),
        examples=examples,
        # Repository-controlled text read from our own folder, never user input.
        text=text,  # repository-controlled text, never user input (mypy: LiteralString is str)
        plain=values == "plain",
    )


#: Folders below `cypher/` holding dev-only queries (benchmarks, Browser examples): never part of
#: the service's registry; `QueryRegistry.dev` loads them.
DEV_FOLDERS: tuple[str, ...] = ("bench", "browser")


class QueryRegistry:
    """The named queries of a `cypher/` folder (or some of its folders), validated once."""

    def __init__(self, queries: dict[str, NamedQuery]) -> None:
        self._queries = queries

    @classmethod
    def load(
        cls,
        root: Path,
        *,
        only: Sequence[str] | None = None,
        exclude: Sequence[str] = (),
    ) -> QueryRegistry:
        """Load the `*.cypher` files below `root`, or below some of its top-level folders.

        Args:
            root: the `cypher/` folder.
            only: load only these top-level folders (e.g. `("bench",)`); None = every folder.
            exclude: skip these top-level folders (e.g. `DEV_FOLDERS`).

        Returns:
            The registry.

        Raises:
            CypherFileError: the folder is missing or any loaded file is invalid (all errors
                listed).
        """
        if not root.is_dir():
            raise CypherFileError(f"cypher folder not found: {root}")
        queries: dict[str, NamedQuery] = {}
        errors: list[str] = []
        for path in sorted(root.rglob("*.cypher")):
            name = path.relative_to(root).with_suffix("").as_posix()
            folder = name.split("/", 1)[0]
            if (only is not None and folder not in only) or folder in exclude:
                continue
            try:
                queries[name] = parse_query(name, path.read_text(encoding="utf-8"))
            except CypherFileError as exc:
                errors.append(exc.message)
        if errors:
            raise CypherFileError("invalid Cypher files:\n" + "\n".join(errors))
        return cls(queries)

    @classmethod
    def production(cls, root: Path) -> QueryRegistry:
        """Load the service's queries: every folder but `DEV_FOLDERS` (names are `QueryName`s).

        Raises:
            CypherFileError: see `load`.
        """
        return cls.load(root, exclude=DEV_FOLDERS)

    @classmethod
    def dev(cls, root: Path) -> QueryRegistry:
        """Load only the dev-only queries of `DEV_FOLDERS` (names are `DevQueryName`s).

        Raises:
            CypherFileError: see `load`.
        """
        return cls.load(root, only=DEV_FOLDERS)

    def __getitem__(self, name: str) -> NamedQuery:
        """Return the query called `name`.

        Raises:
            KeyError: no such file (a programming error).
        """
        return self._queries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._queries

    def __iter__(self) -> Iterator[NamedQuery]:
        return iter(self._queries.values())

    def __len__(self) -> int:
        return len(self._queries)

    def schema(self) -> list[NamedQuery]:
        """Return the `schema/` statements in file order (`NNN_name`)."""
        return sorted(
            (q for q in self._queries.values() if q.name.startswith("schema/")),
            key=lambda q: q.name,
        )
