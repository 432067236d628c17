"""Compound identifiers match by their words: `test_upload` is found by "upload test", and back.

Lucene's standard tokenizer keeps `test_upload` as one token, so before identifier parts a
question naming the words found such a memory only through the vector side. These tests use the
fake embedder: what they find, the fulltext side found.
"""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from service.domain.reasoning.record import task_key
from service.domain.text.lexical import identifier_parts
from service.domain.text.normalise import normalise_for_match
from service.graph.cypher import QueryRegistry
from service.graph.migrations import DomainRules, run_migrations
from service.graph.repository import Graph
from service.settings import Settings
from tests.conftest import Tenant
from tests.factories import fulltext_candidates, memory, small_trace

RULES = DomainRules(
    task_key=task_key, identifier_parts=identifier_parts, match_form=normalise_for_match
)


def stored(driver: Driver, memory_id: str) -> dict[str, Any]:
    """The lexical fields of a memory's current version, as stored."""
    records, _, _ = driver.execute_query(
        "MATCH (m:Memory {memory_id: $id}) WHERE m.system_to IS NULL "
        "RETURN m.search_parts AS parts, m.search_text AS text",
        id=memory_id,
    )
    return dict(records[0])


def found(tenant: Tenant, query: str) -> dict[str, float]:
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    return {
        h.memory_id: h.score for h in fulltext_candidates(services, tenant.namespace, query).hits
    }


def test_a_question_in_words_finds_the_identifier(tenant: Tenant, neo4j_driver: Driver) -> None:
    fix = memory(tenant, "Fixed the flaky test_upload: each worker gets its own temp directory")
    other = memory(tenant, "The deploy pipeline retries a failed migration twice")
    assert stored(neo4j_driver, fix["memory_id"]) == {
        "parts": "test upload testupload",
        "text": "Fixed the flaky test_upload: each worker gets its own temp directory\n"
        "test upload testupload",
    }
    assert stored(neo4j_driver, other["memory_id"])["parts"] is None
    hits = found(tenant, "why is the upload test flaky")
    assert fix["memory_id"] in hits and other["memory_id"] not in hits
    items = tenant.post(
        "/v1/recall", json={"query": "upload test", "limit": 2, "explain": True}
    ).json()["items"]
    assert items[0]["memory_id"] == fix["memory_id"]
    why = items[0]["explain"]
    # The parts are the memory's own words: matched, not context, and not discounted as such.
    assert set(why["matched_terms"]) == {"upload", "test"}
    assert why["context_terms"] == []


def test_a_word_written_as_two_parts_is_found_as_one(tenant: Tenant) -> None:
    """Trial 12: "username" did not find `getUserName` (parts "get user name"), nor "graphql"
    `GraphQLSchema` (Lucene's tokens "getusername", "graphqlschema")."""
    user = memory(tenant, "getUserName returns None for guests")
    schema = memory(tenant, "GraphQLSchema is built at start-up from the resolvers")
    path = memory(tenant, "os.path.join of the cache dir")
    memory(tenant, "The guest returns at noon; a username is optional")
    assert next(iter(found(tenant, "getusername"))) == user["memory_id"]  # the whole, as before
    assert user["memory_id"] in found(tenant, "username null")
    assert list(found(tenant, "graphql")) == [schema["memory_id"]]
    assert found(tenant, "ospath") == {}  # parts meeting at a dot are a path, not a word
    assert path["memory_id"] in found(tenant, "path join")


def test_a_version_is_found_by_its_number(tenant: Tenant) -> None:
    """Trial 15: "4.5.0" found nothing where the text says `v4.5.0`, nor "0.38" `v0.38.x`."""
    release = memory(tenant, "Upgraded the SDK to v4.5.0 after the TLS fix")
    pinned = memory(tenant, "Keep pydantic pinned to v0.38.x until the migration")
    memory(tenant, "The SDK upgrade is blocked by the TLS fix")
    assert next(iter(found(tenant, "4.5.0"))) == release["memory_id"]
    assert next(iter(found(tenant, "SDK 4.5"))) == release["memory_id"]
    assert next(iter(found(tenant, "0.38"))) == pinned["memory_id"]


def test_a_question_naming_the_identifier_ranks_its_memory_first(tenant: Tenant) -> None:
    """Trial 12: with the query's identifiers split too, short memories sharing one common
    part ("user", "settings") outranked the long log naming `load_user_settings` (#6)."""
    lines = [f"INFO worker-{i % 4} request {i} served in {10 + i} ms" for i in range(39)]
    lines.insert(20, "ERROR worker-2 load_user_settings raised KeyError: 'theme'")
    log = memory(tenant, "\n".join(lines))
    for text in (
        "User settings are stored in Postgres",
        "Settings page redesign shipped",
        "Load the page before the user clicks",
        "The user asked for dark mode",
    ):
        memory(tenant, text)
    for query in ("load_user_settings", "why does load_user_settings raise"):
        assert next(iter(found(tenant, query))) == log["memory_id"], query
        items = tenant.post("/v1/recall", json={"query": query, "limit": 3}).json()["items"]
        assert items[0]["memory_id"] == log["memory_id"], query


def test_every_door_stores_the_parts_of_its_own_text(tenant: Tenant, neo4j_driver: Driver) -> None:
    first = memory(tenant, "getUserName returns None for deleted accounts")
    r = tenant.patch(
        f"/v1/memories/{first['memory_id']}",
        json={"content": "fetchAccount returns None for deleted accounts"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200, r.text
    assert stored(neo4j_driver, first["memory_id"])["parts"] == "fetch account"
    assert "user" not in stored(neo4j_driver, first["memory_id"])["text"]
    r = tenant.patch(
        f"/v1/memories/{first['memory_id']}", json={"confidence": 0.5}, headers={"If-Match": "2"}
    )
    assert r.status_code == 200, r.text
    assert stored(neo4j_driver, first["memory_id"])["parts"] == "fetch account"
    batch = tenant.post(
        "/v1/memories/batch",
        json={
            "items": [
                {
                    "kind": "observation",
                    "content": "RETRY_LIMIT is 3",
                    "episode": "s",
                    "position": 0,
                },
                {
                    "kind": "observation",
                    "content": "raised it in config.yaml",
                    "episode": "s",
                    "position": 1,
                },
            ]
        },
    )
    assert batch.status_code == 201, batch.text
    ids = [i["memory"]["memory_id"] for i in batch.json()["items"]]
    assert stored(neo4j_driver, ids[0]) == {
        "parts": "retry limit retrylimit",
        "text": "RETRY_LIMIT is 3\nretry limit retrylimit",
    }
    # The previous turn leads as context; the parts of the turn's own text end the field.
    assert stored(neo4j_driver, ids[1]) == {
        "parts": "config yaml",
        "text": "RETRY_LIMIT is 3\nraised it in config.yaml\nconfig yaml",
    }
    trace_id = small_trace(
        tenant,
        "Why does test_upload fail?",
        ["gw0 and gw1 both write /tmp/upload_fixture", "A file lock on upload_fixture fixes it"],
    )
    trace = stored(neo4j_driver, trace_id)
    assert trace["text"].startswith("Why does test_upload fail?\n")
    assert trace["parts"] is not None and "fixture" in trace["parts"].split()


def test_the_migration_splits_what_older_versions_stored(
    tenant: Tenant, neo4j_driver: Driver, settings: Settings
) -> None:
    graph = Graph(
        neo4j_driver,
        QueryRegistry.load(settings.cypher_dir),
        settings.neo4j_database,
        settings.query_timeout_s,
    )
    snake = memory(tenant, "test_upload needs a lock", episode="e", position=0)
    camel = memory(tenant, "then getUserName failed", episode="e", position=1)
    acronym = memory(tenant, "the HTTPServer leaks sockets")  # trial 12: not read again
    plain = memory(tenant, "nothing to split here, e.g. 3.14, APIs")
    number = memory(tenant, "ADR-0045 was superseded by ADR057")  # version 8: numbers as asked
    fresh = {
        m["memory_id"]: stored(neo4j_driver, m["memory_id"])
        for m in (snake, camel, acronym, plain, number)
    }
    assert fresh[acronym["memory_id"]]["parts"] == "http server"
    assert fresh[number["memory_id"]]["parts"] == "45 adr 57"
    # As a version before identifier parts stored them: context and content only.
    neo4j_driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) WHERE m.search_parts IS NOT NULL "
        "SET m.search_text = left(m.search_text, size(m.search_text) - size(m.search_parts) - 1) "
        "REMOVE m.search_parts",
        ns=tenant.namespace,
    )
    assert stored(neo4j_driver, camel["memory_id"]) == {
        "parts": None,
        "text": "test_upload needs a lock\nthen getUserName failed",
    }
    assert found(tenant, "upload test") == {}
    # As the first rule read them (this morning's): "APIs" split into "ap is".
    neo4j_driver.execute_query(
        "MATCH (m:Memory {memory_id: $id}) SET m.search_parts = 'ap is', "
        "m.search_text = m.search_text + '\\n' + 'ap is'",
        id=plain["memory_id"],
    )
    assert number["memory_id"] not in found(tenant, "45")
    report = run_migrations(graph, RULES, namespace=tenant.namespace)
    assert report.identifiers_split == 5
    assert {m: stored(neo4j_driver, m) for m in fresh} == fresh
    assert snake["memory_id"] in found(tenant, "upload test")
    assert number["memory_id"] in found(tenant, "45")
    assert run_migrations(graph, RULES, namespace=tenant.namespace).identifiers_split == 0
    assert {m: stored(neo4j_driver, m) for m in fresh} == fresh


def test_the_trial_11_question_ranks_the_identifier_first(tenant: Tenant) -> None:
    """Trial 11: the README's CI log ranked 17th for "upload test" below memories saying "test"."""
    log = memory(tenant, "CI log: test_upload failed with connection reset during setup")
    for i in range(16):
        memory(tenant, f"The integration test number {i} passed on the nightly run")
    for query in ("upload test", "test upload", "why did the upload test fail"):
        items = tenant.post("/v1/recall", json={"query": query, "limit": 3}).json()["items"]
        assert items[0]["memory_id"] == log["memory_id"], query


def test_a_query_naming_things_keeps_the_words_a_question_would_drop(tenant: Tenant) -> None:
    """Trial 12: "name" and "type" only frame a question ("what is the name of ..."), but
    "user name" searched "user" alone, so `getUserName` ranked by that word with any memory
    about a user. A query that asks still drops them (LoCoMo's questions all ask)."""
    getter = memory(tenant, "getUserName returns null when the profile was never saved")
    for text in (
        "The user asked for dark mode",
        "A user reported the export button does nothing",
        "User sessions expire after 30 minutes",
    ):
        memory(tenant, text)
    for query in ("user name", "user name null"):
        assert next(iter(found(tenant, query))) == getter["memory_id"], query
        items = tenant.post("/v1/recall", json={"query": query, "limit": 3}).json()["items"]
        assert items[0]["memory_id"] == getter["memory_id"], query
    why = tenant.post(
        "/v1/recall", json={"query": "user name", "limit": 1, "explain": True}
    ).json()["items"][0]["explain"]
    assert set(why["matched_terms"]) == {"user", "name"}


def test_a_query_about_a_number_ranks_the_record_holding_it_first(tenant: Tenant) -> None:
    """The corpus ADRs: "ADR 14" ranked the ADR template first and `ADR014` fifth; "ADR 45"
    never met `ADR-0045` (Lucene keeps `0045` and `adr014` one token each)."""
    template = memory(
        tenant, "ADR-012: Adopt an ADR template, so every ADR and ADR review reads alike"
    )
    fetch = memory(tenant, "ADR014: Proper use of HTTP fetching libraries")
    status = memory(tenant, "ADR 8: Add a status field to each record (see issue 14)")
    flag = memory(tenant, "ADR-0045 mandated the --input flag for every subcommand")
    items = tenant.post("/v1/recall", json={"query": "ADR 14", "limit": 4, "explain": True}).json()[
        "items"
    ]
    assert [i["memory_id"] for i in items[:2]] == [fetch["memory_id"], status["memory_id"]]
    assert [i["explain"]["identified"] for i in items[:2]] == [2, 1]
    assert {i["memory_id"]: i["explain"]["identified"] for i in items}.get(
        template["memory_id"]
    ) in (
        None,
        0,
    )
    items = tenant.post("/v1/recall", json={"query": "what did ADR 45 decide?"}).json()["items"]
    assert items[0]["memory_id"] == flag["memory_id"]
    # A query about no number: nothing is identified.
    items = tenant.post(
        "/v1/recall", json={"query": "HTTP fetching libraries", "explain": True}
    ).json()["items"]
    assert items[0]["explain"]["identified"] is None


def test_a_number_held_only_through_context_ranks_below_the_memory_saying_it(
    tenant: Tenant,
) -> None:
    """Trial 23: "issue 1234" ranked four tool outputs of the trace for issue 1234 ("File
    updated.") above it: they held the number only through their context, the trace's task."""
    task = "parse_isoweek raises ValueError for week 53 (issue 1234)"
    outputs = [
        memory(tenant, text, context=task)
        for text in ("File updated.", "Exited (autosubmit failed)", "1 failed, 12 passed")
    ]
    record = memory(tenant, task)
    items = tenant.post(
        "/v1/recall", json={"query": "issue 1234", "limit": 4, "explain": True}
    ).json()["items"]
    assert items[0]["memory_id"] == record["memory_id"]
    assert items[0]["explain"]["identified"] == 2
    assert {i["explain"]["identified"] for i in items[1:]} == {1}
    assert {i["memory_id"] for i in items[1:]} == {o["memory_id"] for o in outputs}
