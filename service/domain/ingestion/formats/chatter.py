"""Chatter: agent replies with no technical content (thanks, apologies, agreement, introductions)."""

from __future__ import annotations

import re

#: Longest reply that can be chatter, in characters; a longer one carries content.
MAX_CHATTER_CHARS = 280

#: Technical content: code (an inline span or a fence with something in it), a URL, a path or
#: file name (``a/b``, ``name.ext``), an identifier (``snake_case``, ``camelCase``, ``call(``,
#: ``a.b``, ``--flag``, ``::``, ``->``, ``=``), or a number.
_TECHNICAL = re.compile(
    r"`[^`\s][^`]*`|```[^\S\n]*\w"
    r"|https?://"
    r"|\w/\w|(?<![\w.])[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b(?!\.\s)"
    r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]+[A-Z]\w*|\w\(|(?<!\w)--?[a-z][\w-]*|::|->|="
    r"|\d"
)
#: Words that state or explain a decision or a change to the work: deciding and recommending,
#: the verbs of changing code and systems, and the words of a reason.
_DECISION = re.compile(
    r"(?i)\b(?:decid\w*|chose|choos\w*|chosen|go with|opt(?:ed)? for|recommend\w*|prefer\w*"
    r"|should|must|need to|instead|option\w*|approach\w*|plan\w*|trade-?offs?"
    r"|use[ds]?|using|switch\w*|replac\w*|implement\w*|fix\w*|add(?:ed|ing|s)?|remov\w*"
    r"|renam\w*|mov(?:e|ed|es|ing)|refactor\w*|install\w*|configur\w*|enabl\w*|disabl\w*"
    r"|migrat\w*|revert\w*|commit\w*|merg\w*|deploy\w*|creat\w*|updat\w*|delet\w*|wr[io]te"
    r"|keep|kept|drop\w*|adopt\w*|set up|because|since|so that|therefore|caus\w*|reason\w*"
    r"|root|bug\w*|error\w*|fail\w*|pass(?:es|ed)?|broke\w*|works? by)\b"
)


def is_chatter(text: str) -> bool:
    """Return whether an agent's reply is chatter: nothing a decision can be made of.

    A reply is chatter when it is short (at most `MAX_CHATTER_CHARS` characters) and has no
    technical content -- no code, URL, path, file name, identifier or number -- and no word
    that states or explains a decision or a change (decide, recommend, use, fix, add, remove,
    because, ...). So thanks ("I'm glad the changes worked for you!"), apologies, agreement
    ("You're absolutely right!"), introductions ("I am Codex, an AI coding assistant") and a
    bare code fence left over from an edit block are chatter; "Use `--input` always" or "The
    second option is simpler because it needs no migration" are not.

    Args:
        text: the reply (prose; code fences included).

    Returns:
        True for chatter.
    """
    text = text.strip()
    if len(text) > MAX_CHATTER_CHARS:
        return False
    return not (_TECHNICAL.search(text) or _DECISION.search(text))
