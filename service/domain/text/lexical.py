"""The lexical (fulltext) field of a memory: its text in context, and the namespace's index token."""

from __future__ import annotations

import itertools
import re

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


#: Runs of letters, digits, `_` and `.` (any script): where a compound identifier may be.
_IDENTIFIER_RUN = re.compile(r"[\w.]+")
#: A version written with its `v` (`v4.5.0`, `V2.1`, `v0.38.x`): Lucene keeps it one token, so
#: "4.5.0" or "0.38" never met it (fresh-user trial 15). Its number, and the number's major and
#: minor (`4.5`), are parts.
_VERSION = re.compile(r"(?<![\w.])[vV](?P<number>\d+(?:\.\d+)+)(?:\.[xX*])?(?!\w|\.\w)")
#: A word of letters and digits only (`_`, `.` and `-` separate words here).
_ALNUM_WORD = re.compile(r"[^\W_]+")
#: A number written with leading zeros (`0045`, `012`; three characters or more, so a date's
#: or a time's `05` is left alone), or letters joined to a number of two digits or more
#: (`ADR014`, `RFC7231`, `sha256`; `utf8`, `md5` are left alone).
_PADDED_NUMBER = re.compile(r"0+(?P<number>[0-9]+)")
_LABELLED_NUMBER = re.compile(r"(?P<label>[^\W\d_]{2,})(?P<number>[0-9]{2,})")
#: Most identifier parts one memory adds to its lexical field.
MAX_IDENTIFIER_PARTS = 200


def _camel_pieces(word: str) -> list[str]:
    """Split one `_`/`.`-free word at its case changes: `getUserName`, `HTTPServer`, `naïveBayes`.

    A split falls before an upper-case letter that follows a lower-case letter or a digit, and
    before the last upper-case letter of a run when two or more lower-case letters follow it
    (`HTTPServer`: HTTP, Server); an acronym's plural stays whole (`APIs`, `URLs`).
    """
    pieces, start = [], 0
    for i in range(1, len(word)):
        prev, cur = word[i - 1], word[i]
        if not cur.isupper():
            continue
        after = word[i + 1 : i + 3]
        if (prev.islower() or prev.isdigit()) or (
            prev.isupper() and len(after) == 2 and after.isalpha() and after.islower()
        ):
            pieces.append(word[start:i])
            start = i
    pieces.append(word[start:])
    return pieces


def identifier_parts(text: str) -> str | None:
    """Return the words inside the compound identifiers of a text, for its lexical field.

    Lucene's standard tokenizer keeps `test_upload`, `getUserName` and `os.path.join` as one
    token each (UAX #29 joins letters across `_` and `.`), so "upload test" or "user name"
    never matches them lexically. Their parts are indexed beside the text: snake_case,
    camelCase, PascalCase, dotted names and acronyms (`HTTPServer`: http, server) split, in
    any script (`получить_данные`, `naïveBayes`), each part lower-cased and kept once, in order
    of first appearance, with neighbouring parts joined (`_run_parts`). A part with fewer than
    two letters is left out (`e.g.`, the `T10` of an ISO time, hash fragments), and so is the
    whole when no identifier splits. A version's number follows (`v4.5.0`: 4.5.0 and 4.5,
    `_VERSION`), then numbers as a person asks for them (`number_parts`: `ADR-0045`: 45).

    Args:
        text: a memory's own text (`content`).

    Returns:
        The parts, space-separated (at most `MAX_IDENTIFIER_PARTS`), or None when there is none.

    Example:
        `identifier_parts("Why does test_upload fail in CI?")` is `"test upload"`.
    """
    seen: dict[str, None] = {}
    parts = itertools.chain(
        (part for run in _IDENTIFIER_RUN.findall(text) for part in _run_parts(run)),
        (part for version in _VERSION.finditer(text) for part in _version_parts(version)),
        number_parts(text),
    )
    for part in parts:
        seen.setdefault(part, None)
        if len(seen) >= MAX_IDENTIFIER_PARTS:
            break
    return " ".join(seen) or None


def number_parts(text: str, labels: bool = True) -> list[str]:
    """Return the numbers of a text as a person asks for them, and the labels joined to them.

    Records are numbered `ADR-0045`, `0057-allow-...md`, `ADR014`, `RFC7231`, and asked for as
    "ADR 45", "ADR 14", "RFC 7231": Lucene keeps `0045` and `adr014` one token each, so "45"
    and "14" never met them (the corpus ADRs: "ADR 57" ranked the ADR template first and
    ADR 57 tenth). A number written with leading zeros (three characters or more: a date's
    `05` is left alone) gives the number without them; letters joined to a number of two
    digits or more give the letters (`labels`) and the number without leading zeros.

    Args:
        text: any text.
        labels: also return the letters of a labelled number (the index side; a query adds
            the number only: a label alone matches every record of its kind).

    Returns:
        The parts, lower-cased, in order of appearance, repeats kept.

    Example:
        `number_parts("ADR-0045 and ADR014")` is `["45", "adr", "14"]`.
    """
    parts: list[str] = []
    for word in _ALNUM_WORD.findall(text):
        padded = _PADDED_NUMBER.fullmatch(word)
        if padded is not None and len(word) >= 3:
            parts.append(padded.group("number"))
            continue
        labelled = _LABELLED_NUMBER.fullmatch(word)
        if labelled is not None:
            if labels:
                parts.append(labelled.group("label").lower())
            parts.append(labelled.group("number").lstrip("0") or "0")
    return parts


def _letters(piece: str) -> int:
    return sum(c.isalpha() for c in piece)


def _run_parts(run: str) -> list[str]:
    """Return the parts of one run of letters, digits, `_` and `.` (lower case, in order).

    Nothing when it does not split in two pieces or more. The pieces of two letters or more,
    then neighbouring pieces joined: a word written as two parts is often asked for as one
    (`getUserName`: "username"; `GraphQLSchema`: "graphql"; `user_id`: "userid", as `userId`
    is one token). Two neighbours are joined unless they make a whole `_`-free word
    (`HTTPServer` is a token of the text already) or meet at a `.` (`os.path`, `policy.py`: a
    path, not a word).
    """
    segments = [[w for w in segment.split("_") if w] for segment in run.strip("_.").split(".")]
    pieces = [[p for word in words for p in _camel_pieces(word) if p] for words in segments]
    if sum(len(of_segment) for of_segment in pieces) < 2:
        return []
    parts = [p.lower() for of_segment in pieces for p in of_segment if _letters(p) >= 2]
    for words, of_segment in zip(segments, pieces, strict=True):
        wholes = {word.lower() for word in words}
        for left, right in itertools.pairwise(of_segment):
            pair = (left + right).lower()
            if _letters(left) >= 2 and _letters(right) >= 2 and pair not in wholes:
                parts.append(pair)
    return parts


def _version_parts(version: re.Match[str]) -> tuple[str, str]:
    """Return a version's number and its major and minor (`v4.5.0`: 4.5.0 and 4.5)."""
    number = version.group("number")
    return number, ".".join(number.split(".")[:2])


def search_text(context: str | None, content: str, parts: str | None = None) -> str:
    """Return the lexical field of a memory: its context, its content, its identifier parts.

    Args:
        context: the memory's immediate context in the material it came from (the previous
            turn of its episode, the section it sits in, a trace's task), or None.
        content: the memory's text.
        parts: `identifier_parts(content)`, or None.

    Returns:
        `context` (if any), `content` and `parts` (if any), one per line. The memory's own
        text is the field's last `len(content)` characters, plus `len(parts) + 1` with parts
        (the fulltext statements send this length: `lexical.discount_context_only`).
    """
    own = content if not parts else f"{content}\n{parts}"
    return own if not context else f"{context}\n{own}"
