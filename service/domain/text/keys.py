"""Spelling of key parts (subject, attribute): edit distance and spelling variants."""

from __future__ import annotations

from service.domain.text.normalise import key_part


def edit_distance(a: str, b: str, limit: int) -> int:
    """Return the Levenshtein distance of `a` and `b`, or `limit + 1` once it exceeds `limit`.

    Args:
        a: first string.
        b: second string.
        limit: the largest distance of interest (>= 0).

    Returns:
        The distance in [0, limit], or limit + 1 meaning "more than limit".
    """
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return min(previous[-1], limit + 1)


def spelling_variant(a: str, b: str, *, max_edits: int = 2, min_edit_chars: int = 6) -> bool:
    """Return True when two key parts are the same after `key_part`, or close in spelling.

    Args:
        a: a subject or attribute.
        b: another one.
        max_edits: most edits allowed between the normalised parts.
        min_edit_chars: edits are allowed only when both normalised parts are at least this long.

    Returns:
        True for `"home_city"`/`"home-city"` (equal once normalised) or `"lives_in"`/`"lived_in"`.
    """
    na, nb = key_part(a), key_part(b)
    if na == nb:
        return bool(na)
    if min(len(na), len(nb)) < min_edit_chars:
        return False
    return edit_distance(na, nb, max_edits) <= max_edits
