"""Queries about a number ("ADR 57", "issue #1234"): parts, query words, levels and fusion."""

from __future__ import annotations

import pytest

from service.domain.retrieval.fusion import fuse
from service.domain.retrieval.lucene import lucene_query
from service.domain.retrieval.models import Fusion, Hit
from service.domain.retrieval.numbers import LABELLED, NUMBER, identified, numbers_asked
from service.domain.text.lexical import identifier_parts, number_parts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The corpus ADRs: "ADR 57" never met `0057`, "ADR 14" never met `ADR014`.
        ("ADR-0045 and ADR014", ["45", "adr", "14"]),
        ("0057-allow-positional-input.md", ["57"]),
        ("RFC7231, sha256", ["rfc", "7231", "sha", "256"]),
        # A date's or a time's two digits, one digit after letters, no leading zero: nothing.
        ("2023-01-05 at 09:30, utf8, md5, ADR 109, issue 1234", []),
    ],
)
def test_number_parts_are_the_numbers_as_asked_for(text: str, expected: list[str]) -> None:
    assert number_parts(text) == expected


def test_identifier_parts_hold_the_numbers() -> None:
    assert identifier_parts("ADR-0045 mandated the --input flag") == "45"
    assert identifier_parts("superseded by ADR014") == "adr 14"


def test_the_query_adds_the_number_without_its_padding_or_label() -> None:
    assert lucene_query("ADR 0013") == "ADR 0013 13"
    assert lucene_query("ADR014") == "ADR014 14"  # not "adr": every ADR holds it
    assert lucene_query("ADR 57") == "ADR 57"


@pytest.mark.parametrize(
    ("query", "numbers"),
    [
        ("ADR 57", 1),
        ("what did ADR-0045 decide", 1),
        ("ADR 0013 13", 1),  # the number the query adds counts once
        ("ADR 45 ADR 57 supersede", 2),
        ("issue #1234", 1),
        ("port 8080", 1),
        # Dates are not identifiers; a number among many words is not what the query is about.
        ("Who did Maria have dinner with on May 3, 2023?", 0),
        ("pet John said goodbye to on 3 June, 2023", 0),
        ("When did John participate in a 5K charity run?", 0),
        ("Where did Tom work in 2023-04?", 0),  # trial 24
        ("Where did Tom work on 2023-04-15?", 0),
        ("deploy 15/04/2023 10:30", 0),
        ("why is the upload test flaky", 0),
    ],
)
def test_numbers_asked(query: str, numbers: int) -> None:
    sent = lucene_query(query)  # as the fulltext side reads it: question words dropped
    assert sent is not None
    assert len(numbers_asked(sent.replace("\\", ""))) == numbers


def test_a_text_holds_the_number_with_its_label_or_without() -> None:
    asked = numbers_asked("ADR 14")
    texts = {
        "compound": "This ADR has been superseded by ADR014",
        "padded": "ADR-0014: use fetch",
        "plural": "see ADRs #14",
        "elsewhere": "Technical story: issue 14",
        "longer": "ADR 114: partly undo ADR 109",
        "version": "node 14.2 is required",
        "none": "Adopt an ADR template",
    }
    levels = identified(list(texts), list(texts.values()), [None] * len(texts), asked)
    assert levels == {
        "compound": LABELLED,
        "padded": LABELLED,
        "plural": LABELLED,
        "elsewhere": NUMBER,
    }
    assert identified(list(texts), list(texts.values()), [None] * 7, numbers_asked("ADR")) is None


def test_an_unlabelled_number_is_matched_as_written() -> None:
    asked = numbers_asked("python 3.11 upgrade")
    texts = ["python 3.11 is out", "python 3.110", "3 of 11 tests"]
    assert identified(["a", "b", "c"], texts, [None] * 3, asked) == {"a": LABELLED}


def test_fusion_keeps_the_candidates_holding_the_number_first() -> None:
    """The vector side ranks the ADR template first for "ADR 14"; the record holding it wins."""
    vector = [
        Hit("template", "m1", "observation", 0.95),
        Hit("elsewhere", "m2", "observation", 0.80),
        Hit("record", "m3", "observation", 0.60),
    ]
    fulltext = [
        Hit("template", "m1", "observation", 4.0),
        Hit("elsewhere", "m2", "observation", 5.0),
        Hit("record", "m3", "observation", 3.0),
    ]
    plain = fuse(vector, fulltext, 3, 60, Fusion())
    assert plain[0].hit.uid == "template"
    levels = {"record": LABELLED, "elsewhere": NUMBER}
    ranked = fuse(vector, fulltext, 3, 60, Fusion(), levels)
    assert [r.hit.uid for r in ranked] == ["record", "elsewhere", "template"]
    assert [r.identified for r in ranked] == [LABELLED, NUMBER, 0]
    by_uid = {r.hit.uid: r.score for r in plain}
    assert ranked[2].score == pytest.approx(by_uid["template"] * Fusion().identifier_weight)
    off = fuse(vector, fulltext, 3, 60, Fusion(identifier_weight=1.0), levels)
    assert [r.hit.uid for r in off] == [r.hit.uid for r in plain]


def test_a_number_in_the_context_alone_counts_less() -> None:
    """Trial 23: "issue 1234" ranked tool outputs ("File updated.") of the trace for issue 1234
    above it: they held the number only through their context, the trace's task."""
    asked = numbers_asked("issue 1234")
    task = "parse_isoweek raises ValueError for week 53 (issue 1234)"
    texts = [f"{task}\nFile updated.", task, "fixes #1234", f"{task}\nsee #1234"]
    own = [len("File updated."), None, None, len("see #1234")]
    levels = identified(["output", "trace", "elsewhere", "both"], texts, own, asked)
    assert levels == {"output": NUMBER, "trace": LABELLED, "elsewhere": NUMBER, "both": NUMBER}


def test_a_number_inside_a_date_or_time_is_not_held() -> None:
    """Trial 25: "30 seconds timeout" found "10:30 UTC", "issue 15" found "2024-03-15"."""
    asked = numbers_asked("issue 15")
    texts = ["outage on 2024-03-15", "deploy 15/04/2023", "at 10:15 UTC", "see #15", "ADR-15"]
    levels = identified(list("abcde"), texts, [None] * 5, asked)
    assert levels == {"d": NUMBER, "e": NUMBER}


def test_a_word_as_given_is_matched_in_any_case() -> None:
    """Trial 25: "CVE-2021-44228" gave the memory holding exactly that `identified: 0`."""
    asked = numbers_asked("CVE-2021-44228")
    texts = ["Patched log4j for CVE-2021-44228", "cve-2021-44228 is log4shell", "CVE-2021-4422"]
    assert identified(["a", "b", "c"], texts, [None] * 3, asked) == {"a": LABELLED, "b": LABELLED}
