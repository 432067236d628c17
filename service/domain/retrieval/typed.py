"""Which namespaces may hold memories without the lexical namespace token, checked and cached briefly.

The service writes every memory with `search_ns` (its namespace's fulltext token), and the
fulltext side asks for the namespace's memories through that token. A memory typed straight
into Neo4j Browser has none, so a second Lucene query (`lucene.browser_query`: the raw
namespace, no token, the query's words in `content`) looks for those, to report them
(unrecognized origins are logged and counted, DESIGN §1.4) or, when a person wrote a complete
one, to find it. That query scores the words over every tenant's `content`, so it costs a
quarter of the fulltext statement at 10k memories (8.97 against 11.92 ms p50, 15.2 against
23.1 ms p95, this machine) and grows with the other tenants; in a namespace that holds no
memory without `search_ns` it can find nothing.

`TypedCache` remembers, per namespace, the answer of `retrieval/namespace_typed` ("does any
memory of it lack `search_ns`?") for `TYPED_TTL_S` seconds, longer for a namespace whose check
is slow (`COST_FACTOR`: at most 1% of a core goes to checking). Until a namespace has been checked,
and while its answer is yes or stale, recall asks the browser query as before; the check runs on
a worker thread beside the recall that found it missing. So a memory typed into Browser after
its namespace was checked clean is found (and reported) from at most `TYPED_TTL_S` seconds
later (an estimated 2.5 s x `COST_FACTOR` = 4 minutes for a namespace of a million memories);
`GET /v1/diagnostics` lists it at once.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from service.graph.query_names import QueryName
from service.graph.repository import Runner

#: Seconds a namespace's answer is reused before it is checked again.
TYPED_TTL_S = 30.0
#: An answer is reused for at least this many times the check's own duration: the check reads
#: every memory of the namespace (25 ms p50 at 10k here), so at 1M memories it would otherwise
#: take ~8% of a core; this bounds it at 1%.
COST_FACTOR = 100.0
#: Most namespaces remembered; the oldest go first.
MAX_CACHED = 65_536


class TypedCache:
    """Per namespace: may it hold memories without `search_ns`? Thread-safe.

    An answer is reused for `max(ttl_s, COST_FACTOR * the check's duration)` seconds.

    Args:
        ttl_s: least seconds an answer is reused.
        clock: monotonic seconds (tests pass their own).
    """

    def __init__(
        self, ttl_s: float = TYPED_TTL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl_s = ttl_s
        self.clock = clock
        self._answers: OrderedDict[str, tuple[float, bool]] = OrderedDict()
        self._checking: set[str] = set()
        self._lock = threading.Lock()

    def answer(self, namespace: str) -> bool | None:
        """Return the namespace's answer checked within `ttl_s` (True: it holds one), else None."""
        with self._lock:
            answer = self._answers.get(namespace)
        if answer is None or answer[0] <= self.clock():
            return None
        return answer[1]

    def clean(self, namespace: str) -> bool:
        """Return True only when the namespace was checked within `ttl_s` and held none."""
        return self.answer(namespace) is False

    def due(self, namespace: str) -> bool:
        """Return True when the namespace has no fresh answer and no check is running for it.

        A True answer claims the check: call `check` next (on a worker thread).
        """
        with self._lock:
            answer = self._answers.get(namespace)
            if answer is not None and answer[0] > self.clock():
                return False
            if namespace in self._checking:
                return False
            self._checking.add(namespace)
            return True

    def check(self, runner: Runner, namespace: str) -> bool:
        """Ask whether the namespace holds a memory without `search_ns`; remember the answer.

        Args:
            runner: the `Graph` (a read of its own) or a read transaction.
            namespace: the namespace.

        Returns:
            True when it holds one (the browser query stays on for it).
        """
        try:
            started = self.clock()
            row = runner.one(QueryName.RETRIEVAL_NAMESPACE_TYPED, {"namespace": namespace})
            typed = bool(row and row["typed"])
            now = self.clock()
            ttl_s = max(self.ttl_s, COST_FACTOR * (now - started))
            with self._lock:
                self._answers[namespace] = (now + ttl_s, typed)
                self._answers.move_to_end(namespace)
                while len(self._answers) > MAX_CACHED:
                    self._answers.popitem(last=False)
            return typed
        finally:
            with self._lock:
                self._checking.discard(namespace)
