"""The dates an ADR's status line carries: ``Accepted on 2023-01-05``, ``2023-01-05: Accepted``."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: An ISO 8601 date, with a time optionally (``2023-01-05``, ``2023-01-05T10:00Z``,
#: ``2023-01-05 10:00``): the one date pattern of the ADR modules (`adr_meta`, `adr`).
ISO_DATE = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:[\d:.,]*(?:Z|[+-]\d{2}:?\d{2})?)?"
#: A state's status word(s): up to three words of letters (``Accepted``, ``on hold``,
#: ``work in progress``), joined by a space, hyphen or apostrophe -- no digits, no punctuation.
_WORDS = r"[^\W\d_]+(?:[ '-][^\W\d_]+){0,2}?"
_DASH = r"\s+[-\u2013\u2014]\s+"
#: One dated state: words then date (``Accepted on|-|,|(...)`` or a space), or date then words
#: (``2023-01-05:``, ``2023-01-05 -`` or a space). The words match lazily, so ``on`` is the
#: connector in ``Accepted on 2023-01-05``, not a status word.
_STATE = re.compile(
    rf"(?P<words>{_WORDS})(?:\s+on\s+|{_DASH}|\s*,\s*|\s+)(?P<date>{ISO_DATE})"
    rf"|(?P<pwords>{_WORDS})\s*\(\s*(?P<pdate>{ISO_DATE})\s*\)"
    rf"|(?P<fdate>{ISO_DATE})(?:\s*:\s*|{_DASH}|\s+)(?P<fwords>{_WORDS})"
)
#: What separates the states of one line (``Proposed 2022-12-01, accepted 2023-01-05``).
_STATE_SEPARATOR = re.compile(r"\s*[,;]\s*")
_ONLY_DATE = re.compile(rf"{ISO_DATE}")


@dataclass(frozen=True)
class StatusDate:
    """A status line read as dated states: the current one's words and date, the earlier ones.

    Attributes:
        status: the current (last) state's status word(s) as written, e.g. ``"Accepted"``.
        date: its date as written, e.g. ``"2023-01-05"`` (read later, as a ``Date:`` line is).
        earlier: the earlier states as written, e.g. ``["Proposed 2022-12-01"]``.
    """

    status: str
    date: str
    earlier: list[str]


def _pieces(line: str) -> list[str]:
    """Return a line's parts between ``,`` and ``;``, a date alone kept with the part before.

    In ``Accepted, 2023-01-05`` the comma joins words and date: one state, one part.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for separator in [*_STATE_SEPARATOR.finditer(line), None]:
        end = separator.start() if separator else len(line)
        if spans and _ONLY_DATE.fullmatch(line[start:end]) and not _dated(line, spans[-1]):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        start = separator.end() if separator else end
    return [line[begin:end] for begin, end in spans]


def _dated(line: str, span: tuple[int, int]) -> bool:
    """Return True when the part of `line` at `span` is a dated state already."""
    return _STATE.fullmatch(line, *span) is not None


def split_status_date(line: str) -> StatusDate | None:
    """Return a status line read as one or more dated states, or None when it is not only that.

    Each state is status word(s) (up to three words, letters only) and an ISO date:
    ``Accepted on 2023-01-05``, ``Accepted (2023-01-05)``, ``Accepted - 2023-01-05`` (or an en
    or em dash), ``Accepted, 2023-01-05``, ``Accepted 2023-01-05``, ``2023-01-05: Accepted``,
    ``2023-01-05 - Accepted``, ``2023-01-05 Accepted``; states are separated by ``,`` or ``;``
    (``Proposed 2022-12-01, accepted 2023-01-05``), and the last one is the current status; a
    full stop ending the line is left out (``Accepted, 2023-09-02.``). A
    line with anything else -- an undated state, a date in prose (``5 January 2023``), a
    reference (``Accepted (#1484)``), a relation (``Superseded by ADR-12 on 2023-01-05``) -- is
    None: the status stays as written.

    Args:
        line: a status line, markup already removed, e.g. ``"Accepted on 2023-01-05"``.

    Returns:
        The current state's words and date and the earlier states' text; or None.
    """
    pieces = _pieces(line.strip().removesuffix(".").rstrip())  # a sentence's full stop
    states = [state for piece in pieces if (state := _STATE.fullmatch(piece))]
    if len(states) != len(pieces):
        return None
    last = states[-1]
    words = last.group("words") or last.group("pwords") or last.group("fwords")
    date = last.group("date") or last.group("pdate") or last.group("fdate")
    return StatusDate(status=words, date=date, earlier=pieces[:-1])
