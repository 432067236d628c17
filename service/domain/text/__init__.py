"""Text shared by every door: input checks, the one normaliser, the term engine, word lists."""

from service.domain.text.claims import (
    CONDITIONALS,
    EXPLAINERS,
    Claim,
    asked_cause,
    claims,
    clauses,
    explanation,
    name_marks,
    read_claim,
    sentences,
)
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
    MAX_JSON_DEPTH,
    check_json,
    clean_text,
    has_visible_text,
    strip_leading_invisible,
)
from service.json_types import INT64_MAX, INT64_MIN

__all__ = [
    "ANTONYMS",
    "CONDITIONALS",
    "EXPLAINERS",
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
    "Claim",
    "Polarity",
    "analyse_polarity",
    "asked_cause",
    "check_json",
    "claims",
    "clauses",
    "clean_text",
    "containment",
    "edit_distance",
    "explanation",
    "fold",
    "fold_spaces",
    "has_visible_text",
    "key_part",
    "loose_text",
    "name_marks",
    "normalise_for_match",
    "opposed",
    "read_claim",
    "restate_score",
    "sentences",
    "shingles",
    "similarity",
    "spelling_variant",
    "strip_leading_invisible",
    "terms",
    "topic_terms",
    "words",
]
