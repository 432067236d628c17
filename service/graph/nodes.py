"""neomodel node classes: labels and properties of DESIGN §2 (identity CRUD only).

Everything multi-hop, batched, vector/fulltext or performance-relevant is a named Cypher file;
these classes document the graph model in code, back neomodel's tooling (e.g.
`neomodel_inspect_database`), and serve trivial identity reads such as `Source` by hash.
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    StringProperty,
    StructuredNode,
)


class BiTemporal:
    """The properties every node carries: identity, tenant, valid time and system time (one mixin)."""

    uid = StringProperty(unique_index=True, required=True)
    namespace = StringProperty(required=True)
    valid_from = DateTimeNeo4jFormatProperty()
    valid_to = DateTimeNeo4jFormatProperty()
    system_from = DateTimeNeo4jFormatProperty()
    system_to = DateTimeNeo4jFormatProperty()


class Provenance:
    """Who created a memory (fixed) and who last changed it, as origin (door) and actor."""

    created_by_origin = StringProperty()
    created_by_actor = StringProperty()
    last_modified_by_origin = StringProperty()
    last_modified_by_actor = StringProperty()


class Memory(BiTemporal, Provenance, StructuredNode):
    """`:Memory`: one version of a memory; `memory_id` is stable across versions."""

    memory_id = StringProperty(required=True)
    version = IntegerProperty(required=True)
    kind = StringProperty(required=True)
    content = StringProperty(required=True)
    content_norm = StringProperty()
    embedding = ArrayProperty(FloatProperty())
    metadata_json = StringProperty()


class Fact(Memory):
    """`:Memory:Fact`: a statement held true; `subject` + `attribute` make a key."""

    subject = StringProperty()
    attribute = StringProperty()
    confidence = FloatProperty()


class Decision(Memory):
    """`:Memory:Decision`: a choice that was made."""

    confidence = FloatProperty()
    status = StringProperty()


class Procedure(Memory):
    """`:Memory:Procedure`: what to do when."""

    trigger = StringProperty()


class Observation(Memory):
    """`:Memory:Observation`: something seen."""


class ReasoningTrace(Memory):
    """`:Memory:ReasoningTrace`: one piece of reasoning with its quality assessment."""

    task_text = StringProperty()
    conclusion = StringProperty()
    quality_score = FloatProperty()
    quality_issues = ArrayProperty(StringProperty())
    quality_verdict = StringProperty()
    quality_json = StringProperty()
    step_count = IntegerProperty()
    source_id = StringProperty()


class ReasoningStep(BiTemporal, StructuredNode):
    """`:ReasoningStep`: one step of a trace (never a `:Memory`)."""

    index = IntegerProperty(required=True)
    kind = StringProperty(required=True)
    content = StringProperty(required=True)
    status = StringProperty()


class Task(BiTemporal, StructuredNode):
    """`:Task`: what a trace was serving."""

    content = StringProperty(required=True)


class Source(BiTemporal, StructuredNode):
    """`:Source`: a document handed in for ingestion."""

    name = StringProperty(required=True)
    format = StringProperty(required=True)
    sha256 = StringProperty(required=True)
    size_bytes = IntegerProperty()
