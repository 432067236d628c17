"""A decision produced by ingested reasoning the quality gate rejected is written `challenged`.

Trial 23: a ReAct run concluded "the flag is enabled" against its own observation that it is
disabled; the trace was `rejected` (`contradicts_evidence`), but its decision came back first in
recall and precedents as `active`, with nothing on the item to say so.
"""

from __future__ import annotations

from tests.conftest import Tenant

CONTRADICTION = """Question: Is the feature flag new_checkout enabled in production?
Thought 1: I should read the flag configuration for production.
Action 1: Lookup[new_checkout production]
Observation 1: The feature flag new_checkout is disabled in production.
Thought 2: I have the answer.
Action 2: Finish[The feature flag new_checkout is enabled in production.]
"""

SOUND = CONTRADICTION.replace(
    "Observation 1: The feature flag new_checkout is disabled",
    "Observation 1: The feature flag new_checkout is enabled",
)


def test_the_decision_of_rejected_reasoning_is_challenged(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/ingest", json={"format": "auto", "content": CONTRADICTION, "source_name": "run.txt"}
    )
    assert r.status_code == 201, r.text
    assert [q["verdict"] for q in r.json()["quality"]] == ["rejected"]
    decisions = tenant.post(
        "/v1/search", json={"query": "new_checkout enabled", "kinds": ["decision"]}
    ).json()["items"]
    assert len(decisions) == 1
    assert decisions[0]["status"] == "challenged"
    assert decisions[0]["change_reason"].startswith(
        "challenged: the reasoning that produced it did not pass the quality gate ("
    )
    assert "contradicts_evidence" in decisions[0]["change_reason"]


def test_the_decision_of_sound_reasoning_stays_active(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/ingest", json={"format": "auto", "content": SOUND, "source_name": "run.txt"}
    )
    assert r.status_code == 201, r.text
    assert [q["verdict"] for q in r.json()["quality"]] == ["accepted"]
    decisions = tenant.post(
        "/v1/search", json={"query": "new_checkout enabled", "kinds": ["decision"]}
    ).json()["items"]
    assert [d["status"] for d in decisions] == ["active"]
    assert decisions[0]["change_reason"] is None
