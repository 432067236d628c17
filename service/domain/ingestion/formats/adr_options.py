"""ADR options: reading them, naming them, finding the chosen ones and their arguments."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.domain.ingestion.formats.adr_sections import Section
from service.domain.ingestion.formats.markdown import Block
from service.domain.text import containment, similarity

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")
_URL_ONLY = re.compile(r"^\W*(?:https?://\S+|\[[^\]]*\]\([^)]*\))\W*$")
_PAREN_OPTION = re.compile(r"^\(?(\d+|[a-z])\)\s+(.+)", re.DOTALL)


def option_items(section: Section) -> list[str]:
    """Return a section's options: list items that are not bare links, else ``(1) ...`` paragraphs."""
    items = [i for b in section.blocks for i in b.items if not _URL_ONLY.match(i)]
    if items:
        return items
    paren = [_PAREN_OPTION.match(b.text) for b in section.blocks if b.kind == "paragraph"]
    return [" ".join(m.group(2).split()) for m in paren if m]


def option_name(option: str) -> str:
    """An option's name: its bold/lead part up to the first ``:``, `` - `` or sentence end."""
    head = re.split(r":\s|\s[-\u2013\u2014]\s|\.\s+(?=[A-Z])", option, maxsplit=1)[0]
    return head.strip() or option


def chosen_options(options: Sequence[str], decision: str) -> list[int]:
    """Return the indexes of the options `decision` names (quoted, verbatim, or one clear match)."""
    quoted = [a or b for a, b in _QUOTED.findall(decision)]
    chosen: list[int] = []
    for name in quoted:
        scores = [
            (containment(name, option_name(o)), similarity(name, o), -i)
            for i, o in enumerate(options)
        ]
        best = max(scores, default=None)
        if best is not None and best[0] >= 0.5 and -best[2] not in chosen:
            chosen.append(-best[2])
    if not chosen:
        lower = " ".join(decision.lower().split())
        chosen = [i for i, o in enumerate(options) if " ".join(o.lower().split()) in lower]
    if not chosen:
        fallback = [
            (containment(option_name(o), decision), i)
            for i, o in enumerate(options)
            if ends_in(option_name(o), decision)
        ]
        best_score, best_i = max(fallback, default=(0.0, -1))
        if best_score >= 0.65 and sum(1 for s, _ in fallback if s >= 0.65) == 1:
            chosen = [best_i]
    return sorted(chosen)


def ends_in(name: str, decision: str) -> bool:
    """True when the first and last words of `name` (5-letter prefixes) occur in `decision`."""
    words = re.findall(r"[a-z0-9][a-z0-9-]*", name.lower())
    lower = decision.lower()
    return bool(words) and all(w[:5] in lower for w in (words[0], words[-1]))


def arguments_by_option(
    options: Sequence[str], sections: Sequence[Section]
) -> tuple[dict[int, list[Block]], list[Section]]:
    """Match argument subsections to options by title; return the matches and the rest."""
    pairs = sorted(
        (
            (
                max(
                    similarity(o, s.title),
                    containment(s.title, o),
                    containment(option_name(o), s.title),
                ),
                -oi,
                -si,
            )
            for oi, o in enumerate(options)
            for si, s in enumerate(sections)
        ),
        reverse=True,
    )
    assigned: dict[int, list[Block]] = {}
    used: set[int] = set()
    for score, neg_oi, neg_si in pairs:
        oi, si = -neg_oi, -neg_si
        if score < 0.5 or oi in assigned or si in used:
            continue
        assigned[oi] = sections[si].blocks
        used.add(si)
    return assigned, [s for si, s in enumerate(sections) if si not in used]


def prefixed(blocks: Sequence[Block], prefixes: tuple[str, ...]) -> list[str]:
    """Return the list items of `blocks` starting with one of `prefixes` (lower case)."""
    return [i for b in blocks for i in b.items if i.lower().startswith(prefixes)]


def because(text: str) -> str:
    """Return what follows the first "because" in `text` (empty when there is none)."""
    lower = text.lower()
    if "because" not in lower:
        return ""
    return text[lower.index("because") + len("because") :].strip(" ,:\n")
