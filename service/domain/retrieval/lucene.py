"""Lucene query text of the fulltext index: user words escaped, one namespace, a list per word."""

from __future__ import annotations

import unicodedata

from service.domain.retrieval.lexical import word_lists
from service.domain.text.lexical import (
    SEARCH_NS_FIELD,
    SEARCH_TEXT_FIELD,
    namespace_token,
    number_parts,
)
from service.domain.text.lexicon import (
    ASKING_STOPWORDS,
    INTERROGATIVES,
    QUERY_STOPWORDS,
    QUESTION_WORDS,
)

#: Characters the Lucene classic query parser treats as syntax; each is backslash-escaped.
LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')
#: Words the parser reads as operators when upper-case; they are lower-cased (plain terms).
LUCENE_OPERATORS = frozenset({"AND", "OR", "NOT"})
#: Most characters and words of the user text sent to the fulltext index. The standard analyzer
#: makes one clause per CJK ideograph, and Lucene refuses more than 1024 clauses.
FULLTEXT_MAX_CHARS = 400
FULLTEXT_MAX_WORDS = 100
#: Punctuation stripped from a query word's edges before it is compared with `QUERY_STOPWORDS`.
WORD_EDGES = "\"'`.,;:!?()[]{}<>"
#: First words that make a query a question or a request ("did ...", "tell me ...").
ASKING_OPENERS = QUESTION_WORDS | frozenset({"tell", "describe"})
#: "name" opens a request only before one of these ("name the pets ..."; "name user" names).
NAMING_NEXT = frozenset(
    {
        "the",
        "a",
        "an",
        "all",
        "any",
        "some",
        "each",
        "every",
        "one",
        "two",
        "three",
        "his",
        "her",
        "their",
        "its",
        "my",
        "your",
        "our",
        "this",
        "that",
        "these",
        "those",
    }
)


def asks(text: str) -> bool:
    """Whether a query asks (a question or a request) rather than names what it looks for.

    It asks when it ends with "?", holds an interrogative ("what", "how", ...) or opens with
    an auxiliary, "tell" or "describe" ("did ...", "is there ...", "tell me ..."), or with
    "name" before a determiner ("name the ..."): "what is the name of her dog" asks, "user
    name", "name user" and "column type" do not (trial 14: "name user" was read as asking).
    """
    bare = [w.strip(WORD_EDGES).lower() for w in text.split()[:FULLTEXT_MAX_WORDS]]
    return (
        text.rstrip().endswith("?")
        or any(w in INTERROGATIVES for w in bare)
        or (bool(bare) and bare[0] in ASKING_OPENERS)
        or (len(bare) > 1 and bare[0] == "name" and bare[1] in NAMING_NEXT)
    )


def _query_words(text: str) -> list[str]:
    """Return the words of `text` without question and stop words (all of them if none is left).

    The words that only frame a question (`FRAME_WORDS`: "kind", "type", "name", ...) go only
    from a query that `asks`.
    """
    words = text.split()[:FULLTEXT_MAX_WORDS]
    stop = ASKING_STOPWORDS if asks(text) else QUERY_STOPWORDS
    kept = [w for w in words if w.strip(WORD_EDGES).lower() not in stop]
    return kept or words


def lucene_query(text: str) -> str | None:
    r"""Return `text` as a Lucene query of plain terms, or None when it holds nothing to match.

    Question and stop words (`QUERY_STOPWORDS`: "what", "when", "did", "the", ...; in a query
    that `asks`, also "kind", "name", "type", ...) are dropped first, unless nothing would be
    left: a question then matches the statements answering it
    rather than other questions (LoCoMo, `../shared/research/retrieval.md`: +4-6 points R@10).
    Every Lucene special character (`+ - && || ! ( ) { } [ ] ^ " ~ * ? : \ /`) is
    backslash-escaped and the words AND, OR and NOT are lower-cased, so no user text is ever
    read as query syntax. The text is cut to `FULLTEXT_MAX_WORDS` words and
    `FULLTEXT_MAX_CHARS` characters (Lucene's clause limit). A compound identifier is sent
    whole: memories index its parts (`identifier_parts`), so "upload test" finds `test_upload`;
    the parts are not added here, where they ranked short memories sharing one common part
    ("user", "settings") above the one naming `load_user_settings` (trial 12). A number written
    with leading zeros or joined to a label adds the number as a person asks for it
    (`number_parts` without labels: "ADR 0045" and "ADR045" also look for 45).

    Args:
        text: the user's query, NFC-normalised.

    Returns:
        The escaped terms, or None when the text has no letter, digit or symbol (e.g. only
        punctuation): the fulltext index is then skipped.
    """
    if not any(
        unicodedata.category(ch)[0] in "LN" or unicodedata.category(ch) == "So" for ch in text
    ):
        return None
    words: list[str] = []
    size = 0
    for word in _query_words(text):
        if word in LUCENE_OPERATORS:
            word = word.lower()
        size += len(word) + 1
        if size > FULLTEXT_MAX_CHARS and words:
            break
        words.append(
            "".join("\\" + ch if ch in LUCENE_SPECIAL else ch for ch in word[:FULLTEXT_MAX_CHARS])
        )
    numbers = number_parts(" ".join(words), labels=False)
    words.extend(n for n in dict.fromkeys(numbers) if n not in words)
    return " ".join(words)


def namespace_query(namespace: str, lucene: str) -> str:
    """Return the fulltext query of `lucene`'s terms restricted to one namespace inside the index.

    `+search_ns:<token>^0 +search_text:(<terms>)`: the required clause on the namespace's token
    (`namespace_token`, one unanalysable term per namespace) keeps every other namespace out of
    the index's answer (a conjunction over the postings lists, no over-fetch); its boost 0 adds
    nothing to the score. The raw `namespace` field is no part of it: the index's analyzer
    drops stop words and splits at `-`, so `namespace:"tenant-a"` also matches every
    `tenant-*` namespace, whose memories then filled the caller's top `k` (found by a fresh
    user's trial: another tenant's 3,000 memories pushed all of `tenant-a`'s matches out of
    its top 1,000). Memories typed into Neo4j Browser (no `search_ns`) are met by
    `browser_query` instead.

    Measured (Neo4j 2026.09, 50,000 other-tenant memories plus a 629-turn LoCoMo tenant, its
    260 questions): the required clause at k=100 returns 100 of the caller's memories at p50
    4.5-4.9 ms / p95 30-32 ms; the same query unrestricted at k=100 costs the same but only 10
    of its 100 are the caller's; at k=1000, 58 of the caller's at p50 53-75 ms / p95 143-190 ms.

    Args:
        namespace: the caller's namespace.
        lucene: escaped terms from `lucene_query`.

    Returns:
        The Lucene query string.
    """
    return f"+{SEARCH_NS_FIELD}:{namespace_token(namespace)}^0 +{SEARCH_TEXT_FIELD}:({lucene})"


def browser_query(namespace: str, lucene: str) -> str:
    """Return the fulltext query of the namespace's memories typed into Neo4j Browser.

    `+namespace:"<namespace>"^0 -search_ns:<token> +content:(<terms>)`: such memories have no
    `search_ns` and no `search_text`, so only their raw namespace and `content` reach them;
    retrieval meets them to report an unrecognized origin (they are never results). The raw
    namespace is analysed (stop words dropped, split at `-`), so other namespaces' memories
    come back too; the Cypher after the index checks the namespace exactly, and the answer is
    kept apart from the candidates (`namespace_query`), which it cannot crowd.

    Args:
        namespace: the caller's namespace.
        lucene: escaped terms from `lucene_query`.

    Returns:
        The Lucene query string.
    """
    token = namespace_token(namespace)
    return f'+namespace:"{namespace}"^0 -{SEARCH_NS_FIELD}:{token} +content:({lucene})'


def namespace_lists(namespace: str, lucene: str) -> list[str]:
    """Return the fulltext queries of `CandidateFinder.fulltext`'s lists, one per query word.

    `+search_ns:<token>^0 +search_text:(<word>)` for each word of `lexical.word_lists` (the
    memories the service wrote), then `browser_query` for the namespace's memories typed into
    Neo4j Browser, which retrieval still meets and reports as unrecognized. Escaping and the
    namespace clause are those of `namespace_query`.

    Args:
        namespace: the caller's namespace.
        lucene: escaped terms from `lucene_query`.

    Returns:
        The Lucene query strings; empty when no word holds a term the index keeps (only
        stop words or punctuation).
    """
    lists = word_queries(namespace, word_lists(lucene))
    if lists:
        lists.append(browser_query(namespace, lucene))
    return lists


def word_queries(namespace: str, words: list[str]) -> list[str]:
    """Return `+search_ns:<token>^0 +search_text:(<word>)` for each of `words`, in order.

    Args:
        namespace: the caller's namespace.
        words: escaped words (`lexical.word_lists`).

    Returns:
        One fulltext query per word: the namespace's memories the service wrote that hold it.
    """
    token = namespace_token(namespace)
    return [f"+{SEARCH_NS_FIELD}:{token}^0 +{SEARCH_TEXT_FIELD}:({word})" for word in words]
