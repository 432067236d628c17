"""Applies `cypher/schema/*.cypher`, upgrading indexes whose definition changed, and waits ONLINE."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from neo4j import Query

from service.errors import GraphUnavailableError, SchemaError
from service.graph.cypher import NamedQuery, strip_code
from service.graph.query_names import QueryName
from service.graph.repository import Graph, translate_errors

log = logging.getLogger(__name__)

DEFAULT_ONLINE_TIMEOUT_S = 600.0
#: The default model's dimension (all-MiniLM-L6-v2); the service passes its model's own.
DEFAULT_EMBEDDING_DIM = 384

# `[CYPHER 25] CREATE [VECTOR|FULLTEXT|RANGE|TEXT|POINT] INDEX name IF NOT EXISTS FOR (v:Labels)
#  ON <properties> [WITH [v.a, ...]] [OPTIONS {...}]`, comments and strings already stripped.
_CREATE_INDEX = re.compile(
    r"^\s*(?:CYPHER\s+\d+\s+)?CREATE\s+(?:(?P<type>VECTOR|FULLTEXT|RANGE|TEXT|POINT)\s+)?INDEX\s+"
    r"`?(?P<name>\w+)`?\s+IF\s+NOT\s+EXISTS\s+FOR\s+\(\s*(?P<var>\w+)\s*:\s*(?P<labels>[^)]+)\)\s+"
    r"ON\s+(?P<on>.+?)(?:\s+WITH\s+\[(?P<with>[^\]]*)\])?(?:\s+OPTIONS\s+\{.*\})?\s*$",
    re.IGNORECASE | re.DOTALL,
)
# One `` `key`: value `` pair of `indexConfig` (value: a quoted string, number or boolean).
_CONFIG_PAIR = re.compile(
    r"`(?P<key>[^`]+)`\s*:\s*(?P<value>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|true|false|-?\d+(?:\.\d+)?)",
    re.IGNORECASE,
)
_INDEX_CONFIG = re.compile(r"indexConfig\s*:\s*\{(?P<body>[^{}]*)\}", re.IGNORECASE)


@dataclass(frozen=True)
class IndexState:
    """One index as `SHOW INDEXES` reports it."""

    name: str
    type: str
    state: str
    population_percent: float


@dataclass(frozen=True)
class IndexDefinition:
    """What defines an index, as a schema file declares it or `SHOW INDEXES` reports it.

    Attributes:
        name: the index name.
        type: `VECTOR`, `FULLTEXT`, `RANGE`, `TEXT` or `POINT`.
        labels: the labels (or relationship types) it covers.
        properties: the indexed properties in order; for a vector index, the vector property
            followed by its filter properties (`WITH [m.namespace, ...]`).
        config: `indexConfig` entries; a declared definition holds only the keys its file sets.
    """

    name: str
    type: str
    labels: tuple[str, ...]
    properties: tuple[str, ...]
    config: dict[str, object] = field(default_factory=dict)

    def differences(self, existing: IndexDefinition) -> list[str]:
        """Return how `existing` (on the server) departs from this declared definition.

        Only the `indexConfig` keys declared here are compared (the server adds its defaults);
        strings compare case-insensitively (`'cosine'` is stored as `'COSINE'`).

        Returns:
            One `what: server value != file value` line per difference; empty when they agree.
        """
        diffs = [
            f"{what}: {theirs!r} != {ours!r}"
            for what, theirs, ours in (
                ("type", existing.type, self.type),
                ("labels", existing.labels, self.labels),
                ("properties", existing.properties, self.properties),
            )
            if theirs != ours
        ]
        for key, ours in self.config.items():
            theirs = existing.config.get(key)
            if _normalise(theirs) != _normalise(ours):
                diffs.append(f"{key}: {theirs!r} != {ours!r}")
        return diffs


def _normalise(value: object) -> object:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    return str(value).upper()


def _config_value(text: str) -> object:
    if text[0] in "'\"":
        return text[1:-1]
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return float(text) if "." in text else int(text)


def declared_index(query: NamedQuery) -> IndexDefinition | None:
    """Return the index a schema file creates, or None for a constraint or other statement.

    Args:
        query: a `schema/` file.

    Returns:
        The declared definition (type `RANGE` when the statement names none).

    Raises:
        SchemaError: the file creates an index without a name or without `IF NOT EXISTS`.
    """
    code = strip_code(query.text).strip()
    if not re.match(r"^(?:CYPHER\s+\d+\s+)?CREATE\s+(?:\w+\s+)?INDEX\b", code, re.IGNORECASE):
        return None
    # strip_code blanks string literals; read the labels and properties from it, the config
    # (which holds strings) from the statement with only its comments removed.
    m = _CREATE_INDEX.match(code)
    if m is None:
        raise SchemaError(
            f"{query.name}: an index statement must read CREATE [type] INDEX <name> IF NOT "
            f"EXISTS FOR (v:Label) ON ... [WITH [...]] [OPTIONS {{...}}]"
        )
    var = m.group("var")
    prop = re.compile(rf"\b{re.escape(var)}\s*\.\s*`?(\w+)`?")
    properties = prop.findall(m.group("on")) + prop.findall(m.group("with") or "")
    labels = tuple(label.strip(" `") for label in m.group("labels").split("|"))
    config: dict[str, object] = {}
    text = "\n".join(line for line in query.text.splitlines() if not line.lstrip().startswith("//"))
    if cm := _INDEX_CONFIG.search(text):
        config = {
            p.group("key"): _config_value(p.group("value"))
            for p in _CONFIG_PAIR.finditer(cm.group("body"))
        }
    return IndexDefinition(
        name=m.group("name"),
        type=(m.group("type") or "RANGE").upper(),
        labels=labels,
        properties=tuple(properties),
        config=config,
    )


def index_definitions(graph: Graph) -> dict[str, IndexDefinition]:
    """Return every index of the database by name, as the server reports it."""
    rows = graph.run(QueryName.SCHEMA_STATE_LIST_INDEX_DEFINITIONS, {})
    return {
        r["name"]: IndexDefinition(
            name=r["name"],
            type=r["type"],
            labels=tuple(r["labels"] or ()),
            properties=tuple(r["properties"] or ()),
            config=dict(r["config"] or {}),
        )
        for r in rows
    }


def outdated_indexes(graph: Graph) -> dict[str, list[str]]:
    """Return the schema files' indexes that exist on the server with another definition.

    Returns:
        Index name -> its differences (`IndexDefinition.differences`); empty when all agree.
    """
    existing = index_definitions(graph)
    outdated = {}
    for query in graph.registry.schema():
        declared = declared_index(query)
        if declared is None or declared.name not in existing:
            continue
        if diffs := declared.differences(existing[declared.name]):
            outdated[declared.name] = diffs
    return outdated


def run_schema_statement(
    graph: Graph, query: NamedQuery, values: Mapping[str, object] | None = None
) -> None:
    """Run one schema statement (a constraint or index file) of the graph's registry.

    Schema files are run by the registry entry itself, not by `QueryName`, so a registry built
    from another folder (tests, an upgrade check) applies the same way.

    Args:
        graph: the query runner.
        query: the schema file.
        values: start-up values its declared parameters are taken from (e.g. `dimensions`).

    Raises:
        SchemaError: the file declares a parameter `values` does not hold.
        GraphUnavailableError: the server is unreachable.
    """
    values = values or {}
    missing = sorted(query.params - set(values))
    if missing:
        raise SchemaError(f"{query.name}: no start-up value for parameters {missing}")
    params = {name: values[name] for name in query.params}
    with translate_errors(), graph.driver.session(database=graph.database) as session:
        session.run(Query(query.text), params).consume()


def apply_schema(
    graph: Graph,
    online_timeout_s: float = DEFAULT_ONLINE_TIMEOUT_S,
    *,
    embedding_dim: int = DEFAULT_EMBEDDING_DIM,
) -> list[str]:
    """Bring the database's schema to `cypher/schema/`: an upgrade in place, idempotent.

    The vector index is created with the embedding model's dimension (`$dimensions` in its
    file). An existing vector index of another dimension is left alone (never dropped on its
    own: the stored embeddings have its size); `check_vector_dimension` then stops start-up.

    An index whose server definition differs from its file (e.g. a 5.26 vector index without
    filter properties, a fulltext index with another analyzer) is dropped and recreated, then
    awaited ONLINE; every statement then runs (all are `IF NOT EXISTS`, so a second run changes
    nothing). Finally each declared index must exist with its file's definition.

    Args:
        graph: the query runner.
        online_timeout_s: how long to wait for recreated indexes to populate, in seconds.
        embedding_dim: the embedding model's dimension (`Embedder.dimension`).

    Returns:
        The names of the statements applied, in order.

    Raises:
        SchemaError: an index still differs after applying (e.g. an index of another name
            covers the same schema and blocks the creation), or a recreated index FAILED.
        GraphUnavailableError: recreated indexes not ONLINE within `online_timeout_s`.
    """
    outdated = outdated_indexes(graph)
    for name, diffs in outdated.items():
        log.warning("schema: recreating index %s (server differs: %s)", name, "; ".join(diffs))
        graph.run(QueryName.SCHEMA_STATE_DROP_INDEX, {"name": name})
    applied = []
    for query in graph.registry.schema():
        run_schema_statement(graph, query, {"dimensions": embedding_dim})
        applied.append(query.name)
    existing = index_definitions(graph)
    for query in graph.registry.schema():
        declared = declared_index(query)
        if declared is None:
            continue
        if declared.name not in existing:
            raise SchemaError(
                f"{query.name}: index {declared.name!r} was not created; an index of another "
                f"name on the same schema blocks it (SHOW INDEXES, then DROP INDEX that one)"
            )
        if diffs := declared.differences(existing[declared.name]):
            raise SchemaError(f"{query.name}: index {declared.name!r} differs: {'; '.join(diffs)}")
    if outdated:
        wait_online(graph, online_timeout_s)
    return applied


def index_states(graph: Graph) -> list[IndexState]:
    """Return the state of every index of the database."""
    rows = graph.run(QueryName.SCHEMA_STATE_LIST_INDEXES, {})
    return [
        IndexState(
            name=r["name"],
            type=r["type"],
            state=r["state"],
            population_percent=float(r["population_percent"]),
        )
        for r in rows
    ]


def wait_online(graph: Graph, timeout_s: float) -> None:
    """Block until every index is ONLINE.

    Args:
        graph: the query runner.
        timeout_s: how long to wait, in seconds.

    Raises:
        SchemaError: an index FAILED.
        GraphUnavailableError: the timeout passed with indexes still populating.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        states = index_states(graph)
        failed = [s.name for s in states if s.state == "FAILED"]
        if failed:
            raise SchemaError(f"indexes FAILED: {', '.join(failed)}")
        pending = [s for s in states if s.state != "ONLINE"]
        if not pending:
            return
        if time.monotonic() > deadline:
            detail = ", ".join(f"{s.name} {s.state} {s.population_percent:.0f}%" for s in pending)
            raise GraphUnavailableError(f"indexes not ONLINE after {timeout_s:.0f} s: {detail}")
        time.sleep(0.2)


def vector_dimension(graph: Graph, index_name: str) -> int | None:
    """Return the configured dimension of the named vector index, or None when it is absent."""
    row = graph.one(QueryName.SCHEMA_STATE_GET_VECTOR_INDEX, {"name": index_name})
    if row is None:
        return None
    return int(row["dimensions"])


def check_model_dimension(expected: int | None, model_dim: int) -> None:
    """Stop start-up when `RATIONALE_EMBEDDING_DIM` is set and the model gives another size.

    Args:
        expected: the setting (None: not set, the model's dimension is taken as it is).
        model_dim: what the loaded embedding model gives.

    Raises:
        SchemaError: naming both numbers.
    """
    if expected is not None and expected != model_dim:
        raise SchemaError(
            f"RATIONALE_EMBEDDING_DIM is {expected} but the embedding model gives {model_dim}; "
            f"unset it (the vector index takes the model's dimension) or configure a model of "
            f"{expected} dimensions (RATIONALE_EMBEDDING_MODEL)"
        )


def check_vector_dimension(graph: Graph, index_name: str, model_dim: int) -> None:
    """Stop start-up when the vector index and the model disagree on the dimension.

    Raises:
        SchemaError: naming the index and both numbers.
    """
    dims = vector_dimension(graph, index_name)
    if dims is None:
        raise SchemaError(f"vector index {index_name!r} does not exist after applying the schema")
    if dims != model_dim:
        raise SchemaError(
            f"vector index {index_name!r} has {dims} dimensions but the embedding model gives "
            f"{model_dim}; configure the model the index was built for, or drop the index "
            f"(DROP INDEX {index_name}): the next start-up creates it with {model_dim} "
            f"dimensions, and the memories stored with {dims}-dimension embeddings must be "
            f"written again to be found by vector search"
        )


def is_online(graph: Graph) -> bool:
    """Return True when every index is ONLINE (for `/readyz`)."""
    try:
        return all(s.state == "ONLINE" for s in index_states(graph))
    except GraphUnavailableError:
        return False
