"""A namespace's graph as multisets of nodes and edges described by content, not by ids.

Two complete ingests of the same material into two namespaces have equal fingerprints; a part
of one (what a crash left behind) is included in it, and `assert_complete_part` checks that
every node present has all the outgoing edges it has in the complete one.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from neo4j import Driver

#: Properties that differ between two writes of the same thing (ids, clocks, vectors, counters).
#: `valid_from` is the material's time when it gives one, else the moment of writing.
VOLATILE = (
    "uid",
    "at",
    "valid_from",
    "embedding",
    "search_ns",
    "attempts",
    "status",
    "units_failed",
    "units_refused_json",
    "trace_digest",  # a hash over cited memory ids
)
VOLATILE_SUFFIXES = ("_id", "_ids", "_at", "system_from", "system_to", "_uid", "namespace")

Node = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]
Edge = tuple[str, Node, Node, tuple[tuple[str, str], ...]]


#: Ids embedded in values (e.g. an episode named `<source uid>/request-1`).
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _stable(props: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(
        sorted(
            (k, UUID.sub("<uuid>", repr(v)))
            for k, v in props.items()
            if k not in VOLATILE and not k.endswith(VOLATILE_SUFFIXES)
        )
    )


def _describe(labels: list[str], props: dict[str, Any]) -> Node:
    if "Source" in labels:  # its bookkeeping changes with each attempt; its hash does not
        return (("Source",), (("sha256", repr(props.get("sha256"))),))
    return (tuple(sorted(labels)), _stable(props))


@dataclass
class Fingerprint:
    """Nodes and edges of one namespace (edges: type, start, end, stable properties)."""

    nodes: Counter[Node]
    edges: Counter[Edge]

    def outgoing(self) -> dict[Node, Counter[Edge]]:
        """The edges by the node they start at."""
        out: dict[Node, Counter[Edge]] = {}
        for edge, n in self.edges.items():
            out.setdefault(edge[1], Counter())[edge] += n
        return out

    def size(self) -> tuple[int, int]:
        """(nodes, edges)."""
        return sum(self.nodes.values()), sum(self.edges.values())


def fingerprint(driver: Driver, namespace: str) -> Fingerprint:
    """Read every node carrying `namespace` and every edge between two of them."""
    with driver.session() as session:
        rows = session.run(
            "MATCH (n {namespace: $ns}) RETURN elementId(n) AS id, labels(n) AS labels, "
            "properties(n) AS props",
            ns=namespace,
        ).data()
        described = {r["id"]: _describe(r["labels"], r["props"]) for r in rows}
        rels = session.run(
            "MATCH (a {namespace: $ns})-[r]->(b {namespace: $ns}) "
            "RETURN elementId(a) AS a, type(r) AS type, elementId(b) AS b, properties(r) AS props",
            ns=namespace,
        ).data()
    edges: Counter[Edge] = Counter(
        (r["type"], described[r["a"]], described[r["b"]], _stable(r["props"])) for r in rels
    )
    return Fingerprint(Counter(described.values()), edges)


def _shapes(edges: Counter[Edge]) -> Counter[Edge]:
    """Edges without their properties (a partial write's `EXTRACTED_FROM.units` is shorter)."""
    out: Counter[Edge] = Counter()
    for (kind, a, b, _), n in edges.items():
        out[(kind, a, b, ())] += n
    return out


def assert_complete_part(part: Fingerprint, whole: Fingerprint) -> None:
    """`part` holds nothing `whole` lacks, and each of its nodes has all its outgoing edges.

    Edge properties are left out of this comparison: an edge shared by several units (one
    `EXTRACTED_FROM` per memory and source, listing its units) grows with each unit written.

    Raises:
        AssertionError: a duplicate or foreign node or edge, or a node missing an edge (a
            write that was visible half-done).
    """
    extra_nodes = part.nodes - whole.nodes
    assert not extra_nodes, f"nodes not in the complete write (duplicates?): {extra_nodes}"
    part = Fingerprint(part.nodes, _shapes(part.edges))
    whole = Fingerprint(whole.nodes, _shapes(whole.edges))
    extra_edges = part.edges - whole.edges
    assert not extra_edges, f"edges not in the complete write (duplicates?): {extra_edges}"
    whole_out, part_out = whole.outgoing(), part.outgoing()
    for node in part.nodes:
        if part.nodes[node] < whole.nodes[node]:
            continue  # a repeated node partly written: its edges cannot be told apart
        missing = whole_out.get(node, Counter()) - part_out.get(node, Counter())
        assert not missing, f"{node} lacks {sum(missing.values())} edge(s): {missing}"


def difference(a: Fingerprint, b: Fingerprint) -> str:
    """A short account of what `a` has more and less than `b` (labels and edge types)."""

    def by_kind(nodes: Counter[Node], edges: Counter[Edge]) -> str:
        kinds: Counter[str] = Counter()
        for (labels, _), n in nodes.items():
            kinds["+".join(labels)] += n
        for (kind, *_), n in edges.items():
            kinds[f"-[{kind}]->"] += n
        return ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))

    return (
        f"more: {by_kind(a.nodes - b.nodes, a.edges - b.edges) or 'nothing'}; "
        f"less: {by_kind(b.nodes - a.nodes, b.edges - a.edges) or 'nothing'}"
    )
