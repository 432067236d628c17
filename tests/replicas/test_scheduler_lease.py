"""Two service processes with the maintenance scheduler on: each round runs once per period.

The replicas share the lease `:Lease {name}` in Neo4j (a fresh name per test, and only this
test's namespace in the rounds), with a period of `PERIOD_S`. Their logs say when each round
and each job started and on which process; Neo4j's lease counts the rounds it granted. Then
the holder is SIGKILLed and the other replica takes the schedule over once the lease runs out.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from dataclasses import dataclass
from datetime import datetime

import httpx

from service.domain.maintenance import JOB_NAMES
from tests.replicas.conftest import Cluster, Replica

PERIOD_S = 3.0
#: A round's log line is written a moment after Neo4j granted the lease.
LOG_DELAY_S = 0.75
RUN_S = 25.0

ROUND = re.compile(r"^(\S+ \S+) INFO \S+: maintenance round (\d+) by (\S+) ")
JOB = re.compile(r"^(\S+ \S+) INFO \S+: maintenance (\S+) on (\S+): examined")


@dataclass(frozen=True)
class Event:
    at: float
    replica: str
    what: str


def parse_time(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f").timestamp()


def events(replica: Replica, label: str, namespace: str) -> tuple[list[Event], list[Event]]:
    rounds, jobs = [], []
    for line in replica.log().splitlines():
        if m := ROUND.match(line):
            rounds.append(Event(parse_time(m.group(1)), label, m.group(2)))
        elif (m := JOB.match(line)) and m.group(3) == namespace:
            jobs.append(Event(parse_time(m.group(1)), label, m.group(2)))
    return rounds, jobs


def lease(cluster: Cluster, name: str) -> dict[str, object]:
    with cluster.driver.session() as session:
        row = session.run(
            "MATCH (l:Lease {name: $name}) RETURN l.holder AS holder, l.rounds AS rounds",
            name=name,
        ).single()
    assert row is not None, f"no lease {name}"
    return dict(row)


def assert_once_per_period(rounds: list[Event], jobs: list[Event], cut_short: int = 1) -> None:
    """Round starts and each job's runs are a period apart; every round ran every job.

    `cut_short` rounds may have stopped before their last job (the one running when the logs
    were read, and one killed mid-round).
    """
    starts = sorted(e.at for e in rounds)
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert all(g >= PERIOD_S - LOG_DELAY_S for g in gaps), (gaps, rounds)
    for job in JOB_NAMES:
        runs = sorted(e.at for e in jobs if e.what == job)
        assert len(rounds) - cut_short <= len(runs) <= len(rounds), (job, len(runs), len(rounds))
        job_gaps = [b - a for a, b in itertools.pairwise(runs)]
        assert all(g >= PERIOD_S - LOG_DELAY_S for g in job_gaps), (job, job_gaps)


def test_each_round_runs_once_per_period_across_two_replicas(cluster: Cluster) -> None:
    name = cluster.lease_name()
    env = {
        "RATIONALE_MAINTENANCE_SCHEDULE_S": str(PERIOD_S),
        "RATIONALE_MAINTENANCE_LEASE": name,
        "RATIONALE_MAINTENANCE_NAMESPACES": json.dumps([cluster.namespace]),
    }
    a, b = cluster.replica("lease-a", **env), cluster.replica("lease-b", **env)
    cluster.start(a, b)
    with httpx.Client(base_url=a.base_url, headers=cluster.headers, timeout=60) as http:
        for i in range(3):
            r = http.post("/v1/memories", json={"kind": "fact", "content": f"fact {i} to scan"})
            assert r.status_code == 201, r.text
    time.sleep(RUN_S)

    rounds_a, jobs_a = events(a, "a", cluster.namespace)
    rounds_b, jobs_b = events(b, "b", cluster.namespace)
    rounds, jobs = rounds_a + rounds_b, jobs_a + jobs_b
    # Both replicas were ticking every PERIOD_S for RUN_S: without the lease, about twice this.
    assert len(rounds) >= 3, (a.log()[-3000:], b.log()[-3000:])
    assert len(rounds) <= RUN_S / PERIOD_S + 2, rounds
    assert_once_per_period(rounds, jobs)
    granted = lease(cluster, name)
    assert granted["rounds"] in (len(rounds), len(rounds) + 1), (granted, len(rounds))

    # The holder dies; the other replica takes over once the lease has run out.
    holder_pid = int(str(granted["holder"]).split(":")[1])
    survivor, survivor_label = (b, "b") if holder_pid == a.pid else (a, "a")
    dead = a if survivor is b else b
    assert holder_pid == dead.pid, (granted, a.pid, b.pid)
    dead.kill()
    killed_at = time.time()
    time.sleep(4 * PERIOD_S)
    after_a = events(a, "a", cluster.namespace)
    after_b = events(b, "b", cluster.namespace)
    rounds_after = after_a[0] + after_b[0]
    taken_over = [e for e in rounds_after if e.replica == survivor_label and e.at > killed_at]
    assert taken_over, survivor.log()[-3000:]
    assert_once_per_period(rounds_after, after_a[1] + after_b[1], cut_short=2)
    assert str(lease(cluster, name)["holder"]).split(":")[1] == str(survivor.pid)
