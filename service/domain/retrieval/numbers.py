"""Queries about a number ("ADR 57", "issue #1234"): which candidates hold the number asked for.

An embedding reads "ADR 57" as "about ADRs": every record of the kind comes out alike (the
corpus ADRs: the ADR template ranked first, ADR 57 tenth), and BM25 weighs "57" by how rare it
is, not by whether it is the point of the query. When the query is about a number, fusion
keeps a candidate's whole score only when it holds the number as the query writes it (label
and number: `ADR 57`, `ADR-0057`, `ADR057`), most of it when it holds the number elsewhere
(`fixes #1234` for "issue #1234"), and `Fusion.identifier_weight` of it otherwise
(`fusion.fuse`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.domain.retrieval.lexical import analyse

#: Month names and their short forms: a number beside one is a day of a date, not an identifier.
MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
#: Years (1800-2199): a date's part, not an identifier.
_YEAR = re.compile(r"1[89][0-9]{2}|2[01][0-9]{2}")
#: A date or a time written in digits: `2023-04`, `2023-04-15`, `2023-04-15T10:00`, `15/04/2023`,
#: `15.04.23`, `10:30` (trial 24: "in 2023-04" was read as an identifier).
_DIGIT_DATE = re.compile(
    r"(?:1[89]|2[01])[0-9]{2}-[01]?[0-9](?:-[0-3]?[0-9](?:t[0-9:.]+z?)?)?"
    r"|[0-3]?[0-9][/.][01]?[0-9][/.](?:[0-9]{2}|[0-9]{4})|[0-2]?[0-9]:[0-5][0-9](?::[0-5][0-9])?"
)
#: A query word written as a label joined to a number (`ADR-0045`, `ADR014`, `#1234`, `57`).
_LABELLED = re.compile(r"(?P<label>[^\W\d_]+)?[-_#:]*(?P<number>[0-9]+)")
#: Punctuation around a query word.
_EDGES = "\"'`.,;:!?()[]{}<>#"

#: How a candidate holds a number asked for (`NumberAsked.level`).
LABELLED, NUMBER, NONE = 2, 1, 0


@dataclass(frozen=True)
class NumberAsked:
    """One number a query is about.

    Attributes:
        written: the number as the query means it, as records write it: with its label
            ("ADR 57": `ADR 57`, `ADR-057`, `adr057`, `ADRs #57`), else the number alone
            (`57`, `0057`) or the word as given (`3.11`, `5k`).
        bare: the number without its label (`57`, `#57`, `0057` elsewhere in the text), or
            None when the query gives no label.
    """

    written: re.Pattern[str]
    bare: re.Pattern[str] | None

    def level(self, own: str, context: str) -> int:
        """Return how a memory holds this number: `LABELLED`, `NUMBER` or `NONE`.

        `LABELLED` when its own text holds the number as the query means it; `NUMBER` when
        only its context does (the task of the trace it was found in: a tool output "File
        updated." of the trace for "issue 1234" is no answer of its own, trial 23), or its own
        text holds the number without the label; else `NONE`.

        Args:
            own: the memory's own text (content and identifier parts).
            context: the context it was indexed with (the previous turn, its section, a
                trace's task), or "".
        """
        if self.written.search(own):
            return LABELLED
        if (context and self.written.search(context)) or (
            self.bare is not None and self.bare.search(own)
        ):
            return NUMBER
        return NONE


def numbers_asked(query: str) -> tuple[NumberAsked, ...]:
    """Return the numbers a query is about, or none when it is not about numbers.

    The query's words holding a digit count, except a date's (a year 1800-2199, a day beside a
    month name, a date or time in digits such as `2023-04-15` or `10:30`: "May 3, 2023" asks
    for what happened then, which the memory holding it rarely
    says in words); when they are at least a third of the query's words the query is about
    them. A number's label is the letters joined to it (`ADR-0045`) or the word before it
    ("ADR 57", "issue #1234"). Repeats of one number count once (the query adds `45` beside
    `0045`, `lucene.lucene_query`).

    Args:
        query: the query words as sent to the index (unescaped, question words removed).

    Returns:
        The numbers, in query order.
    """
    words = [w.strip(_EDGES) for w in query.split()]
    words = [w for w in words if w and analyse(w)]
    asked: dict[str, NumberAsked] = {}
    counted = 0
    for i, word in enumerate(words):
        lower = word.lower()
        if not any(c.isdigit() for c in lower):
            counted += 1
            continue
        beside = {words[j].lower() for j in (i - 1, i + 1) if 0 <= j < len(words)}
        if (
            _YEAR.fullmatch(lower)
            or _DIGIT_DATE.fullmatch(lower)
            or (lower.isdigit() and len(lower) <= 2 and beside & MONTHS)
        ):
            counted += 1
            continue
        parts = _LABELLED.fullmatch(lower)
        if parts is None:  # `3.11`, `5k`: the word itself
            key, label = lower, None
            number = re.escape(lower)
        else:
            key = number = parts.group("number").lstrip("0") or "0"
            label = parts.group("label")
            if label is None and i > 0 and words[i - 1].isalpha():
                label = words[i - 1].lower()
        if key in asked:
            continue
        counted += 1
        # Not a part of a date or a time ("10:30", "15/04/2023", "2024-03-15": trial 25), any
        # case ("cve-2021-44228" is "CVE-2021-44228").
        bare = re.compile(
            rf"(?<![\w.:/])(?<!\d-){'0*' if parts else ''}{number}(?![\w:/]|[.-]\d)",
            re.IGNORECASE,
        )
        asked[key] = (
            NumberAsked(bare, None) if label is None else NumberAsked(_written(label, number), bare)
        )
    if not asked or 3 * len(asked) < counted:
        return ()
    return tuple(asked.values())


def _written(label: str, number: str) -> re.Pattern[str]:
    """Return the pattern of `label` then `number` as records write them (any case, padded)."""
    return re.compile(
        rf"(?<![^\W_]){re.escape(label)}s?[\s\-_#:.]*0*{number}(?![0-9])", re.IGNORECASE
    )


def identified(
    uids: list[str],
    texts: list[str],
    own_chars: list[int | None],
    asked: tuple[NumberAsked, ...],
) -> dict[str, int] | None:
    """Return how each candidate holds the numbers asked for (the best `level`), or None.

    Args:
        uids: the candidates' uids.
        texts: their lexical fields (`search_text`: context, then own text), in `uids` order.
        own_chars: the length of each field's own text (its last characters), None when the
            whole field is its own.
        asked: `numbers_asked` of the query.

    Returns:
        uid -> `LABELLED` or `NUMBER` for the candidates holding one (the others hold none),
        or None when the query is about no number.
    """
    if not asked:
        return None
    out: dict[str, int] = {}
    for uid, text, own in zip(uids, texts, own_chars, strict=True):
        cut = 0 if own is None or own >= len(text) else len(text) - own
        level = max(a.level(text[cut:], text[:cut]) for a in asked)
        if level:
            out[uid] = level
    return out
