"""An ADR's own metadata: its status and status history, its date, its number from its title."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta
from typing import Any

from service.domain.ingestion.formats.adr_sections import (
    RELATIONS,
    Document,
    key_line,
    key_values,
    relation_line,
)
from service.domain.ingestion.formats.adr_status_dates import ISO_DATE, split_status_date
from service.domain.ingestion.formats.adr_tables import is_meta_key
from service.domain.ingestion.formats.common import as_text, parse_time

#: The warning's code for a date that was there but could not be read (`adr_date`).
ADR_DATE_UNREADABLE = "ingest.adr_date_unreadable"
#: The warning's code for a date later than now (`adr_date`): kept, but likely a typo.
ADR_DATE_IN_FUTURE = "ingest.adr_date_in_future"
#: How far a local calendar runs ahead of UTC (UTC+14): a date written today there is UTC
#: midnight up to 14 hours ahead of now, and no date in the future.
FUTURE_DATE_SLACK = timedelta(hours=14)
#: Keys whose value dates a record, in the order they are looked for.
META_DATE_KEYS = ("date", "last revised", "last updated", "accepted", "created", "decision date")
_STATUS_KEYS = frozenset({"status", "state", "decision status"})
#: Keys that are relations: in a Status section such a line is a status line, read for relations.
_RELATION_KEYS = frozenset(
    {"supersedes", "superseded by", "superseded-by", "replaces", "replaced by", "amends"}
)
#: A line that is only a date (``2020-01-01``, ``2020-01-01T10:00Z``): a date, not a status.
_BARE_DATE = re.compile(rf"^{ISO_DATE}$")
#: An ADR number leading a title: ``ADR 7: ...``, ``ADR-0007 ...``, ``RFC 7 ...``, ``adr7 ...``;
#: or a bare number followed by ``.``, ``:`` or ``)`` and a space, or by a dash between spaces
#: (``7. Use Postgres``, ``0007 - Use Postgres``, ``Decision 7: ...``) -- not ``3 replicas``.
_TITLE_NUMBER = re.compile(
    r"(?i)^[\s\[(]*(?:(?:adr|rfc)[\s_#-]*0*(\d+)(?!\w)"
    r"|(?:decision\s+(?:record\s+)?)?#?0*(\d+)(?:[.:)]|\s+[-\u2013\u2014])\s)"
)
#: A title opening with its number, and the rest: ``ADR-006: ...``, ``ADR 7 - ...``, ``ADR014
#: ...``, ``7. ...``, ``0007 - ...`` (`numbered_title` writes them ``ADR n: ...``).
_LEADING_NUMBER = re.compile(
    r"(?i)^\s*(?:adr[\s_#-]*0*(\d+)(?:\s*[.:)]|\s+[-\u2013\u2014])?"
    r"|0*(\d+)(?:[.:)]|\s+[-\u2013\u2014]))\s+(\S.*)$",
    re.DOTALL,
)
_LONGEST_QUOTED = 80
#: A date in front of a file stem (`2021-12-12_create_an_adl`): no record number.
_STEM_DATE = re.compile(ISO_DATE)
#: A relation that says this record ended (``Superseded by ADR-61``): a status, not a link only.
_SUPERSEDED_BY = dict(RELATIONS)["superseded_by"]


def title_number(title: str) -> str | None:
    """Return the ADR number a title starts with, without leading zeros (None when none).

    Args:
        title: the record's title, e.g. ``"ADR 7: Use Postgres"`` or ``"7. Use Postgres"``.

    Returns:
        ``"7"`` for those; None for ``"Use Postgres"``, ``"3 replicas for Kafka"``, ``"2FA"``.
    """
    match = _TITLE_NUMBER.match(title)
    return (match.group(1) or match.group(2)) if match else None


def _section_lines(doc: Document) -> tuple[list[str], dict[str, str]]:
    """Return a Status section's text lines and its metadata lines (``Date: ...``), as read."""
    lines: list[str] = []
    meta: dict[str, str] = {}
    for section in doc.of("status"):
        for block in section.blocks:
            if block.kind in ("html", "hr"):
                continue
            if block.kind == "table":
                table = key_values([block])
                lines += [v for k, v in table.items() if k in _STATUS_KEYS]
                lines += [f"{k} {v}" for k, v in table.items() if k in _RELATION_KEYS]
                meta.update(
                    {k: v for k, v in table.items() if k not in _STATUS_KEYS | _RELATION_KEYS}
                )
                continue
            for line in block.lines or block.items or tuple(block.text.splitlines()):
                pair = key_line(line)
                if pair is not None and pair[0] in _STATUS_KEYS:
                    lines += [pair[1]] if pair[1] else []
                elif pair is not None and pair[0] in _RELATION_KEYS:
                    lines.append(line.strip())
                elif pair is not None and (is_meta_key(pair[0]) or pair[0] in META_DATE_KEYS):
                    meta.setdefault(*pair)
                elif _BARE_DATE.match(line.strip()):
                    meta.setdefault("date", line.strip())
                elif line.strip():
                    lines.append(line.strip())
    return lines, {k: v for k, v in meta.items() if v}


def _links_only(line: str) -> bool:
    """Return True for a status line that only links other records (``Supersedes ADR-59``).

    A relation line (`relation_line`) other than a "superseded by" one, which says the record
    ended and so is a status.
    """
    relation = relation_line(line)
    return relation is not None and not _SUPERSEDED_BY.match(relation[0])


def _superseded_word(line: str) -> str | None:
    """Return the status a "superseded by" status line states: its phrase's first word.

    ``Superseded by [ADR-12](0012-y.md)`` gives ``"Superseded"`` (as written), ``replaced  by
    ADR-12`` gives ``"replaced"``; a line that is no "superseded by" relation gives None.
    """
    relation = relation_line(line)
    if relation is None or not _SUPERSEDED_BY.match(relation[0]):
        return None
    match = _SUPERSEDED_BY.search(line)
    return match.group(0).split()[0] if match else None


def adr_status(doc: Document, meta_kv: dict[str, str]) -> tuple[str, list[str]]:
    """Return an ADR's current status and its history; add a Status section's metadata to `meta_kv`.

    The status is the front matter's, else the metadata's (``Status: ...``), else the first status
    line of the Status sections: each line of a paragraph, list item or ``Status:`` value is one
    line (``Accepted`` then ``Supersedes ADR-0003`` are two). Lines of other metadata keys
    (``Date: 2020-01-01``, ``Deciders: ...``) and lines that are only a date are metadata, added to
    `meta_kv` where it has no value for the key (``date`` for a bare date): the date dates the
    record. A line that only links other records (``Supersedes ADR-0003``, ``Amends ADR-2``:
    `_links_only`) is no status: the first other line is, else that line; of a log of dated
    states, one per line, the latest is (`_current_line`). A first status line that
    says the record was superseded (``Superseded by ADR-12``) gives the status its word
    (``Superseded``: `_superseded_word`) and stays a history line, as when the section says
    ``Superseded`` and then ``Superseded by ADR-12``. The history is the Changelog's entries, then
    the other status lines (a ``Supersedes ADR-0003`` line is read for relations there, as any
    history line). A status (the front matter's ``status: accepted 2023-01-05`` too) that is dated
    states (``Accepted on 2023-01-05``, ``Proposed 2022-12-01, accepted 2023-01-05``:
    `_status_date`) gives the last state's words as the status, its date as the record's ``date``
    when `meta_kv` has none, and the earlier states to the history, before the other status lines.

    Args:
        doc: the record as read.
        meta_kv: its metadata (front matter and preamble), lower-case keys; updated in place.

    Returns:
        ``(status, history)``: the status text (empty when none) and the history lines.
    """
    history: list[str] = []
    for section in doc.of("changelog"):
        history += [i for b in section.blocks for i in (b.items or (b.text,)) if i]
    lines, section_meta = _section_lines(doc)
    for key, value in section_meta.items():
        meta_kv.setdefault(key, value)
    front_matter = as_text(doc.meta.get("status")).strip()
    status = front_matter or meta_kv.get("status", "")
    if not status:
        first = _current_line(lines)
        ended = _superseded_word(lines[first]) if lines else None
        if ended:
            return ended, history + lines
        if not lines:
            return "", history
        rest = [ln for i, ln in enumerate(lines) if i != first]
        current, earlier = _status_date(lines[first], meta_kv)
        return current, history + earlier + rest
    same = next((i for i, ln in enumerate(lines) if ln.casefold() == status.casefold()), None)
    rest = [ln for i, ln in enumerate(lines) if i != same]
    current, earlier = _status_date(status, meta_kv)
    return current, history + earlier + rest


def _current_line(lines: list[str]) -> int:
    """Return the index of a Status section's current status line (0 when there is none).

    The first line that does not only link other records, unless two lines or more are dated
    states (a log such as ``2017-01-01 Proposed`` then ``2017-02-01 Accepted``, in either
    order): then the latest of them (the later line on a tie).
    """
    candidates = [i for i, ln in enumerate(lines) if not _links_only(ln)]
    dated = {i: d for i in candidates if (d := split_status_date(lines[i])) is not None}
    if len(dated) >= 2:
        return max(dated, key=lambda i: (dated[i].date, i))
    return candidates[0] if candidates else 0


def _status_date(line: str, meta_kv: dict[str, str]) -> tuple[str, list[str]]:
    """Return a status line's status without its date, and its earlier dated states.

    A line of dated states (`split_status_date`: ``Accepted on 2023-01-05``, ``Proposed
    2022-12-01, accepted 2023-01-05``) gives the last state's words; its date becomes the
    record's ``date`` in `meta_kv` when that has none (a front matter or ``Date:`` date wins).
    Any other line is the status as written, with no earlier states.
    """
    dated = split_status_date(line)
    if dated is None:
        return line, []
    if not meta_kv.get("date"):
        meta_kv["date"] = dated.date
    return dated.status, dated.earlier


def _quoted(value: Any) -> str:
    text = value.isoformat() if hasattr(value, "isoformat") else as_text(value)
    text = " ".join(text.split())
    return text if len(text) <= _LONGEST_QUOTED else f"{text[:_LONGEST_QUOTED]}…"


def _future_warning(valid_from: datetime, source_name: str, now: datetime) -> str | None:
    """Return the warning for a date later than `now` (`FUTURE_DATE_SLACK` allowed), else None."""
    if valid_from <= now + FUTURE_DATE_SLACK:
        return None
    midnight = valid_from.time() == time(0)
    shown = valid_from.date().isoformat() if midnight else valid_from.isoformat()
    return (
        f"{ADR_DATE_IN_FUTURE}: {source_name}: dated {shown.replace('+00:00', 'Z')}, later than "
        "now: the decision is not in force until then"
    )


def adr_date(
    front_matter: dict[str, Any],
    meta_kv: dict[str, str],
    source_name: str,
    now: datetime | None = None,
) -> tuple[datetime | None, str | None]:
    """Return an ADR's date as ``valid_from`` and the warning for a date unreadable or to come.

    The front matter's ``date`` is looked at first, then the metadata's date keys in
    `META_DATE_KEYS` order; the first readable one (ISO 8601, within the times a `datetime`
    holds in UTC: `parse_time`) wins. When a date is given but none can be read, the record is
    undated (the ingestion's time is used) and the warning says so:
    ``"ingest.adr_date_unreadable: <file>: date '<text>' could not be read ..."``. A date later
    than `now` -- by more than `FUTURE_DATE_SLACK`, so that today's date east of UTC is not --
    is kept (a decision may take effect later) with the warning ``"ingest.adr_date_in_future:
    <file>: dated 3023-03-05, later than now: the decision is not in force until then"``
    (the date as ``YYYY-MM-DD`` at UTC midnight, else ISO 8601 with ``Z``).

    Args:
        front_matter: the record's YAML front matter (``{}`` when none).
        meta_kv: its metadata, lower-case keys (`adr_status` added the Status section's).
        source_name: its file name, for the warning.
        now: the current time, timezone-aware UTC datetime (default: the server's clock).

    Returns:
        ``(valid_from, warning)``: a timezone-aware UTC datetime or None, and the warning or None.
    """
    first = front_matter.get("date")
    given = [first, *(v for k in META_DATE_KEYS if (v := meta_kv.get(k)) != str(first))]
    given = [v for v in given if v is not None and as_text(v).strip()]
    for value in given:
        parsed = parse_time(value)
        if parsed is not None:
            return parsed, _future_warning(parsed, source_name, now or datetime.now(UTC))
    if not given:
        return None, None
    texts = ", ".join(repr(t) for t in dict.fromkeys(_quoted(v) for v in given))
    return None, (
        f"{ADR_DATE_UNREADABLE}: {source_name}: date {texts} could not be read (an ISO 8601 "
        "date within the years 1-9999 in UTC is); the record is dated at its ingestion"
    )


def numbered_title(title: str, stem: str, own: str) -> str:
    """Return the title as ``ADR n: ...``, the record's number in front.

    `0045-use-input-flag.md` titled "Use `--input` Flag ..." becomes "ADR 45: Use `--input`
    Flag ...", so "ADR 45" finds it as "ADR 109" finds "ADR 109: Reduce ..." (trial 17: "why
    was ADR 45 superseded" missed it). A title opening with the record's number in another
    form is written the same way (trial 22): ``ADR-006: Use Kafka`` and ``6. Use Kafka``
    become ``ADR 6: Use Kafka``. A number of more than four digits or a date in front of the
    stem (`20200926-...`, `2021-12-12_...`) is no record number; a title holding the number
    elsewhere (``Partly Undo ADR 109``) or opening with another number is kept.

    Args:
        title: the record's title.
        stem: its file stem.
        own: its ADR key (`adr_key`).

    Returns:
        The title, numbered or as it was.
    """
    if not own.isdigit() or len(own) > 4 or _STEM_DATE.match(stem):
        return title
    lead = _LEADING_NUMBER.match(title)
    if lead is not None and (lead.group(1) or lead.group(2)) == own:
        return f"ADR {own}: {lead.group(3)}"
    if re.search(rf"(?<!\d)0*{own}(?!\d)", title):
        return title
    return f"ADR {own}: {title}"
