"""Origin-aware recall and search on the hybrid Neo4j index, real model and real Neo4j (issue 5)."""

from __future__ import annotations

import logging
import random
import re
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from service.domain.ingestion.formats.adr_sections import read_document
from service.domain.retrieval import RetrievalConfig, RetrievalRequest, RetrievalService
from service.embeddings import Embedder
from service.namespaces import NAMESPACE_PATTERN
from tests.conftest import Tenant
from tests.factories import flaky_test_story, memory

#: The shared corpus (DESIGN §6: `../shared/corpus`), read in place, never copied into the repo.
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "adrs"
LUCENE_NASTY = [
    "a:b (c) [d] AND OR \\ ~*?",
    '"',
    "\\",
    "AND",
    "-",
    "(((",
    "OR NOT",
    "&& || !",
    "title:x^2~0.5",
    "/regex/",
]


def recall(t: Tenant, query: str, **body: Any) -> list[dict[str, Any]]:
    r = t.post("/v1/recall", json={"query": query, **body})
    assert r.status_code == 200, r.text
    assert r.json()["count"] == len(r.json()["items"])
    return r.json()["items"]  # type: ignore[no-any-return]


def search(t: Tenant, query: str, **body: Any) -> list[dict[str, Any]]:
    r = t.post("/v1/search", json={"query": query, **body})
    assert r.status_code == 200, r.text
    assert r.json()["count"] == len(r.json()["items"])
    return r.json()["items"]  # type: ignore[no-any-return]


def ids(items: list[dict[str, Any]]) -> list[str]:
    return [i["memory_id"] for i in items]


def cypher(driver: Driver, query: str, **params: Any) -> list[dict[str, Any]]:
    with driver.session() as s:
        return s.run(query, **params).data()


def story_ids(story: dict[str, Any]) -> set[str]:
    trace = story["trace"]
    out = {story[k]["memory_id"] for k in ("log", "cache", "tz", "tmpdir", "green")}
    return out | {trace["trace_id"]} | {p["memory_id"] for p in trace["produced"]}


# -- visibility -------------------------------------------------------------------------------


def test_maintenance_trace_is_not_recalled_but_is_searchable_and_in_lineage(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    story = flaky_test_story(tenant)
    trace_id = story["trace"]["trace_id"]
    decision_id = story["trace"]["produced"][0]["memory_id"]
    query = "why does test_upload fail intermittently in CI"
    assert trace_id in ids(recall(tenant, query))  # user-written: recalled

    cypher(
        neo4j_driver,
        "MATCH (t:ReasoningTrace {namespace: $ns, memory_id: $id}) SET t.created_by_origin = 'maintenance'",
        ns=tenant.namespace,
        id=trace_id,
    )

    items = recall(tenant, query, limit=20)
    assert trace_id not in ids(items)
    decision = next(i for i in items if i["memory_id"] == decision_id)
    assert decision["has_reasoning"] is True  # lineage-visible reasoning still stands behind it
    assert decision["lineage"] == f"/v1/memories/{decision_id}/lineage"
    assert "steps" not in decision  # the reasoning is not inlined in the decision's item

    found = search(tenant, query, limit=20)
    hit = next(i for i in found if i["memory_id"] == trace_id)
    assert hit["origin"] == "maintenance"
    assert hit["created_by"]["origin"] == "maintenance"
    assert [s["index"] for s in hit["steps"]] == list(range(9))  # a trace comes back whole
    assert all(i["origin"] == i["created_by"]["origin"] for i in found)

    lineage = tenant.get(f"/v1/memories/{decision_id}/lineage").json()
    assert [t["trace_id"] for t in lineage["traces"]] == [trace_id]
    assert lineage["traces"][0]["created_by"]["origin"] == "maintenance"


def test_decision_last_modified_by_maintenance_stays_in_recall(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    d = memory(tenant, "Use PostgreSQL 16 for the billing service", kind="decision")
    r = tenant.patch(
        f"/v1/memories/{d['memory_id']}", json={"confidence": 0.7}, headers={"If-Match": "1"}
    )
    assert r.status_code == 200, r.text
    cypher(
        neo4j_driver,
        "MATCH (m:Memory {namespace: $ns, memory_id: $id, version: 2}) "
        "SET m.last_modified_by_origin = 'maintenance', m.last_modified_by_actor = 'job:evidence-drift'",
        ns=tenant.namespace,
        id=d["memory_id"],
    )
    items = recall(tenant, "which database does billing use")
    hit = next(i for i in items if i["memory_id"] == d["memory_id"])
    assert hit["version"] == 2
    assert hit["current"] is True
    assert hit["created_by"]["origin"] == "user"
    assert hit["last_modified_by"]["origin"] == "maintenance"


def test_rejected_hypothesis_never_comes_back_as_a_standalone_memory(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    trace_id = story["trace"]["trace_id"]
    known = story_ids(story)
    for hypothesis in (
        "Maybe it is the cache serving a stale fixture",
        "Could be a timezone issue in the fixture dates",
    ):
        for items in (
            recall(tenant, hypothesis, limit=100),
            search(tenant, hypothesis, limit=100, include_superseded=True),
        ):
            assert items
            assert all(i["memory_id"] in known for i in items)
            assert all(i.get("content") != hypothesis for i in items)
            assert {i["kind"] for i in items} <= {
                "fact",
                "decision",
                "procedure",
                "observation",
                "reasoning",
            }
            traces = [i for i in items if i["kind"] == "reasoning"]
            assert [t["memory_id"] for t in traces] == [trace_id]
            steps = traces[0]["steps"]
            assert [s["index"] for s in steps] == list(range(9))
            assert (steps[1]["status"], steps[1]["rejected_by"]) == ("rejected", 3)
            assert (steps[2]["status"], steps[2]["rejected_by"]) == ("rejected", 4)


def test_no_answer_holds_another_namespace(
    tenant: Tenant, other_tenant: Tenant, neo4j_driver: Driver
) -> None:
    """Identical stories (same texts, same Task text) in two namespaces: each sees only its own."""
    mine = flaky_test_story(tenant)
    theirs = flaky_test_story(other_tenant)
    my_ids = story_ids(mine)
    assert not my_ids & story_ids(theirs)
    task_namespaces = cypher(
        neo4j_driver,
        "MATCH (t:Task {content: 'Why does test_upload fail intermittently in CI?'}) "
        "WHERE t.namespace IN [$a, $b] RETURN t.namespace AS ns",
        a=tenant.namespace,
        b=other_tenant.namespace,
    )
    assert sorted(r["ns"] for r in task_namespaces) == sorted(
        [tenant.namespace, other_tenant.namespace]
    )

    seen: set[str] = set()
    for query in (
        "why does test_upload fail",
        "Why does test_upload fail intermittently in CI?",
        "temp directory lock race",
    ):
        for items in (
            recall(tenant, query, limit=100),
            search(tenant, query, limit=100, include_superseded=True),
        ):
            for item in items:
                seen.add(item["memory_id"])
                seen |= {p["memory_id"] for p in item.get("produced", [])}
                seen |= {c["memory_id"] for s in item.get("steps", []) for c in s["cites"]}
    decision_id = mine["trace"]["produced"][0]["memory_id"]
    lineage = tenant.get(f"/v1/memories/{decision_id}/lineage").json()
    seen |= {t["trace_id"] for t in lineage["traces"]}
    seen |= {c["memory_id"] for t in lineage["traces"] for s in t["steps"] for c in s["cites"]}
    assert (
        tenant.get(
            f"/v1/memories/{theirs['trace']['produced'][0]['memory_id']}/lineage"
        ).status_code
        == 404
    )

    assert seen == my_ids
    rows = cypher(
        neo4j_driver,
        "MATCH (m:Memory) WHERE m.memory_id IN $ids RETURN collect(DISTINCT m.namespace) AS ns",
        ids=sorted(seen),
    )
    assert rows[0]["ns"] == [tenant.namespace]


def test_overfetch_never_comes_back_short(
    tenant: Tenant, other_tenant: Tenant, embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """300 near-copies of the query elsewhere outrank all 15 of the caller's matches, in both indexes."""
    query = "the nightly deploy failed because the artifact registry timed out"
    crowd = [
        f"The nightly deploy failed because the artifact registry timed out (run {i})"
        for i in range(300)
    ]
    own = [
        f"Deploy {i} broke: pulling images from the artifact registry took too long"
        for i in range(15)
    ]
    vectors = embedder.encode([query, *crowd, *own])

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    crowd_sim = [cos(vectors[0], v) for v in vectors[1:301]]
    own_sim = [cos(vectors[0], v) for v in vectors[301:]]
    assert min(crowd_sim) > max(own_sim)  # the premise: every crowd memory is closer

    for text in crowd:
        memory(other_tenant, text)
    mine = {memory(tenant, text)["memory_id"] for text in own}
    for items in (recall(tenant, query, limit=10), search(tenant, query, limit=10)):
        assert len(items) == 10
        assert set(ids(items)) <= mine
    assert set(ids(recall(tenant, query, limit=15))) == mine

    # One filtered SEARCH returned them: no doubling of k, no exact scan.
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="service.domain.retrieval"):
        services.retrieval.recall(tenant.namespace, RetrievalRequest(query=query, limit=10))
    assert re.findall(
        r"vector candidates: \d+ kept, k=100, current versions, exact scan: (\w+)", caplog.text
    ) == ["False"]


def test_filters_after_search_never_make_a_result_short(
    tenant: Tenant, caplog: pytest.LogCaptureFixture
) -> None:
    """A full page of nearer memories that are no longer valid: the exact scan fills the result."""
    query = "the payments service ran out of database connections"
    for i in range(12):
        memory(
            tenant,
            f"The payments service ran out of database connections (incident {i})",
            valid_from="2020-01-01T00:00:00Z",
            valid_to="2020-02-01T00:00:00Z",
        )
    mine = {
        memory(tenant, f"Connection pool of billing exhausted at peak, case {i}")["memory_id"]
        for i in range(4)
    }
    services = tenant.client.app.state.services  # type: ignore[attr-defined]
    config = RetrievalConfig(vector_depth=10)
    service = RetrievalService(services.graph, services.embedder, services.policy, config)
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="service.domain.retrieval"):
        result = service.recall(tenant.namespace, RetrievalRequest(query=query, limit=4))
    assert {item.memory_id for item in result.items} == mine
    assert re.findall(
        r"vector candidates: \d+ kept, k=10, current versions, exact scan: (\w+)", caplog.text
    ) == ["True"]


# -- text ---------------------------------------------------------------------------------------


GREEK = "\u0397 \u0391\u03b8\u03ae\u03bd\u03b1 \u03b5\u03af\u03bd\u03b1\u03b9 \u03b7 \u03c0\u03c1\u03c9\u03c4\u03b5\u03cd\u03bf\u03c5\u03c3\u03b1 \u03c4\u03b7\u03c2 \u0395\u03bb\u03bb\u03ac\u03b4\u03b1\u03c2"
MULTI_SCRIPT = (
    GREEK,  # "Athens is the capital of Greece"
    "北京是中国的首都",
    "deploy went fine 🚀🔥",
    "The capital of France is Paris",
    "The deploy pipeline runs on Fridays",
    "Tokyo is the capital of Japan",
)


@pytest.mark.parametrize(
    ("query", "target"),
    [
        ("πρωτεύουσα της Ελλάδας", GREEK),
        ("中国的首都", "北京是中国的首都"),
        ("🚀🔥", "deploy went fine 🚀🔥"),
    ],
)
def test_other_scripts_are_found_in_their_script(tenant: Tenant, query: str, target: str) -> None:
    for text in MULTI_SCRIPT:
        memory(tenant, text)
    items = recall(tenant, query, limit=3)
    assert items[0]["content"] == target, [i["content"] for i in items]


def test_lucene_metacharacters_never_give_a_5xx(tenant: Tenant) -> None:
    memory(tenant, "a:b (c) [d] AND OR \\ ~*? is a strange log line")
    memory(tenant, "title:x^2~0.5 appeared in the query log")
    rng = random.Random(5)
    fuzz = [
        "".join(rng.choice('+-&|!(){}[]^"~*?:\\/ ANDORNOTab') for _ in range(rng.randint(1, 30)))
        for _ in range(20)
    ]
    long_cjk = "中国的首都" * 400  # 2000 characters: one Lucene clause per ideograph
    for query in [*LUCENE_NASTY, *fuzz, long_cjk]:
        for path in ("/v1/recall", "/v1/search"):
            r = tenant.post(path, json={"query": query})
            assert r.status_code == 200, (path, query, r.text)
    hit = recall(tenant, "a:b (c) [d] AND OR \\ ~*?", limit=1)
    assert hit[0]["content"].startswith("a:b (c)")


# -- quality ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "why does test_upload fail",
        "test_upload fails intermittently in CI",
        "what fixed the flaky upload test",
        "race condition in the test setup temp directory",
    ],
)
def test_flaky_story_comes_back_for_the_question(tenant: Tenant, query: str) -> None:
    story = flaky_test_story(tenant)
    wanted = {story["trace"]["trace_id"], story["trace"]["produced"][0]["memory_id"]}
    top3 = ids(recall(tenant, query, limit=3))
    assert wanted & set(top3), top3


def test_poor_traces_rank_lower_and_rejected_ones_last(
    tenant: Tenant, neo4j_driver: Driver
) -> None:
    """Three copies of one trace: accepted, poor (as ingestion's annotate policy stores it), rejected."""
    ev = memory(tenant, "The nightly export job exceeded its 2 GB memory limit")
    body = {
        "task": "Why does the nightly export job crash?",
        "steps": [
            {
                "kind": "observation",
                "content": "The export job exceeded its memory limit",
                "cites": [ev["memory_id"]],
            },
            {
                "kind": "conclusion",
                "content": "The export job needs streaming instead of loading everything",
            },
        ],
    }
    traces = []
    # The same reasoning three times is one trace: the copies differ by a mark.
    for mark in ("", ".", "!"):
        conclusion = "The export job needs streaming instead of loading everything" + mark
        steps = [body["steps"][0], {"kind": "conclusion", "content": conclusion}]
        r = tenant.post("/v1/reasoning", json={**body, "steps": steps})
        assert r.status_code == 201, r.text
        traces.append(r.json()["trace_id"])
    accepted, poor, rejected = traces
    for trace_id, verdict, score in ((poor, "poor", 0.4), (rejected, "rejected", 0.1)):
        cypher(
            neo4j_driver,
            "MATCH (t:ReasoningTrace {namespace: $ns, memory_id: $id}) SET t.quality_verdict = $v, t.quality_score = $s",
            ns=tenant.namespace,
            id=trace_id,
            v=verdict,
            s=score,
        )
    items = recall(tenant, "why does the nightly export job crash", limit=10)
    ranked = [i["memory_id"] for i in items if i["kind"] == "reasoning"]
    # The poor copy ranks below the accepted one, so it collapses into it (a near-duplicate);
    # the rejected one never collapses and comes last, below the plain observation too.
    assert ranked == [accepted, rejected]
    assert items[0]["memory_id"] == accepted
    assert items[0]["duplicates"] == {"count": 1, "memory_ids": [poor]}
    assert items[-1]["memory_id"] == rejected and items[-1].get("duplicates") is None


def adr_decision_text(path: Path) -> tuple[str, str]:
    """Return (title, title + first prose paragraph(s) of at least 120 characters) of an ADR.

    The title is the ADR parser's (`read_document`: the first `# ` heading, else the front
    matter's `title`), so records without a level-one heading are read too.
    """
    text = path.read_text(encoding="utf-8")
    title = read_document(text).title
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)
    prose = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if not para or para.startswith(
            ("#", ">", "-", "*", "<!--", "```", "|", ":::", "Technical Story")
        ):
            continue
        prose.append(" ".join(para.split()))
        if sum(len(p) for p in prose) >= 120:
            break
    return title, f"{title}. {' '.join(prose)}"


ADR_QUERIES = [
    (
        "Which file format do we use to save AI chat conversations between sessions?",
        "0033-store-chats-in-mvstore",
    ),
    (
        "storing chat history in a memory-efficient embedded key-value store",
        "0033-store-chats-in-mvstore",
    ),
    (
        "Should embedding vectors be computed by a local model or a cloud API?",
        "0035-generate-embeddings-online",
    ),
    (
        "OpenAI versus langchain4j for turning paper chunks into vectors",
        "0035-generate-embeddings-online",
    ),
    (
        "How does retrieval-augmented generation answer questions about research papers?",
        "0037-rag-architecture-implementation",
    ),
    (
        "split documents into chunks so the language model gets relevant context",
        "0037-rag-architecture-implementation",
    ),
    (
        "every subcommand should take its input file the same way with a flag",
        "0045-use-input-flag-always-for-input-files",
    ),
    (
        "let users pass the bib file as a plain positional argument to jabkit",
        "0057-allow-positional-input-file-argument",
    ),
    (
        "how do we identify an architecture decision record, by its number?",
        "20200926-use-the-adr-number-as-its-unique-id",
    ),
    (
        "two branches creating decision records get merge conflicts over numbering",
        "20201016-use-the-adr-slug-as-its-unique-id",
    ),
    (
        "use the file name with a date prefix as the record's identifier",
        "20201016-use-the-adr-slug-as-its-unique-id",
    ),
    ("should a decision record say whether it is accepted or deprecated?", "0008-add-status-field"),
    # the records added with the other templates (Alexandrian, Tyree & Akerman, front matter, changelog)
    (
        "which template should our architecture decision records follow?",
        "012adr-adopt-adr-template",
    ),
    (
        "load configuration from files, environment variables and the command line",
        "013adr-configuration",
    ),
    ("which HTTP client library should backend code use to fetch data?", "adr013-use-node-fetch"),
    ("make fewer Go packages public to shrink the API surface", "adr-109-reduce-go-api-surface"),
    (
        "where do we document architecture decisions so that everyone can read them",
        "2021-12-12_create_an_adl",
    ),
    (
        "where to keep metadata like date and decision makers in the markdown file",
        "0013-use-yaml-front-matter-for-meta-data",
    ),
]


def test_adr_recall_at_3(tenant: Tenant) -> None:
    """17 ADRs (title + first paragraph) as decisions beside the flaky-test story; 18 paraphrased questions.

    recall@3 = 1.00 measured (18/18); asserting recall@3 >= 0.85.
    """
    flaky_test_story(tenant)
    by_name = {}
    for path in sorted(CORPUS.glob("*/*.md")):
        if path.name == "SOURCE.md":
            continue
        _, text = adr_decision_text(path)
        by_name[path.stem] = memory(tenant, text, kind="decision")["memory_id"]
    assert len(by_name) == 17
    hits = 0
    misses = []
    for query, name in ADR_QUERIES:
        top3 = ids(recall(tenant, query, limit=3))
        if by_name[name] in top3:
            hits += 1
        else:
            misses.append(query)
    assert hits / len(ADR_QUERIES) >= 0.85, misses


# -- limits -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/recall", "/v1/search"])
def test_limits_and_sizes(tenant: Tenant, path: str) -> None:
    assert tenant.post(path, json={"query": "x", "limit": 0}).status_code == 422
    assert tenant.post(path, json={"query": "x", "limit": 101}).status_code == 422
    assert tenant.post(path, json={"query": ""}).status_code == 422
    assert tenant.post(path, json={"query": "   "}).status_code == 422
    assert tenant.post(path, json={"query": "\u200b"}).status_code == 422
    assert tenant.post(path, json={"query": "\u0001\u0002"}).status_code == 422
    r = tenant.post(path, json={"query": "x", "kinds": []})
    assert r.status_code == 422 and "kinds" in r.text
    r = tenant.post(path, json={"query": "x" * 2001})
    assert r.status_code == 413
    assert r.json()["code"] == "input.too_large"
    assert tenant.post(path, json={"query": "x" * 2000, "limit": 100}).status_code == 200
    assert tenant.post(path, json={"query": "x", "as_of": "2024-01-01T00:00:00"}).status_code == 422
    assert tenant.client.post(path, json={"query": "x"}).status_code == 401
    assert (
        tenant.post(
            path,
            json={"query": "x"},
            headers={"Authorization": f"Bearer {tenant.key_with(['write'])}"},
        ).status_code
        == 403
    )


def test_recall_as_of_and_known_at(tenant: Tenant) -> None:
    m = memory(
        tenant, "The on-call rotation is weekly", kind="fact", valid_from="2024-01-01T00:00:00Z"
    )
    before = m["system_from"]
    r = tenant.patch(
        f"/v1/memories/{m['memory_id']}",
        json={"content": "The on-call rotation is every two weeks"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200
    assert [i["content"] for i in recall(tenant, "on-call rotation")] == [
        "The on-call rotation is every two weeks"
    ]
    assert [i["content"] for i in recall(tenant, "on-call rotation", known_at=before)] == [
        "The on-call rotation is weekly"
    ]
    assert recall(tenant, "on-call rotation", as_of="2023-06-01T00:00:00Z") == []


def test_recalled_periods_equal_the_stored_ones(tenant: Tenant) -> None:
    """Recall reads period bounds back as text (`retrieval/list_hits`): the same instants as GET."""
    m = memory(
        tenant,
        "The lunar landing checklist was signed off",
        kind="fact",
        valid_from="1969-07-20T20:17:40.123456Z",
        valid_to="2031-01-01T00:00:00+02:00",
    )
    [item] = recall(tenant, "lunar landing checklist")
    stored = tenant.get(f"/v1/memories/{m['memory_id']}").json()
    for field in ("valid_from", "valid_to", "system_from", "system_to"):
        assert item[field] == stored[field] == m[field]
    assert item["valid_from"] == "1969-07-20T20:17:40.123456Z"
    assert item["valid_to"] == "2030-12-31T22:00:00Z"


# -- search -------------------------------------------------------------------------------------


def test_search_origins_filter_never_widens(tenant: Tenant, neo4j_driver: Driver) -> None:
    user = memory(tenant, "The staging cluster runs Kubernetes 1.29", kind="fact")
    maint = memory(tenant, "The staging cluster runs Kubernetes 1.30", kind="fact")
    robot = memory(tenant, "The staging cluster runs Kubernetes 1.31", kind="fact")
    cypher(
        neo4j_driver,
        "MATCH (m:Memory {namespace: $ns, memory_id: $id}) SET m.created_by_origin = 'maintenance'",
        ns=tenant.namespace,
        id=maint["memory_id"],
    )
    cypher(
        neo4j_driver,
        "MATCH (m:Memory {namespace: $ns, memory_id: $id}) SET m.created_by_origin = 'robot'",
        ns=tenant.namespace,
        id=robot["memory_id"],
    )
    query = "staging cluster Kubernetes version"
    assert set(ids(search(tenant, query))) == {user["memory_id"], maint["memory_id"]}
    assert ids(search(tenant, query, origins=["maintenance"])) == [maint["memory_id"]]
    assert ids(search(tenant, query, origins=["user"])) == [user["memory_id"]]
    both = ids(search(tenant, query, origins=["user", "maintenance"]))
    assert sorted(both) == sorted([user["memory_id"], maint["memory_id"]])
    assert ids(recall(tenant, query)) == [user["memory_id"]]


@pytest.mark.parametrize(
    ("origins", "loc", "needle"),
    [
        ([], ["body", "origins"], "at least 1 item"),
        (["robot"], ["body", "origins", 0], "'user', 'ingestion' or 'maintenance'"),
        (["maintenance", "robot"], ["body", "origins", 1], "'user', 'ingestion' or 'maintenance'"),
    ],
)
def test_search_origins_must_name_known_doors(
    tenant: Tenant, origins: list[str], loc: list[Any], needle: str
) -> None:
    r = tenant.post("/v1/search", json={"query": "staging cluster", "origins": origins})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "input.invalid"
    assert [e["loc"] for e in r.json()["detail"]] == [loc]
    assert needle in r.json()["detail"][0]["msg"]


def test_search_kinds_filter(tenant: Tenant) -> None:
    story = flaky_test_story(tenant)
    fact = memory(tenant, "test_upload uses the /tmp/upload-fixture directory", kind="fact")
    query = "test_upload temp directory"
    decisions = search(tenant, query, kinds=["decision"])
    assert ids(decisions) == [story["trace"]["produced"][0]["memory_id"]]
    assert ids(search(tenant, query, kinds=["fact"])) == [fact["memory_id"]]
    traces = search(tenant, query, kinds=["reasoning"])
    assert ids(traces) == [story["trace"]["trace_id"]]
    assert traces[0]["steps"]
    both = search(tenant, query, kinds=["fact", "decision"], limit=100)
    assert {i["kind"] for i in both} == {"fact", "decision"}
    assert {i["kind"] for i in recall(tenant, query, kinds=["observation"], limit=100)} == {
        "observation"
    }
    assert tenant.post("/v1/search", json={"query": query, "kinds": ["step"]}).status_code == 422


def test_search_include_superseded_shows_the_old_version(tenant: Tenant) -> None:
    m = memory(tenant, "The API rate limit is 100 requests per minute", kind="fact")
    r = tenant.patch(
        f"/v1/memories/{m['memory_id']}",
        json={"content": "The API rate limit is 300 requests per minute"},
        headers={"If-Match": "1"},
    )
    assert r.status_code == 200
    query = "API rate limit requests per minute"
    current = search(tenant, query)
    assert [(i["version"], i["system_to"]) for i in current] == [(2, None)]
    everything = search(tenant, query, include_superseded=True)
    versions = sorted(
        (i["version"], i["current"], i["system_to"] is None, i["content"]) for i in everything
    )
    assert versions == [
        (1, False, False, "The API rate limit is 100 requests per minute"),
        (2, True, True, "The API rate limit is 300 requests per minute"),
    ]
    assert all(i["memory_id"] == m["memory_id"] for i in everything)
    assert [i["version"] for i in recall(tenant, query)] == [2]


def test_a_history_search_shows_invalidated_and_retracted_memories(tenant: Tenant) -> None:
    # A fresh-user trial: an invalidated memory came back only as its first version (valid_to
    # null: read as still true) and a retracted one not at all.
    ended = memory(tenant, "The okapi team's office is in Berlin", kind="fact")
    wrong = memory(tenant, "The okapi build server runs Debian 9", kind="fact")
    r = tenant.post(f"/v1/memories/{ended['memory_id']}/invalidate", json={"reason": "moved"})
    assert r.status_code == 200, r.text
    r = tenant.post(f"/v1/memories/{wrong['memory_id']}/retract", json={"reason": "never true"})
    assert r.status_code == 200, r.text
    assert search(tenant, "okapi office build server") == []
    found = search(tenant, "okapi office build server", include_superseded=True, limit=20)
    versions = {(i["memory_id"], i["version"]): i for i in found}
    assert set(versions) == {
        (ended["memory_id"], 1),
        (ended["memory_id"], 2),
        (wrong["memory_id"], 1),
    }, found
    assert versions[(ended["memory_id"], 2)]["valid_to"] is not None
    assert versions[(wrong["memory_id"], 1)]["system_to"] is not None
    # an explicit as_of still filters valid time: after the invalidation, only the belief
    # of the time before it (version 1, closed in system time) said the office was there
    later = search(
        tenant,
        "okapi office build server",
        include_superseded=True,
        as_of=versions[(ended["memory_id"], 2)]["valid_to"],
    )
    assert (ended["memory_id"], 2) not in {(i["memory_id"], i["version"]) for i in later}


def test_browser_guide_refuses_a_namespace_no_key_can_hold(tenant: Tenant) -> None:
    assert tenant.client.get("/browser/guide", params={"namespace": "a.b"}).status_code == 422
    assert tenant.client.get("/browser/guide", params={"namespace": "x" * 65}).status_code == 422
    assert tenant.client.get("/browser/guide", params={"namespace": "team-a"}).status_code == 200
    # The OpenAPI document states the rule the service applies.
    operation = tenant.client.get("/openapi.json").json()["paths"]["/browser/guide"]["get"]
    (param,) = [p for p in operation["parameters"] if p["name"] == "namespace"]
    assert param["schema"]["pattern"] == NAMESPACE_PATTERN
