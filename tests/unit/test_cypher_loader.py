"""The named-Cypher loader: header rules and parameter checks (no Neo4j)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.errors import CypherFileError
from service.graph.cypher import DEV_FOLDERS, QueryRegistry, parse_query
from service.graph.query_names import DevQueryName, QueryName
from service.settings import Settings

GOOD = """// Get one memory.
// mode: read
// returns: optional
// :param namespace => 'default'
// :param memory_id => 'x'
MATCH (m:Memory {namespace: $namespace, memory_id: $memory_id}) // $not_a_param in a comment
WHERE m.content <> '$not_a_param either'
RETURN m.uid AS uid
"""


def test_good_file_parses() -> None:
    q = parse_query("memory/get", GOOD)
    assert q.params == {"namespace", "memory_id"}
    assert q.mode == "read" and q.returns == "optional"
    assert q.purpose == "Get one memory."


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (GOOD.replace("// :param memory_id => 'x'\n", ""), "undeclared"),
        (GOOD.replace("// mode: read\n", ""), "mode"),
        (GOOD.replace("// returns: optional\n", ""), "returns"),
        (GOOD + "; MATCH (n) RETURN n", "one statement"),
        (GOOD.replace("// Get one memory.\n", ""), "purpose"),
        (
            GOOD.replace(
                "// :param namespace => 'default'\n",
                "// :param namespace => 'default'\n// :param extra => 1\n",
            ),
            "unused",
        ),
    ],
)
def test_bad_files_are_refused(text: str, needle: str) -> None:
    with pytest.raises(CypherFileError) as info:
        parse_query("bad", text)
    assert needle in str(info.value)


def test_every_file_in_the_repo_loads() -> None:
    registry = QueryRegistry.load(Settings().cypher_dir)
    assert len(registry) > 20
    assert registry.schema()[0].name.startswith("schema/0")


def test_every_query_name_used_in_the_code_exists() -> None:
    registry = QueryRegistry.load(Settings().cypher_dir)
    root = Path(__file__).resolve().parents[2] / "service"
    used = set()
    for path in root.rglob("*.py"):
        used |= set(re.findall(r'"([a-z_]+/[a-z_]+)"', path.read_text()))
    names = {q.name for q in registry}
    missing = {
        u for u in used if u.split("/")[0] in {n.split("/")[0] for n in names} and u not in names
    }
    assert not missing, missing


def test_apostrophes_in_comments_and_slashes_in_strings() -> None:
    text = GOOD.replace("// Get one memory.", "// Get one memory (it's the current one).").replace(
        "'$not_a_param either'", "'http://example.org/$not_a_param'"
    )
    assert parse_query("memory/get", text).params == {"namespace", "memory_id"}


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.cypher")}


def test_query_name_members_equal_the_production_files() -> None:
    root = Settings().cypher_dir
    files = _files(root)
    production = {f for f in files if f.split("/")[0] not in DEV_FOLDERS}
    assert {q.value for q in QueryName} == production
    assert {q.value for q in DevQueryName} == files - production
    for member in [*QueryName, *DevQueryName]:
        assert member.name == member.value.replace("/", "_").upper()


def test_dev_queries_stay_out_of_the_production_registry() -> None:
    root = Settings().cypher_dir
    production = QueryRegistry.production(root)
    dev = QueryRegistry.dev(root)
    assert {q.name for q in production} == {q.value for q in QueryName}
    assert {q.name for q in dev} == {q.value for q in DevQueryName}
    assert "bench/create_memories" not in production
    assert DevQueryName.BENCH_CREATE_MEMORIES in dev
    # The unfiltered load (used by the EXPLAIN-every-file test) still holds them all.
    assert len(QueryRegistry.load(root)) == len(production) + len(dev)


def test_values_plain_is_read_from_the_header() -> None:
    assert parse_query("memory/get", GOOD).plain is False
    plain = parse_query(
        "memory/get",
        GOOD.replace("// returns: optional\n", "// returns: optional\n// values: plain\n"),
    )
    assert plain.plain is True
    with pytest.raises(CypherFileError) as info:
        parse_query(
            "bad",
            GOOD.replace("// returns: optional\n", "// returns: optional\n// values: native\n"),
        )
    assert "values" in str(info.value)
