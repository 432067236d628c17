"""Retrieval v2 (issue 12): namespace-restricted indexes, contextual lexical field, grouping."""

from __future__ import annotations

import logging
import random
import re
import uuid
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from service.domain.memories import Writer, build_memory_row, utcnow
from service.domain.retrieval import RetrievalRequest
from service.domain.retrieval.models import Hit, Ranked, RetrievalQuery
from service.domain.retrieval.traces import trace_page
from service.graph.schema import apply_schema
from tests.conftest import Tenant, new_tenant
from tests.factories import flaky_test_story, memory, small_trace
from tests.factories import fulltext_candidates as _fulltext

LOGGER = "service.domain.retrieval"


def recall(t: Tenant, query: str, **body: Any) -> list[dict[str, Any]]:
    r = t.post("/v1/recall", json={"query": query, **body})
    assert r.status_code == 200, r.text
    return r.json()["items"]  # type: ignore[no-any-return]


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [i["memory_id"] for i in items]


def node(driver: Driver, memory_id: str) -> dict[str, Any]:
    with driver.session() as s:
        row = s.run(
            "MATCH (m:Memory {memory_id: $id}) WHERE m.current RETURN m {.*, embedding: null} AS m",
            id=memory_id,
        ).single()
    assert row is not None
    return dict(row["m"])


def fulltext_ids(t: Tenant, text: str) -> list[str]:
    """The memory ids the namespace-restricted fulltext index returns for `text`, best first."""
    services = t.client.app.state.services  # type: ignore[attr-defined]
    found = _fulltext(services, t.namespace, text, "search")
    return [h.memory_id for h in found.hits]


TURNS = [
    "Melanie: Anything you're excited for in the adoption process?",
    "Caroline: I'm thrilled to make a family for kids who need one.",
    "Melanie: That's wonderful. I painted a sunrise last week.",
]


def test_a_turn_is_indexed_with_the_turn_before_it(tenant: Tenant, neo4j_driver: Driver) -> None:
    written = [memory(tenant, text, episode="conv-1", position=i) for i, text in enumerate(TURNS)]
    assert [(w["episode"], w["position"]) for w in written] == [("conv-1", i) for i in range(3)]
    answer = node(neo4j_driver, written[1]["memory_id"])
    assert answer["content"] == TURNS[1]  # stored as given
    assert answer["search_text"] == f"{TURNS[0]}\n{TURNS[1]}"
    assert node(neo4j_driver, written[0]["memory_id"])["search_text"] == TURNS[0]
    # The answer shares no word with the question; its context does.
    found = fulltext_ids(tenant, "What is Caroline excited about in the adoption process?")
    assert written[1]["memory_id"] in found
    # GET shows episode and position too.
    got = tenant.get(f"/v1/memories/{written[1]['memory_id']}").json()
    assert (got["episode"], got["position"]) == ("conv-1", 1)


def test_a_batch_indexes_each_turn_with_the_turn_before_it(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    """In a batch the previous turn comes from the batch or, failing that, from the store."""
    stored = memory(tenant, TURNS[0], episode="conv-b", position=0)
    items = [
        {"kind": "observation", "content": TURNS[2], "episode": "conv-b", "position": 2},
        {"kind": "observation", "content": TURNS[1], "episode": "conv-b", "position": 1},
        # Sent as context too: it counts once.
        {
            "kind": "observation",
            "content": "Caroline: Pixel is a greyhound.",
            "episode": "conv-c",
            "position": 1,
            "context": "Melanie: What breed is Pixel?",
        },
        {
            "kind": "observation",
            "content": "Melanie: What breed is Pixel?",
            "episode": "conv-c",
            "position": 0,
        },
    ]
    r = tenant.post("/v1/memories/batch", json={"items": items})
    assert r.status_code == 201, r.text
    written = [i["memory"]["memory_id"] for i in r.json()["items"]]
    assert node(neo4j_driver, written[0])["search_text"] == f"{TURNS[1]}\n{TURNS[2]}"
    assert node(neo4j_driver, written[1])["search_text"] == f"{TURNS[0]}\n{TURNS[1]}"
    assert node(neo4j_driver, written[2])["search_text"] == (
        "Melanie: What breed is Pixel?\nCaroline: Pixel is a greyhound."
    )
    assert node(neo4j_driver, written[3])["search_text"] == "Melanie: What breed is Pixel?"
    assert node(neo4j_driver, stored["memory_id"])["search_text"] == TURNS[0]
    # One by one, a previous turn sent as context counts once too.
    again = memory(
        tenant,
        "Caroline: he is four.",
        episode="conv-c",
        position=2,
        context="Caroline: Pixel is a greyhound.",
    )
    assert node(neo4j_driver, again["memory_id"])["search_text"] == (
        "Caroline: Pixel is a greyhound.\nCaroline: he is four."
    )


def test_an_update_keeps_the_context(tenant: Tenant, neo4j_driver: Driver) -> None:
    first = memory(tenant, TURNS[0], episode="conv-2", position=0)
    second = memory(tenant, TURNS[1], episode="conv-2", position=1)
    r = tenant.patch(
        f"/v1/memories/{second['memory_id']}",
        json={"content": "Caroline: I'm thrilled to build a family."},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200, r.text
    stored = node(neo4j_driver, second["memory_id"])
    assert stored["version"] == 2 and stored["episode"] == "conv-2" and stored["position"] == 1
    assert stored["search_text"] == f"{TURNS[0]}\nCaroline: I'm thrilled to build a family."
    assert first["memory_id"] != second["memory_id"]


def test_context_is_given_explicitly(tenant: Tenant, neo4j_driver: Driver) -> None:
    m = memory(tenant, "Use a lock around the fixture directory", context="Flaky upload test")
    assert node(neo4j_driver, m["memory_id"])["search_text"] == (
        "Flaky upload test\nUse a lock around the fixture directory"
    )
    assert "context" not in m and m["content"] == "Use a lock around the fixture directory"


@pytest.mark.parametrize(
    "body",
    [
        {"position": 2},
        {"episode": "e", "position": -1},
        {"episode": ""},
        {"context": "x" * 2001},
    ],
)
def test_bad_episode_fields_are_refused(tenant: Tenant, body: dict[str, Any]) -> None:
    r = tenant.post("/v1/memories", json={"kind": "fact", "content": "a fact", **body})
    assert r.status_code == 422, r.text


def test_fulltext_is_restricted_to_the_namespace_in_one_round(
    tenant: Tenant, other_tenant: Tenant, caplog: pytest.LogCaptureFixture
) -> None:
    for i in range(150):
        memory(other_tenant, f"The artifact registry timed out during the nightly deploy {i}")
    mine = {
        memory(tenant, f"artifact registry slow, deploy {i} late")["memory_id"] for i in range(3)
    }
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        found = fulltext_ids(tenant, "artifact registry timed out during the nightly deploy")
    assert set(found) == mine
    assert re.findall(r"fulltext candidates: 3 kept after (\d+) round", caplog.text) == ["1"]


def test_schema_migration_backfills_old_memories(tenant: Tenant, neo4j_driver: Driver) -> None:
    """A memory written before v2 (no current, search_text, search_ns) is found after start-up."""
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    vector = services.embedder.encode(["The staging database runs Postgres 16"])[0]
    with neo4j_driver.session() as s:
        s.run(
            "CREATE (m:Memory:Fact {uid: randomUUID(), namespace: $ns, memory_id: 'old-1', "
            "version: 1, kind: 'fact', content: 'The staging database runs Postgres 16', "
            "embedding: $v, valid_from: datetime(), system_from: datetime(), "
            "created_by_origin: 'user', created_by_actor: 'v1', last_modified_by_origin: 'user', "
            "last_modified_by_actor: 'v1'})",
            ns=tenant.namespace,
            v=vector,
        ).consume()
    apply_schema(services.graph)
    apply_schema(services.graph)  # idempotent
    stored = node(neo4j_driver, "old-1")
    assert stored["current"] is True
    assert stored["search_text"] == "The staging database runs Postgres 16"
    assert fulltext_ids(tenant, "which postgres version does staging run") == ["old-1"]
    result = services.retrieval.recall(
        tenant.namespace, RetrievalRequest(query="staging Postgres", limit=3)
    )
    assert [i.memory_id for i in result.items] == ["old-1"]


# -- grouping and explain -----------------------------------------------------------------------


def test_near_duplicates_collapse_into_one_item(tenant: Tenant) -> None:
    first = memory(tenant, "The staging database runs Postgres 16", kind="fact")
    twin = memory(tenant, "Staging database: it runs Postgres 16.", kind="fact")
    other = memory(tenant, "The staging database runs Postgres 15", kind="fact")
    memory(tenant, "The billing service deploys on Fridays", kind="fact")
    assert len({first["memory_id"], twin["memory_id"], other["memory_id"]}) == 3
    items = recall(tenant, "which Postgres does the staging database run", limit=5)
    by_id = {i["memory_id"]: i for i in items}
    lead = by_id.get(first["memory_id"]) or by_id[twin["memory_id"]]
    collapsed = twin["memory_id"] if lead["memory_id"] == first["memory_id"] else first["memory_id"]
    assert collapsed not in by_id  # one item for the two texts
    assert lead["duplicates"] == {"count": 1, "memory_ids": [collapsed]}
    assert other["memory_id"] in by_id  # another number is another fact
    assert by_id[other["memory_id"]].get("duplicates") is None


def test_copies_of_one_trace_collapse_into_one_item(tenant: Tenant) -> None:
    """The same reasoning recorded twice (other evidence, other wording): one item.

    A fresh-user trial: three such traces were the top three of a recall, none collapsed.
    """
    traces = []
    for at, size in (("09:00", "4GB"), ("09:05", "4 GB")):
        ev = memory(tenant, f"The session cache evicted 40k keys at {at}", kind="observation")
        r = tenant.post(
            "/v1/reasoning",
            json={
                "task": "Why is the session cache evicting keys?",
                "steps": [
                    {
                        "kind": "observation",
                        "content": "The cache evicts keys when it reaches its memory limit",
                        "cites": [ev["memory_id"]],
                    },
                    {"kind": "conclusion", "content": "The cache's memory limit is too small"},
                ],
                "produced": {"kind": "decision", "content": f"Raise the cache limit to {size}"},
            },
        )
        assert r.status_code == 201, r.text
        traces.append(r.json()["trace_id"])
    for kinds in (None, ["reasoning"]):  # a page of traces only is read another way
        items = recall(tenant, "why is the session cache evicting keys", limit=6, kinds=kinds)
        stories = [i for i in items if i["memory_id"] in traces]
        assert len(stories) == 1, (kinds, [i["memory_id"] for i in items])
        (other,) = set(traces) - {stories[0]["memory_id"]}
        assert stories[0]["duplicates"] == {"count": 1, "memory_ids": [other]}


def test_keyed_facts_about_different_subjects_never_collapse(tenant: Tenant) -> None:
    """Same content, different keys: three facts, three items (a fresh-user trial saw one)."""
    ids_by_subject = {
        who: memory(
            tenant, "Works on the payments team", kind="fact", subject=who, attribute="team"
        )["memory_id"]
        for who in ("bob", "carol", "dave")
    }
    twin = memory(tenant, "Works on the payments team.", kind="fact", subject="bob", attribute="x")
    items = recall(tenant, "who works on the payments team", limit=10)
    by_id = {i["memory_id"]: i for i in items}
    assert set(ids_by_subject.values()) <= set(by_id)
    assert twin["memory_id"] in by_id  # another attribute of bob is another fact
    assert all(by_id[m].get("duplicates") is None for m in ids_by_subject.values())


@pytest.mark.parametrize(
    "query",
    [
        "what fixed the flaky upload test",
        "The setup code has a race; the lock fixes it",
        "why does test_upload fail intermittently in CI",
    ],
)
def test_a_decision_and_its_trace_are_one_result_group(tenant: Tenant, query: str) -> None:
    story = flaky_test_story(tenant)
    trace_id = story["trace"]["trace_id"]
    decision_id = story["trace"]["produced"][0]["memory_id"]
    items = recall(tenant, query, limit=10)
    found = ids(items)
    assert (trace_id in found) != (decision_id in found), found  # exactly one of the two
    lead = items[found.index(trace_id if trace_id in found else decision_id)]
    if lead["memory_id"] == decision_id:
        assert lead["reasoning"]["trace_id"] == trace_id
        assert lead["reasoning"]["task"] == "Why does test_upload fail intermittently in CI?"
        assert lead["has_reasoning"] is True
    else:
        assert [p["memory_id"] for p in lead["produced_items"]] == [decision_id]
        assert [s["index"] for s in lead["steps"]] == list(range(9))  # the trace, whole
    assert len(found) == len(set(found))


def test_explain_says_why_each_item_matched(tenant: Tenant) -> None:
    memory(tenant, "The staging database runs Postgres 16", kind="fact")
    memory(tenant, "Deploys to staging happen every Friday afternoon")
    memory(tenant, "Nothing here shares a word")
    items = recall(tenant, "staging database version", limit=3, explain=True)
    assert items and all("explain" in i for i in items)
    top = items[0]["explain"]
    assert items[0]["content"] == "The staging database runs Postgres 16"
    assert top["fusion"] == "weighted"
    assert top["lexical"]["bm25"] > 0 and top["vector"]["similarity"] > 0
    assert top["lexical"]["contribution"] == pytest.approx(0.6 * top["lexical"]["normalised"])
    assert top["vector"]["contribution"] == pytest.approx(0.4 * top["vector"]["normalised"])
    assert top["fused"] == pytest.approx(
        top["lexical"]["contribution"] + top["vector"]["contribution"]
    )
    assert set(top["matched_terms"]) == {"staging", "database"}  # not "version"
    assert top["context_terms"] == []
    assert recall(tenant, "staging database version", limit=3)[0].get("explain") is None


def test_a_match_through_the_context_alone_counts_half(tenant: Tenant) -> None:
    """A bare output found through the command before it (trial 7: "344" ranked 3rd)."""
    memory(tenant, "Count the rows of the orders export", episode="sess-7", position=0)
    bare = memory(tenant, "344", episode="sess-7", position=1)
    said = memory(tenant, "The orders export holds one row per order and count", kind="fact")
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    finder = services.retrieval.candidates
    query = "count rows orders export"
    discounted = {h.memory_id: h.score for h in _fulltext(services, tenant.namespace, query).hits}
    finder.config = replace(finder.config, context_weight=1.0)
    try:
        plain = {h.memory_id: h.score for h in _fulltext(services, tenant.namespace, query).hits}
    finally:
        finder.config = services.retrieval.config
    assert discounted[bare["memory_id"]] == pytest.approx(0.5 * plain[bare["memory_id"]])
    assert discounted[said["memory_id"]] == plain[said["memory_id"]] > 0
    items = recall(tenant, query, limit=3, explain=True)
    assert bare["memory_id"] != items[0]["memory_id"]


def test_explain_tells_terms_of_the_text_from_terms_of_its_context(tenant: Tenant) -> None:
    """A short turn found through the turn before it: its own text does not hold those words."""
    memory(tenant, "How many rows does the orders export hold?", episode="sess-9", position=0)
    answer = memory(tenant, "344", episode="sess-9", position=1)
    items = recall(tenant, "rows in the orders export: 344?", limit=5, explain=True)
    found = {i["memory_id"]: i["explain"] for i in items}
    assert answer["memory_id"] in found
    why = found[answer["memory_id"]]
    assert why["matched_terms"] == ["344"]
    assert set(why["context_terms"]) == {"rows", "orders", "export"}


# -- tenant independence ------------------------------------------------------------------------

OWN = [
    "The nightly deploy failed because the artifact registry timed out",
    "Billing uses PostgreSQL 16 with logical replication to the warehouse",
    "The upload test is flaky when two workers share the temp directory",
    "Staging runs on three nodes behind an nginx load balancer",
    "Alice owns the payments service and reviews its migrations",
    "Database connection pool exhausted during the Black Friday peak",
    "We pin the Python version to 3.11 in CI and in production images",
    "The search index is rebuilt every night at 02:00 UTC",
    "Deploys are frozen during the last week of the quarter",
    "The registry mirror in eu-west caches container images for a week",
    "Cache hit rate dropped to 40% after the CDN configuration change",
    "Incident review: the deploy pipeline retried a failed migration twice",
]
QUERIES = [
    "why did the nightly deploy fail",
    "which database does billing use",
    "what is wrong with the upload test",
    "cache problems after the CDN change",
]
FILLER_WORDS = [
    "deploy",
    "database",
    "registry",
    "cache",
    "upload",
    "test",
    "nightly",
    "billing",
    "service",
    "staging",
    "node",
    "migration",
    "pipeline",
    "incident",
    "worker",
    "image",
    "index",
    "payments",
    "timeout",
    "replication",
    "network",
    "queue",
    "latency",
    "error",
    "config",
    "cluster",
    "storage",
    "backup",
    "alert",
    "metric",
    "log",
    "request",
    "user",
]


def test_ranking_does_not_depend_on_another_large_tenant(
    tenant: Tenant, other_tenant: Tenant, neo4j_driver: Driver
) -> None:
    """Same query, same namespace: identical top 10 before and after 8,000 memories elsewhere."""
    for i, text in enumerate(OWN):
        memory(tenant, text, episode="notes", position=i)
    for text in OWN[:6]:  # the other tenant also holds the very same texts
        memory(other_tenant, text)
    before = [ids(recall(tenant, q, limit=10)) for q in QUERIES]
    rng = random.Random(12)
    now = utcnow()
    writer = Writer(other_tenant.namespace, "user", "bulk")
    with neo4j_driver.session() as s:
        for _batch in range(8):
            rows = []
            for _ in range(1000):
                text = " ".join(rng.choice(FILLER_WORDS) for _ in range(rng.randint(6, 14)))
                v = [rng.gauss(0, 1) for _ in range(384)]
                norm = sum(x * x for x in v) ** 0.5
                props = build_memory_row(
                    writer, "observation", text, [x / norm for x in v], now=now
                )
                rows.append(props)
            s.run(
                "UNWIND $rows AS row CREATE (m:Memory:Observation) SET m = row",
                rows=rows,
            ).consume()
    after = [ids(recall(tenant, q, limit=10)) for q in QUERIES]
    assert after == before
    assert all(len(b) == len(OWN) or len(b) == 10 for b in before)


HARBOUR_WORDS = [
    "quiet",
    "morning",
    "walk",
    "coffee",
    "friend",
    "garden",
    "painting",
    "weekend",
    "music",
    "market",
    "bridge",
    "river",
    "boat",
    "evening",
    "light",
    "street",
    "window",
    "photo",
    "dinner",
    "story",
]


def _harbour_texts(rng: random.Random) -> list[str]:
    """300 texts: 120 name the harbour, 120 the lantern, 60 both (1-3 times), 4-30 words each."""
    texts = []
    for i in range(300):
        words = [rng.choice(HARBOUR_WORDS) for _ in range(rng.randint(4, 30))]
        names = ["harbour"] if i < 120 else ["lantern"] if i < 240 else ["harbour", "lantern"]
        for name in names:
            for _ in range(rng.randint(1, 3)):
                words.insert(rng.randint(0, len(words)), name)
        texts.append(" ".join(words))
    return texts


def _load_a_harbour_heavy_tenant(driver: Driver, other: Tenant, rng: random.Random) -> None:
    """Bulk-write 6,000 short memories of `other`, each holding "harbour"."""
    now = utcnow()
    writer = Writer(other.namespace, "user", "bulk")
    with driver.session() as s:
        for _batch in range(3):
            rows = []
            for _ in range(2000):
                text = f"harbour {rng.choice(FILLER_WORDS)} {rng.choice(FILLER_WORDS)}"
                v = [rng.gauss(0, 1) for _ in range(384)]
                norm = sum(x * x for x in v) ** 0.5
                rows.append(
                    build_memory_row(writer, "observation", text, [x / norm for x in v], now=now)
                )
            s.run(
                "UNWIND $rows AS row CREATE (m:Memory:Observation) SET m = row", rows=rows
            ).consume()


HARBOUR_QUERIES = ["harbour lantern", "the lantern by the harbour at night", "harbour walk"]


@pytest.mark.parametrize("scoring", ["namespace", "word_lists"])
def test_lexical_candidates_do_not_depend_on_another_tenant_beyond_the_depth(
    tenant: Tenant,
    other_tenant: Tenant,
    neo4j_driver: Driver,
    monkeypatch: pytest.MonkeyPatch,
    scoring: str,
) -> None:
    """Same query, same namespace: identical top 10 although the namespace holds 240 matches
    of the query's words (more than `lexical_depth`, 100) and another tenant then makes one of
    the words common and the index's average length short (6,000 memories, bulk-written).
    `namespace` (the default) asks the index for every match (fewer than 10 * depth);
    `word_lists` cuts each word's list by the namespace's own texts."""
    finder = tenant.client.app.state.services.retrieval.candidates  # type: ignore[attr-defined]
    monkeypatch.setattr(finder, "config", replace(finder.config, lexical_scoring=scoring))
    rng = random.Random(5)
    items = [{"kind": "observation", "content": text} for text in _harbour_texts(rng)]
    r = tenant.post("/v1/memories/batch", json={"items": items})
    assert r.status_code in (200, 201), r.text
    before = [ids(recall(tenant, q, limit=10)) for q in HARBOUR_QUERIES]
    _load_a_harbour_heavy_tenant(neo4j_driver, other_tenant, rng)
    after = [ids(recall(tenant, q, limit=10)) for q in HARBOUR_QUERIES]
    assert all(len(b) == 10 for b in before)
    assert after == before


def test_the_namespace_scoring_asks_for_every_match_of_a_small_namespace(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """240 matches of "harbour lantern" (at most 300, the namespace's size, by the counts): the first recall
    counts them and asks again for all (two rounds); with the counts cached, one round asks
    for all at once. With `lexical_complete` 0 the index's top 100 is kept."""
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    finder = services.retrieval.candidates
    finder.statistics = type(finder.statistics)(finder.config.fulltext_index)
    items = [{"kind": "observation", "content": text} for text in _harbour_texts(random.Random(5))]
    r = tenant.post("/v1/memories/batch", json={"items": items})
    assert r.status_code in (200, 201), r.text
    first = _fulltext(services, tenant.namespace, "harbour lantern")
    again = _fulltext(services, tenant.namespace, "harbour lantern")
    assert (first.rounds, again.rounds) == (2, 1)
    assert first.k == again.k == 301  # min(300 memories, 180 + 180) + 1
    assert [(h.uid, h.score) for h in first.hits] == [(h.uid, h.score) for h in again.hits]
    assert len(first.hits) == 100
    monkeypatch.setattr(finder, "config", replace(finder.config, lexical_complete=0))
    cut = _fulltext(services, tenant.namespace, "harbour lantern")
    assert (cut.rounds, cut.k) == (1, 100)


def test_a_word_rare_in_the_namespace_keeps_its_matches_when_another_tenant_makes_it_common(
    tenant: Tenant, other_tenant: Tenant, neo4j_driver: Driver
) -> None:
    """150 short memories say "lantern" 1-3 times; 10 long ones say "harbour" and "lantern"
    once. In the namespace "harbour" is rare, so those 10 are its best fulltext matches of
    "harbour lantern", before and after another tenant writes "harbour" 6,000 times. Lucene's
    index-wide top 100 of the 160 matches prefers the short lantern memories once "harbour"
    is common (and already does when an earlier test left such a tenant), so this holds only
    because every match of a small namespace is a candidate."""
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    rng = random.Random(11)
    texts = []
    for _ in range(150):
        words = [rng.choice(HARBOUR_WORDS) for _ in range(rng.randint(4, 12))]
        for _ in range(rng.randint(1, 3)):
            words.insert(rng.randint(0, len(words)), "lantern")
        texts.append(" ".join(words))
    rare = [
        " ".join(["harbour", *(rng.choice(HARBOUR_WORDS) for _ in range(30)), "lantern"])
        for _ in range(10)
    ]
    r = tenant.post(
        "/v1/memories/batch",
        json={"items": [{"kind": "observation", "content": t} for t in texts + rare]},
    )
    assert r.status_code in (200, 201), r.text
    with neo4j_driver.session() as s:
        expected = set(
            s.run(
                "MATCH (m:Memory {namespace: $ns}) WHERE m.content STARTS WITH 'harbour' "
                "RETURN m.uid AS uid",
                ns=tenant.namespace,
            ).value("uid")
        )
    assert len(expected) == 10

    def top(n: int) -> list[str]:
        return [h.uid for h in _fulltext(services, tenant.namespace, "harbour lantern").hits[:n]]

    before = top(10)
    _load_a_harbour_heavy_tenant(neo4j_driver, other_tenant, rng)
    assert set(before) == expected
    assert top(10) == before


def test_a_namespace_whose_analysed_name_another_shares_keeps_its_matches(
    app_client: TestClient, neo4j_driver: Driver
) -> None:
    """Namespaces `<p>-a` and `<p>-b`: the index's analyzer reads both raw names as `<p>`
    (stop word "a" dropped, split at "-"). 3,000 memories of `<p>-b` holding "harbour" do not
    push `<p>-a`'s 10 harbour memories out of its results (a fresh user's trial found them
    all gone: the fulltext query's namespace clause had matched the raw name too)."""
    prefix = f"trial{uuid.uuid4().hex[:8]}"
    a, b = (new_tenant(app_client, neo4j_driver, f"{prefix}-{x}") for x in ("a", "b"))
    try:
        rng = random.Random(3)
        lanterns = [
            " ".join(["lantern", *(rng.choice(HARBOUR_WORDS) for _ in range(rng.randint(3, 9)))])
            for _ in range(150)
        ]
        harbours = [
            f"report {i}: " + " ".join(["harbour", *(rng.choice(HARBOUR_WORDS) for _ in range(25))])
            for i in range(10)
        ]
        items = [{"kind": "observation", "content": t} for t in lanterns + harbours]
        assert a.post("/v1/memories/batch", json={"items": items}).status_code in (200, 201)
        before = recall(a, "harbour lantern", limit=10)
        for _ in range(3):
            other = [
                {"kind": "observation", "content": f"harbour {rng.choice(FILLER_WORDS)} {i}"}
                for i in range(1000)
            ]
            assert b.post("/v1/memories/batch", json={"items": other}).status_code in (200, 201)
        after = recall(a, "harbour lantern", limit=10)
        assert all(i["content"].startswith("report ") for i in before)
        assert ids(after) == ids(before)
        explained = recall(a, "harbour", limit=10, explain=True)
        assert all(i["explain"]["lexical"] is not None for i in explained)
    finally:
        for t in (a, b):
            t.revoke_keys()
            with neo4j_driver.session() as s:
                s.run(
                    "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS",
                    ns=t.namespace,
                ).consume()


def test_namespace_scores_do_not_depend_on_another_tenant(
    tenant: Tenant, other_tenant: Tenant, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default `namespace` scoring, where the candidates are Lucene's index-wide top 100
    (`lexical_complete` 0: no complete round): a fulltext candidate's score is the same before
    and after another tenant makes a query word common (the namespace's counts, counted again,
    do not move; nor does which other memories Lucene's cut made candidates). Which memories
    make the cut may change (on CI's fresh store 49 of 100 stayed), so only the scores of the
    memories in both sets are compared. (Scored with the candidate set's statistics, as
    before, those moved.)"""
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    finder = services.retrieval.candidates
    monkeypatch.setattr(finder, "config", replace(finder.config, lexical_complete=0))
    rng = random.Random(5)
    items = [{"kind": "observation", "content": text} for text in _harbour_texts(rng)]
    r = tenant.post("/v1/memories/batch", json={"items": items})
    assert r.status_code in (200, 201), r.text

    def scores(text: str) -> dict[str, float]:
        return {h.uid: h.score for h in _fulltext(services, tenant.namespace, text).hits}

    before = [scores(q) for q in HARBOUR_QUERIES]
    _load_a_harbour_heavy_tenant(neo4j_driver, other_tenant, rng)
    finder.statistics = type(finder.statistics)(finder.config.fulltext_index)  # count again
    after = [scores(q) for q in HARBOUR_QUERIES]
    for b, a in zip(before, after, strict=True):
        common = b.keys() & a.keys()
        assert len(common) >= 10
        assert {u: a[u] for u in common} == {u: b[u] for u in common}


# -- traces by their task ----------------------------------------------------------------------


def test_a_trace_is_found_by_its_task(tenant: Tenant, neo4j_driver: Driver) -> None:
    """The task has its own embedding and index: a query restating it scores the trace by it."""
    ev = memory(tenant, "The export worker hit its 2 GB memory limit at 02:10")
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "Why does the nightly export job crash?",
            "steps": [
                {
                    "kind": "observation",
                    "content": "OOM killer log at 02:10",
                    "cites": [ev["memory_id"]],
                },
                {
                    "kind": "observation",
                    "content": "The worker loads all rows into one Python list",
                },
                {
                    "kind": "conclusion",
                    "content": "The worker should stream the rows, not load all",
                },
            ],
        },
    )
    assert r.status_code == 201, r.text
    trace_id = r.json()["trace_id"]
    stored = node(neo4j_driver, trace_id)
    with neo4j_driver.session() as s:
        record = s.run(
            "MATCH (t:ReasoningTrace {memory_id: $id}) RETURN t.task_embedding AS v", id=trace_id
        ).single(strict=True)
        task_vector = record["v"]
    assert len(task_vector) == 384
    assert "task_embedding" not in tenant.get(f"/v1/memories/{trace_id}/lineage").text
    assert stored["search_text"].startswith("Why does the nightly export job crash?\n")

    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    text = "what makes the overnight export task fail"
    q = services.embedder.encode([text])[0]
    by_task = (1 + sum(a * b for a, b in zip(q, task_vector, strict=True))) / 2
    query = RetrievalQuery(
        text=text,
        limit=10,
        kinds=None,
        as_of=utcnow(),
        known_at=None,
        origins=services.policy.origins("recall"),
    )
    found = services.graph.read(
        lambda tx: services.retrieval.candidates.vector(tx, tenant.namespace, query, q)
    )
    trace_hit = next(h for h in found.hits if h.memory_id == trace_id)
    assert trace_hit.score == pytest.approx(by_task, abs=2e-3) or trace_hit.score > by_task
    assert ids(recall(tenant, text, limit=3))[0] == trace_id


def test_the_trace_whose_task_the_query_restates_leads(tenant: Tenant) -> None:
    """A trace's task match counts (`fusion.task_blend`): the query restates one trace's task in
    other words, while other traces repeat the query's own words in their steps."""

    def trace(task: str, steps: list[str]) -> str:
        return small_trace(tenant, task, steps)

    target = trace(
        "Investigate why checkout latency spiked in production after a retry storm",
        ["p99 rose from 180 ms to 2.4 s at 14:02", "p99 rose because the retries tripled the load"],
    )
    decoys = [
        trace(
            f"Find the root cause: checkout {event} in staging following a DNS change",
            [
                "checkout was slow on staging, not on prod; no flood of retries seen",
                "checkout slow again; retries flat, so not a flood of retries",
                f"checkout {event} because of the DNS change",
            ],
        )
        for event in ("returned 500 errors", "dropped connections", "leaked file handles")
    ]
    query = "checkout got very slow on prod shortly after a flood of retries; what was behind it?"
    items = recall(tenant, query, kinds=["reasoning"], limit=4, explain=True)
    assert ids(items)[0] == target
    assert set(ids(items)) == {target, *decoys}
    lead = items[0]["explain"]
    assert lead["task"]["normalised"] == 1.0 and lead["task"]["contribution"] > 0
    # Each decoy shares more of the query's words than the target does.
    words = {i["memory_id"]: len(i["explain"]["matched_terms"]) for i in items}
    assert all(words[d] > words[target] for d in decoys)


def test_a_page_of_traces_skips_candidates_gone_and_stays_full(tenant: Tenant) -> None:
    """`trace_page`: a candidate whose trace is not there is skipped; the next fills the page."""
    written = [
        tenant.post(
            "/v1/reasoning",
            json={
                "task": f"Why did export run {n} stall?",
                "steps": [
                    {
                        "kind": "observation",
                        "content": f"export run {n} stalled on a lock held by the nightly backup",
                    },
                    {
                        "kind": "conclusion",
                        "content": f"schedule export run {n} after the nightly backup releases "
                        "its lock",
                    },
                ],
            },
        ).json()
        for n in (1, 2)
    ]
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    with services.graph.driver.session() as s:
        uids = {
            r["id"]: r["uid"]
            for r in s.run(
                "MATCH (t:ReasoningTrace {namespace: $ns}) RETURN t.memory_id AS id, t.uid AS uid",
                ns=tenant.namespace,
            )
        }

    def ranked(memory_id: str, uid: str) -> Ranked:
        hit = Hit(uid=uid, memory_id=memory_id, kind="reasoning", score=0.5)
        return Ranked(hit=hit, score=0.5, similarity=0.5, last=False)

    first, second = (w["trace_id"] for w in written)
    candidates = [
        ranked("no-such-trace", "no-such-uid"),
        ranked(first, "an-older-version"),
        ranked(second, uids[second]),
        ranked(first, uids[first]),
    ]
    entries, traces = services.graph.read(
        lambda tx: trace_page(tx, tenant.namespace, candidates, 2, utcnow(), ["user"], 0.8)
    )
    assert [e.memory.memory_id for e in entries] == [second, first]
    assert set(traces) == {first, second} and len(traces[first].steps) == 2
