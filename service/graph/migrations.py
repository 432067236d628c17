"""Data migrations run at start-up before the schema: fix what older versions stored (idempotent).

Each step rewrites only what is still wrong, so running them again changes nothing, and they
run before `apply_schema` because the uniqueness constraints it creates would refuse a
database still holding duplicates. In order:

1. **Times.** Every zoned `DATETIME` property of a node or relationship that is not stored
   with the offset `Z` (a zone id such as `...Z[UTC]`, or another offset) is rewritten to the
   same instant in UTC with offset `Z`, the one stored form (`service.graph.repository`).
2. **Tasks.** `:Task` nodes from before tasks had a normalised `key` get one; tasks of one
   namespace and key are merged into one (the already keyed one, else the oldest): every
   relationship of the others (`SERVED` from traces, and any other type) is moved onto it, then
   the others are deleted.
3. **Sources.** `:Source` nodes of one namespace and `sha256` are merged into the oldest: their
   relationships (`EXTRACTED_FROM`) are moved and memories' `source_id` re-pointed. The old
   non-unique index `source_sha` is dropped (whole-database runs only), so the schema can
   create the unique constraint of that name (`cypher/schema/015_source_sha.cypher`).
4. **Identifier parts.** Memories whose lexical field lacks the parts of their compound
   identifiers (`test_upload`: test, upload), or holds them as an earlier rule read them, get
   them as `identifier_parts` reads them now (`search_parts`, and at the end of `search_text`),
   a thousand per write; only memories holding parts or whose content may hold an identifier
   are read. (Version 4: parts also hold joined neighbours, `getUserName`: username; 5: a version's
   number, `v4.5.0`: 4.5.0 and 4.5; 8: numbers as asked for, `ADR-0045`: 45, `ADR014`: adr, 14.)
5. **Change reasons.** Versions written before a version stored why it was written
   (`change_reason`, 2026-12-05) get the reason of their `SUPERSEDES` link to the version
   before, a thousand per write, so `GET` and recall show what `/history` shows. (Version 6.)
6. **Match forms.** Memories whose content holds a format character (Unicode Cf: a zero-width
   space, a soft hyphen...) get their `content_norm` as `normalise_for_match` reads it now,
   without them (version 7), a thousand per write: a write of the same visible text then finds
   the stored one.

At start-up they run through `apply_migrations`, once per `MIGRATIONS_VERSION`: a database
stamped with it (one `:SchemaMigration {name: 'rationale'}` node) skips them, so a large
database does not scan every node at each start (writes since then store the one form already).

Community Edition has no APOC: the moves are plain Cypher (`CREATE` with the relationship's
own dynamic type and properties, then `DETACH DELETE`).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from service.graph.query_names import QueryName
from service.graph.repository import Graph

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MigrationReport:
    """What one run of the migrations changed (all zero on a database already migrated).

    Attributes:
        node_times: node time properties rewritten to UTC `Z`.
        relationship_times: relationship time properties rewritten to UTC `Z`.
        tasks_keyed: `(namespace, key)` groups of unkeyed tasks given their key.
        tasks_deleted: duplicate `:Task` nodes merged away.
        sources_deleted: duplicate `:Source` nodes merged away.
        edges_moved: relationships moved from a duplicate onto the node kept.
        identifiers_split: memories whose identifier parts were set or read again.
        reasons_copied: versions given their `SUPERSEDES` link's reason as `change_reason`.
        norms_set: memories whose match form was read again without format characters.
    """

    node_times: int = 0
    relationship_times: int = 0
    tasks_keyed: int = 0
    tasks_deleted: int = 0
    sources_deleted: int = 0
    edges_moved: int = 0
    identifiers_split: int = 0
    reasons_copied: int = 0
    norms_set: int = 0

    @property
    def changed(self) -> int:
        """The number of changes of every kind together."""
        return (
            self.node_times
            + self.relationship_times
            + self.tasks_keyed
            + self.tasks_deleted
            + self.sources_deleted
            + self.edges_moved
            + self.identifiers_split
            + self.reasons_copied
            + self.norms_set
        )


#: Bump when a step is added: a database stamped with an older version runs them all again.
MIGRATIONS_VERSION = 8
#: Memories changed per write of the identifier-parts, change-reason and match-form steps.
IDENTIFIER_BATCH = 1000


def apply_migrations(graph: Graph, rules: DomainRules) -> MigrationReport | None:
    """Run the whole-database migrations unless this database is stamped with this version.

    Args:
        graph: the query runner.
        rules: see `run_migrations`.

    Returns:
        What changed, or None when the stamp says the migrations already ran.
    """
    stamp = graph.one(QueryName.MIGRATION_GET_STAMP, {})
    if stamp is not None and int(stamp["version"]) >= MIGRATIONS_VERSION:
        return None
    report = run_migrations(graph, rules)
    graph.run(QueryName.MIGRATION_MERGE_STAMP, {"version": MIGRATIONS_VERSION})
    return report


@dataclass(frozen=True)
class DomainRules:
    """The domain's rules some steps apply (passed in: the graph layer holds no domain rules).

    Attributes:
        task_key: the normalisation that makes a task text a `:Task` key (`task_key` of the
            reasoning domain).
        identifier_parts: the words of a text's compound identifiers, or None
            (`service.domain.text.lexical.identifier_parts`).
        match_form: a content's stored match form (`service.domain.text.normalise_for_match`).
    """

    task_key: Callable[[str], str]
    identifier_parts: Callable[[str], str | None]
    match_form: Callable[[str], str]


def run_migrations(
    graph: Graph, rules: DomainRules, namespace: str | None = None
) -> MigrationReport:
    """Run every migration step in order; each step commits on its own and is idempotent.

    Args:
        graph: the query runner.
        rules: the task key and identifier rules of the domain.
        namespace: only this tenant (tests); None for the whole database (start-up).

    Returns:
        What changed.
    """
    scope = {"namespace": namespace}
    node_times = _count(graph, QueryName.MIGRATION_NORMALISE_NODE_TIMES, scope, "changed")
    rel_times = _count(graph, QueryName.MIGRATION_NORMALISE_RELATIONSHIP_TIMES, scope, "changed")
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for row in graph.run(QueryName.MIGRATION_LIST_UNKEYED_TASKS, scope):
        groups[(row["namespace"], rules.task_key(row["content"]))].append(row["uid"])
    tasks_deleted = moved = 0
    for (ns, key), uids in sorted(groups.items()):
        merged = graph.one(
            QueryName.MIGRATION_MERGE_TASKS, {"namespace": ns, "key": key, "uids": uids}
        )
        if merged is not None:
            tasks_deleted += int(merged["deleted"])
            moved += int(merged["moved"])
    sources = graph.one(QueryName.MIGRATION_MERGE_SOURCES, scope)
    assert sources is not None
    moved += int(sources["moved"])
    if namespace is None and graph.one(QueryName.MIGRATION_GET_PLAIN_SOURCE_INDEX, {}):
        log.warning("migrations: dropping index source_sha for the unique constraint source_sha")
        graph.run(QueryName.SCHEMA_STATE_DROP_INDEX, {"name": "source_sha"})
    report = MigrationReport(
        node_times=node_times,
        relationship_times=rel_times,
        tasks_keyed=len(groups),
        tasks_deleted=tasks_deleted,
        sources_deleted=int(sources["deleted"]),
        edges_moved=moved,
        identifiers_split=_split_identifiers(graph, rules.identifier_parts, namespace),
        reasons_copied=_copy_change_reasons(graph, namespace),
        norms_set=_set_match_forms(graph, rules.match_form, namespace),
    )
    if report.changed:
        log.warning("migrations changed stored data: %s", report)
    return report


def _split_identifiers(
    graph: Graph, parts_of: Callable[[str], str | None], namespace: str | None
) -> int:
    """Give memories the identifier parts `parts_of` reads now; return how many changed."""

    def rewrite(row: Mapping[str, Any]) -> dict[str, object] | None:
        old, parts = row["parts"] or "", parts_of(str(row["content"]))
        return None if (parts or "") == old else {"uid": row["uid"], "old": old, "parts": parts}

    return _rewrite_pages(
        graph,
        QueryName.MIGRATION_LIST_UNSPLIT_IDENTIFIERS,
        QueryName.MIGRATION_SET_IDENTIFIER_PARTS,
        namespace,
        rewrite,
    )


def _set_match_forms(graph: Graph, form: Callable[[str], str], namespace: str | None) -> int:
    """Read again the match form of memories holding a format character; return how many changed."""

    def rewrite(row: Mapping[str, Any]) -> dict[str, object] | None:
        old, norm = row["content_norm"], form(str(row["content"]))
        return None if norm == old else {"uid": row["uid"], "old": old, "norm": norm}

    return _rewrite_pages(
        graph,
        QueryName.MIGRATION_LIST_FORMAT_CHARACTERS,
        QueryName.MIGRATION_SET_CONTENT_NORMS,
        namespace,
        rewrite,
    )


def _rewrite_pages(
    graph: Graph,
    listed: QueryName,
    written: QueryName,
    namespace: str | None,
    rewrite: Callable[[Mapping[str, Any]], dict[str, object] | None],
) -> int:
    """Page through `listed` in uid order and write what `rewrite` changes; return the count.

    `IDENTIFIER_BATCH` rows a page; `rewrite` returns a row for `written`, or None to leave
    the memory as it is.
    """
    changed, after = 0, ""
    while True:
        rows = graph.run(
            listed, {"namespace": namespace, "after": after, "limit": IDENTIFIER_BATCH}
        )
        if not rows:
            return changed
        after = str(rows[-1]["uid"])
        due = [w for w in (rewrite(r) for r in rows) if w is not None]
        if due:
            changed += _count(graph, written, {"rows": due}, "changed")


def _copy_change_reasons(graph: Graph, namespace: str | None) -> int:
    """Give older versions their `SUPERSEDES` link's reason; return how many changed."""
    changed = 0
    while True:
        batch = _count(
            graph,
            QueryName.MIGRATION_COPY_CHANGE_REASONS,
            {"namespace": namespace, "limit": IDENTIFIER_BATCH},
            "changed",
        )
        if batch == 0:
            return changed
        changed += batch


def _count(graph: Graph, name: QueryName, params: Mapping[str, object], column: str) -> int:
    row = graph.one(name, params)
    return 0 if row is None else int(row[column])
