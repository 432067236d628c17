"""Text shared by every door: input checks, the one normaliser, the term engine, word lists."""

from service.domain.text.keys import edit_distance, spelling_variant
from service.domain.text.lexicon import (
    ANTONYMS,
    HEDGES,
    NEGATIONS,
    STATEMENT_NEGATIONS,
    STOPWORDS,
)
from service.domain.text.normalise import (
    MAX_NORM_BYTES,
    fold,
    fold_spaces,
    key_part,
    loose_text,
    normalise_for_match,
    words,
)
from service.domain.text.polarity import OPPOSITION_OVERLAP, Polarity, analyse_polarity, opposed
from service.domain.text.terms import (
    NOT_TERM,
    containment,
    restate_score,
    shingles,
    similarity,
    terms,
    topic_terms,
)
from service.domain.text.validate import (
    INT64_MAX,
    INT64_MIN,
    MAX_JSON_DEPTH,
    check_json,
    clean_text,
)

__all__ = [
    "ANTONYMS",
    "HEDGES",
    "INT64_MAX",
    "INT64_MIN",
    "MAX_JSON_DEPTH",
    "MAX_NORM_BYTES",
    "NEGATIONS",
    "NOT_TERM",
    "OPPOSITION_OVERLAP",
    "STATEMENT_NEGATIONS",
    "STOPWORDS",
    "Polarity",
    "analyse_polarity",
    "check_json",
    "clean_text",
    "containment",
    "edit_distance",
    "fold",
    "fold_spaces",
    "key_part",
    "loose_text",
    "normalise_for_match",
    "opposed",
    "restate_score",
    "shingles",
    "similarity",
    "spelling_variant",
    "terms",
    "topic_terms",
    "words",
]
