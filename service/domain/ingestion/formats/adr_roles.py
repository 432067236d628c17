"""ADR section roles: which heading names a record's status, context, options, decision..."""

from __future__ import annotations

import re

#: Section roles by normalised heading (lower case, numbering, trailing ``:`` and a trailing
#: ``(...)`` removed). A heading not listed takes its parent section's role; a section with no
#: role and some text is *unplaced* (reported, and kept as an observation).
ROLES: dict[str, frozenset[str]] = {
    "status": frozenset({"status", "state", "decision status", "status history"}),
    "changelog": frozenset({"changelog", "change log", "history", "revision history", "revisions"}),
    "summary": frozenset({"summary", "overview", "abstract", "tl;dr", "tldr"}),
    "context": frozenset(
        {
            "context",
            "context and problem statement",
            "problem statement",
            "problem",
            "context and problem",
            "issue",
            "background",
            "motivation",
            "why",
            "the problem",
            "problem description",
            "situation",
            "technical story",
        }
    ),
    "drivers": frozenset(
        {
            "decision drivers",
            "drivers",
            "forces",
            "goals",
            "non-goals",
            "goals and non-goals",
            "requirements",
            "constraints",
            "assumptions",
            "decision criteria",
            "criteria",
            "quality attributes",
            "concerns",
        }
    ),
    "options": frozenset(
        {
            "considered options",
            "options",
            "options considered",
            "alternatives",
            "alternatives considered",
            "alternative approaches",
            "alternative solutions",
            "positions",
            "approaches",
            "possible solutions",
            "considered alternatives",
            "other options",
            "alternative options",
            "considerations",
        }
    ),
    "arguments": frozenset(
        {
            "pros and cons of the options",
            "pros and cons",
            "arguments",
            "evaluation",
            "comparison",
            "trade-offs",
            "tradeoffs",
            "analysis",
            "argument",
        }
    ),
    "decision": frozenset(
        {
            "decision outcome",
            "decision",
            "solution",
            "proposal",
            "proposed solution",
            "resolution",
            "outcome",
            "chosen option",
            "the decision",
            "decision made",
            "recommendation",
            "proposed decision",
            "decisions",
            "what",
        }
    ),
    "design": frozenset(
        {
            "detailed design",
            "design",
            "how",
            "implementation",
            "implementation plan",
            "technical details",
            "specification",
            "plan",
            "rollout",
            "migration",
        }
    ),
    "consequences": frozenset(
        {
            "consequences",
            "implications",
            "positive consequences",
            "negative consequences",
            "neutral consequences",
            "positive",
            "negative",
            "neutral",
            "results",
            "impact",
            "risks",
            "confirmation",
            "retrospection",
            "consequences and risks",
        }
    ),
    "rejection": frozenset(
        {
            "rationale for rejection",
            "reason for rejection",
            "reasons for rejection",
            "rejection rationale",
            "rejection reason",
            "rejection reasons",
            "why rejected",
            "why it was rejected",
            "rejection",
        }
    ),
    "links": frozenset(
        {
            "links",
            "related",
            "related decisions",
            "references",
            "see also",
            "related adrs",
            "related requirements",
            "related artifacts",
            "related principles",
            "more information",
            "further reading",
            "notes",
            "related documents",
        }
    ),
    "skip": frozenset({"table of contents", "contents", "toc"}),
}
_ROLE_OF = {name: role for role, names in ROLES.items() for name in names}
_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[ivx]+\.|[a-z]\))\s+")
_PAREN = re.compile(r"\s*\([^)]*\)\s*$")


def heading_name(text: str) -> str:
    """Return a heading normalised for role lookup (lower case, no numbering or ``(...)``)."""
    name = " ".join(text.lower().strip().rstrip(":").split())
    name = _NUMBERING.sub("", name)
    return _PAREN.sub("", name).strip()


def role_of(title: str) -> str | None:
    """Return the role of a heading (`ROLES`), or None when it names none."""
    return _ROLE_OF.get(heading_name(title))
