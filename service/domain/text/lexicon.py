"""Closed English word lists of the term engine: hedges, stopwords, negations, antonyms."""

from __future__ import annotations

#: Hedges that mark a guess ("maybe X", "perhaps X"): a hypothesis and a conclusion asserting
#: the same X must compare as the same claim, so these carry no topic.
HEDGES: frozenset[str] = frozenset(
    {
        "maybe",
        "perhaps",
        "possibly",
        "probably",
        "likely",
        "might",
        "guess",
        "suspect",
        "hypothesis",
        "seems",
        "seem",
        "think",
    }
)

#: English function words dropped before comparing texts (closed list, no library).
STOPWORDS: frozenset[str] = HEDGES | frozenset(
    {
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "either",
        "else",
        "ever",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "might",
        "more",
        "most",
        "must",
        "my",
        "myself",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "same",
        "shall",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "would",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "ll",
        "ve",
        "re",
        "let's",
        "i'm",
        "it's",
        "that's",
        "there's",
        "what's",
    }
)

#: Negation words; each becomes the term ``not`` (negation flips what a text restates).
_NEGATIONS: frozenset[str] = frozenset(
    {
        "no",
        "not",
        "nor",
        "never",
        "none",
        "cannot",
        "can't",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "won't",
        "wouldn't",
        "shouldn't",
        "couldn't",
        "hasn't",
        "haven't",
        "hadn't",
        "without",
    }
)

#: The negations, also as typed without their apostrophe ("doesnt", "isnt", "cant"; fresh-user
#: trial 18: "the build doesnt pass" read as "the build passes").
NEGATIONS: frozenset[str] = _NEGATIONS | frozenset(w.replace("'", "") for w in _NEGATIONS)

#: Words that negate a whole statement (cues of opposition between two facts): the
#: `NEGATIONS` plus negative pronouns.
STATEMENT_NEGATIONS: frozenset[str] = NEGATIONS | frozenset(
    {"ain't", "mustn't", "neither", "nobody", "nothing"}
)

#: Modal verbs of obligation or advice: a sentence holding one says what ought to be, not what
#: is, so it is no claim to set against an observation ("the cache is disabled" -> "the cache
#: should be enabled" is advice, not a contradiction; fresh-user trial 18).
DEONTIC_MODALS: frozenset[str] = frozenset(
    {
        "should",
        "shouldn't",
        "shouldnt",
        "must",
        "mustn't",
        "mustnt",
        "ought",
        "shall",
        "shan't",
        "needn't",
        "neednt",
        "recommend",
        "recommended",
    }
)

#: Antonyms: the "negative" member -> the member it is mapped to when comparing texts.
ANTONYMS: dict[str, str] = {
    "hates": "loves",
    "hate": "love",
    "hated": "loved",
    "dislikes": "likes",
    "dislike": "like",
    "disliked": "liked",
    "disabled": "enabled",
    "disable": "enable",
    "disables": "enables",
    "false": "true",
    "off": "on",
    "inactive": "active",
    "unavailable": "available",
    "offline": "online",
    "closed": "open",
    "fails": "passes",
    "failed": "passed",
    "fail": "pass",
    "failing": "passing",
    "failure": "success",
    "invalid": "valid",
    "incorrect": "correct",
    "unsupported": "supported",
    "absent": "present",
    "forbidden": "allowed",
    "disallowed": "allowed",
    "denied": "allowed",
    "rejected": "accepted",
    "unhealthy": "healthy",
    "unsafe": "safe",
    "impossible": "possible",
    "excluded": "included",
    "removed": "added",
    "unstable": "stable",
    "broken": "working",
    "down": "up",
    "stopped": "running",
    # Comparisons: "not above the SLO" and "below the SLO" say the same (fresh-user trial 18).
    "below": "above",
    "lower": "higher",
    "less": "more",
    "fewer": "more",
    "decreased": "increased",
    "decreases": "increases",
    "decrease": "increase",
    "slower": "faster",
    "worse": "better",
    # States a check reports (trial 21: "the build is green" -> "the build is red" passed).
    "red": "green",
    "empty": "full",
    "expired": "valid",
    # Binary states of systems (trial 22's notes: "the deploy succeeded" -> "failed" passed).
    "unreachable": "reachable",
    "disconnected": "connected",
    "unlocked": "locked",
    "uninstalled": "installed",
    "missing": "present",
    "stale": "fresh",
    "dirty": "clean",
}

#: Words that say what another word says, read as that word when texts are compared
#: ("the deploy succeeded" and "the deploy passed"; "failed" is the negative of both).
SYNONYMS: dict[str, str] = {
    "succeeded": "passed",
    "succeeds": "passes",
    "succeed": "pass",
    "succeeding": "passing",
    "successful": "passed",
    "successfully": "passed",
}

#: Irregular verb forms -> their base form, so "ran" meets "run" and "sent" "send" (fresh-user
#: trial 18). Each line: the base, then its irregular past forms. Forms with another common
#: sense ("left", "read", "bound", "saw", "stuck") are left out.
IRREGULAR_FORMS: dict[str, str] = {
    form: line.split()[0]
    for line in """
    begin began begun
    break broke
    bring brought
    build built
    buy bought
    catch caught
    choose chose chosen
    come came
    become became
    deal dealt
    draw drew drawn
    drive drove driven
    eat ate eaten
    fall fell fallen
    feed fed
    feel felt
    fight fought
    find found
    fly flew flown
    forget forgot forgotten
    freeze froze frozen
    get got gotten
    give gave given
    go went gone
    grow grew grown
    hide hid hidden
    hold held
    keep kept
    know knew known
    lose lost
    make made
    mean meant
    meet met
    overwrite overwrote overwritten
    pay paid
    rebuild rebuilt
    rewrite rewrote rewritten
    rise rose risen
    run ran
    see seen
    sell sold
    send sent
    shake shook shaken
    show shown
    sleep slept
    speak spoke spoken
    spend spent
    take took taken
    teach taught
    tear tore torn
    tell told
    throw threw thrown
    understand understood
    undo undid undone
    wake woke woken
    win won
    write wrote written
    """.strip().splitlines()
    for form in line.split()[1:]
}

#: Words that make a question a question ("what did X say", "when would Y ..."): dropped with
#: `STOPWORDS` from the query side of the fulltext index, so a question stops matching the
#: other speaker's questions and matches the statements that answer it.
INTERROGATIVES: frozenset[str] = frozenset(
    {"what", "when", "where", "which", "who", "whom", "whose", "why", "how"}
)
QUESTION_WORDS: frozenset[str] = INTERROGATIVES | frozenset(
    {
        "did",
        "does",
        "do",
        "done",
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "would",
        "could",
        "should",
        "will",
        "can",
        "may",
    }
)

#: Words that only frame a question or a request ("what kind of", "what is the name of", "how
#: many", "tell me", "describe ..."): dropped from a query that asks (`lucene.asks`), kept in
#: one that names things ("user name", "column type", "how many" aside), where they are the
#: subject (fresh-user trial 12: "user name" searched "user" only).
FRAME_WORDS: frozenset[str] = frozenset(
    {
        "kind",
        "kinds",
        "sort",
        "type",
        "types",
        "tell",
        "describe",
        "name",
        "much",
        "many",
        "likely",
    }
)

#: What the query side of the fulltext index drops (lower-case, apostrophes as typed): always
#: (`QUERY_STOPWORDS`), and from a query that asks (`ASKING_STOPWORDS`).
QUERY_STOPWORDS: frozenset[str] = STOPWORDS | QUESTION_WORDS
ASKING_STOPWORDS: frozenset[str] = QUERY_STOPWORDS | FRAME_WORDS
