"""`TypedCache`: a namespace's answer is reused for `ttl_s`, and one check runs at a time."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.retrieval.typed import TypedCache


class Answers:
    """A runner that answers `retrieval/namespace_typed` from a dict and counts the calls."""

    def __init__(self, typed: dict[str, bool]) -> None:
        self.typed = typed
        self.calls = 0

    def one(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if params["namespace"] == "down":
            raise RuntimeError("Neo4j is down")
        return {"typed": self.typed.get(params["namespace"], False)}


def test_unchecked_namespace_is_not_clean_and_is_due_once() -> None:
    cache = TypedCache(ttl_s=30, clock=lambda: 0.0)
    assert cache.answer("a") is None
    assert not cache.clean("a")
    assert cache.due("a")
    assert not cache.due("a")  # the first caller claimed the check


def test_answers_are_reused_for_ttl_then_checked_again() -> None:
    now = [0.0]
    runner = Answers({"typed": True})
    cache = TypedCache(ttl_s=30, clock=lambda: now[0])
    assert cache.due("clean") and cache.check(runner, "clean") is False  # type: ignore[arg-type]
    assert cache.due("typed") and cache.check(runner, "typed") is True  # type: ignore[arg-type]
    assert cache.clean("clean") and not cache.clean("typed")
    now[0] = 29.9
    assert not cache.due("clean") and cache.clean("clean")
    now[0] = 30.0
    assert not cache.clean("clean") and cache.answer("clean") is None
    assert cache.due("clean")
    assert runner.calls == 2


def test_a_failed_check_releases_its_claim_and_remembers_nothing() -> None:
    cache = TypedCache(ttl_s=30, clock=lambda: 0.0)
    assert cache.due("down")
    with pytest.raises(RuntimeError):
        cache.check(Answers({}), "down")  # type: ignore[arg-type]
    assert cache.answer("down") is None
    assert cache.due("down")


class SlowAnswers(Answers):
    """A runner whose check takes `seconds` on the cache's clock."""

    def __init__(self, now: list[float], seconds: float) -> None:
        super().__init__({})
        self.now = now
        self.seconds = seconds

    def one(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        self.now[0] += self.seconds
        return super().one(name, params)


def test_a_slow_check_is_reused_for_a_hundred_times_its_duration() -> None:
    now = [0.0]
    cache = TypedCache(ttl_s=30, clock=lambda: now[0])
    assert cache.due("big") and cache.check(SlowAnswers(now, 2.5), "big") is False  # type: ignore[arg-type]
    now[0] += 200  # past ttl_s, within 100 x 2.5 s
    assert cache.clean("big")
    now[0] += 60
    assert cache.answer("big") is None
