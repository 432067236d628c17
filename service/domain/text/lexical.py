"""The lexical (fulltext) field of a memory: its text in context, and the namespace's index token."""

from __future__ import annotations

#: The characters a namespace may hold (`service.namespaces.NAMESPACE_PATTERN`), in a fixed
#: order: `namespace_token` writes each as its two-digit position here. The same string is in
#: `cypher/schema/023_memory_search_text.cypher` (the migration computes the token in Cypher).
NAMESPACE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

#: The fulltext fields: the text in context, and the namespace token.
SEARCH_TEXT_FIELD = "search_text"
SEARCH_NS_FIELD = "search_ns"


def namespace_token(namespace: str) -> str:
    """Return the one fulltext token that stands for a namespace (`search_ns` of its memories).

    `"ns"` followed by each character's two-digit position in `NAMESPACE_ALPHABET` (64 for a
    character outside it): one alphanumeric token that the `english` analyzer keeps as it is
    (the standard tokenizer does not split it, no stop word or stemming rule applies to a
    token ending in a digit), distinct per namespace, case and `-`/`_` included. A required
    clause on it restricts a fulltext query to one namespace inside the index.

    Args:
        namespace: the namespace.

    Returns:
        e.g. `"ns29303041"` for `"deep"`.
    """
    codes = (NAMESPACE_ALPHABET.find(c) for c in namespace)
    return "ns" + "".join(f"{c if c >= 0 else 64:02d}" for c in codes)


def lexical_context(given: str | None, previous: str | None) -> str | None:
    """Return a memory's lexical context: the context it was given, then its previous turn.

    The same rule as `memory/create_memory` applies in Cypher for one memory. A previous turn
    equal to the given context (a client that sends the previous turn as `context`) counts once.

    Args:
        given: the `context` the memory was written with, or None.
        previous: the content of the current memory at `position - 1` of its episode, or None.

    Returns:
        The parts that exist, one per line, or None when neither does.
    """
    parts = [given] if given is not None else []
    if previous is not None and previous != given:
        parts.append(previous)
    return "\n".join(parts) if parts else None


def search_text(context: str | None, content: str) -> str:
    """Return the lexical field of a memory: its context (if any) then its content, one per line.

    Args:
        context: the memory's immediate context in the material it came from (the previous
            turn of its episode, the section it sits in, a trace's task), or None.
        content: the memory's text.

    Returns:
        `context`, a line break, then `content`; or `content` alone.
    """
    return content if not context else f"{context}\n{content}"
