"""A named lease in Neo4j so that N replicas run each scheduled maintenance round once."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime

from service.graph.query_names import QueryName
from service.graph.repository import Graph


def default_holder() -> str:
    """Return this process's holder id: `<host>:<pid>:<8 hex>` (unique per scheduler instance)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class LeaseState:
    """What `acquire` found: whether this holder has the lease, who does, until when.

    Attributes:
        acquired: True when this holder holds the lease after the call.
        holder: the holder id after the call.
        expires_at: expiry on Neo4j's clock (timezone-aware UTC).
        rounds: how many times the lease has been granted since it was created.
    """

    acquired: bool
    holder: str
    expires_at: datetime
    rounds: int


class Lease:
    """A `:Lease {name}` node (unique name) with a holder and an expiry on Neo4j's clock.

    `acquire` takes the lease when it is free, expired or already this holder's; `renew`
    extends it while this holder still has it. Both lock the node before reading it, in one
    Cypher statement, so two replicas never both see the lease free. Expiry is computed by
    Neo4j (`datetime()`), so the replicas' clocks do not matter. A lease is never released
    early: a round's lease runs out `ttl_s` after the round's last renewal, which is what
    keeps the next round at least one period away on every replica.

    Args:
        graph: the query runner.
        name: the lease's name (replicas sharing a database and a schedule share it).
        ttl_s: how long a grant or renewal lasts, in seconds (> 0).
        holder: this process's id; default `default_holder()`.
    """

    def __init__(self, graph: Graph, name: str, ttl_s: float, holder: str | None = None) -> None:
        if ttl_s <= 0:
            raise ValueError("a lease needs a positive ttl_s")
        self.graph = graph
        self.name = name
        self.ttl_ms = max(1, round(ttl_s * 1000))
        self.holder = holder or default_holder()

    def _params(self) -> dict[str, object]:
        return {"name": self.name, "holder": self.holder, "ttl_ms": self.ttl_ms}

    def acquire(self) -> LeaseState:
        """Take the lease if it is free, expired or ours (a new grant: `rounds` + 1).

        Returns:
            The lease after the call; `acquired` says whether this holder has it.

        Raises:
            GraphUnavailableError: Neo4j is unreachable.
        """
        row = self.graph.run(QueryName.LEASE_ACQUIRE_LEASE, self._params())[0]
        return LeaseState(
            acquired=bool(row["acquired"]),
            holder=str(row["holder"]),
            expires_at=row["expires_at"],
            rounds=int(row["rounds"]),
        )

    def renew(self) -> bool:
        """Extend the lease to `ttl_s` from now if this holder still has it.

        Returns:
            False when another holder has taken it (this holder's grant had run out).

        Raises:
            GraphUnavailableError: Neo4j is unreachable.
        """
        return bool(self.graph.run(QueryName.LEASE_RENEW_LEASE, self._params()))
