"""The Browser style (`cypher/browser/rationale.grass`) has a rule for every relationship written."""

from __future__ import annotations

import re
from pathlib import Path

CYPHER = Path(__file__).resolve().parents[2] / "cypher"
GRASS = CYPHER / "browser" / "rationale.grass"

#: A relationship a CREATE or MERGE writes with a literal type: `MERGE (m)-[r:EXTRACTED_FROM]->`.
WRITTEN = re.compile(r"\b(?:CREATE|MERGE)\b[^\n]*?-\[\w*\s*:\s*([A-Z][A-Z0-9_]*)")
RULE = re.compile(r"^relationship\.([A-Z][A-Z0-9_]*)\s*\{(.*)\}\s*$")


def written_types() -> set[str]:
    found: set[str] = set()
    for path in CYPHER.rglob("*.cypher"):
        text = path.read_text(encoding="utf-8")
        if "// mode: write" in text:
            found |= set(WRITTEN.findall(text))
    return found


def style_rules() -> dict[str, str]:
    lines = GRASS.read_text(encoding="utf-8").splitlines()
    return {m[1]: m[2] for m in map(RULE.match, lines) if m}


def test_the_style_has_a_rule_for_every_relationship_type_written() -> None:
    # A fresh-user trial: AMENDS and EXTRACTED_FROM had no rule (Browser's default grey).
    written = written_types()
    assert {"CITES", "SUPERSEDES", "AMENDS", "EXTRACTED_FROM"} <= written  # the scan sees them
    assert set(style_rules()) == written


def test_every_relationship_rule_has_a_colour_and_a_caption() -> None:
    for name, rule in style_rules().items():
        assert re.search(r"\bcolor: #[0-9A-F]{6};", rule), name
        assert re.search(r'\bcaption: "[^"]+";', rule), name
