"""`RATIONALE_VISIBILITY` is checked at start-up: a typo never starts a service that hides all."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from service.domain.policy import VisibilityPolicy
from service.origins import default_visibility
from service.settings import Settings


def test_the_default_table_passes_and_recall_sees_users_and_ingestion() -> None:
    settings = Settings(_env_file=None)
    assert settings.visibility == default_visibility()
    assert "user" in VisibilityPolicy(settings.visibility).origins("recall")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"user": {"recal": True, "search": True, "lineage": True}}, "unknown: ['recal']"),
        ({"user": {"recall": True, "search": True}}, "missing: ['lineage']"),
        ({}, "at least one origin"),
    ],
)
def test_a_table_with_unknown_or_missing_reads_is_refused(
    monkeypatch: pytest.MonkeyPatch, table: dict[str, dict[str, bool]], message: str
) -> None:
    monkeypatch.setenv("RATIONALE_VISIBILITY", json.dumps(table))
    with pytest.raises(ValidationError, match="RATIONALE_VISIBILITY") as info:
        Settings(_env_file=None)
    assert message in str(info.value)


def test_a_complete_custom_table_is_taken_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    table = {
        "user": {"recall": True, "search": True, "lineage": True},
        "maintenance": {"recall": False, "search": True, "lineage": True},
    }
    monkeypatch.setenv("RATIONALE_VISIBILITY", json.dumps(table))
    assert Settings(_env_file=None).visibility == table
