"""An ADR's title when its first heading is a chapter's: the one heading naming an ``ADR n``."""

from __future__ import annotations

import re
from collections.abc import Sequence

#: An ``ADR n`` reference anywhere in a title: a title holding one names its record.
_NAMES_ADR = re.compile(r"(?i)\badr[\s_#-]*\d+")
#: A heading that is a record's own: section numbering optionally (``9.4``), then ``ADR n``
#: (``ADR-4``, ``ADR 4``, ``ADR004``) and a separator, then its title.
_RECORD_HEADING = re.compile(
    r"(?i)^(?:\d+(?:\.\d+)*\.?\s+)?(adr[\s_#-]*\d+(?:\s*[.:)]|\s+[-\u2013\u2014])?\s+\S.*)$",
    re.DOTALL,
)


def record_heading(title: str, headings: Sequence[tuple[str, bool]]) -> tuple[str, int] | None:
    """Return the title a heading gives a record whose first heading names no ADR, and its index.

    An arc42 document's level-1 heading is its chapter (``# 9. Architecture Decisions``) and the
    record is a section of it (``## 9.4 ADR-4: Version the public REST API``): the heading that
    names the ADR number is the record's title, its section numbering left out (``ADR-4:
    Version the public REST API``). Only when the first heading names no ``ADR n``, exactly one
    heading opens with ``ADR n`` (a chapter of several records is not one record), and it comes
    before every section with a role of its own (`ROLES`: it is no ``### ADR-3: ...`` under
    ``## Related decisions``).

    Args:
        title: the title read so far (the level-1 heading, else the front matter's; may be empty).
        headings: the sections' ``(heading, has a role of its own)``, in order.

    Returns:
        ``(title, index of its section)``, or None when the title read so far stands.
    """
    if _NAMES_ADR.search(title):
        return None
    found = [(i, m) for i, (text, _) in enumerate(headings) if (m := _RECORD_HEADING.match(text))]
    if len(found) != 1:
        return None
    index, match = found[0]
    if any(own_role for _, own_role in headings[:index]):
        return None
    return match.group(1).strip(), index
