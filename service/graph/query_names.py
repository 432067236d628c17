"""The name of every production Cypher file as a `QueryName` (path below `cypher/`, no suffix).

Written out, not generated at import time, so a typo in a query name is a type error; a unit test
(`tests/unit/test_cypher_loader.py`) asserts the members equal the files. Dev-only folders
(`cypher/bench`, `cypher/browser`) are `DevQueryName`: never loaded into the service's registry.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeAlias


class QueryName(StrEnum):
    """A production query: `cypher/<value>.cypher`, loaded by the service at start-up."""

    DIAGNOSTICS_COUNT_ORIGINS = "diagnostics/count_origins"
    DIAGNOSTICS_LIST_UNRECOGNIZED = "diagnostics/list_unrecognized"
    IDEMPOTENCY_CREATE_RECORD = "idempotency/create_record"
    IDEMPOTENCY_GET_RECORD = "idempotency/get_record"
    INGEST_CREATE_SOURCE = "ingest/create_source"
    INGEST_GET_SOURCE = "ingest/get_source"
    INGEST_LINK_ADR_AMENDS = "ingest/link_adr_amends"
    INGEST_LINK_EXTRACTED = "ingest/link_extracted"
    INGEST_LIST_ADR_RELATED = "ingest/list_adr_related"
    INGEST_LIST_SOURCE_MEMORIES = "ingest/list_source_memories"
    INGEST_UPDATE_SOURCE = "ingest/update_source"
    MAINTENANCE_LINK_VERSION_CITATIONS = "maintenance/link_version_citations"
    MAINTENANCE_LIST_CURRENT_FACTS = "maintenance/list_current_facts"
    MAINTENANCE_LIST_DRIFT_CANDIDATES = "maintenance/list_drift_candidates"
    MAINTENANCE_LIST_NAMESPACES = "maintenance/list_namespaces"
    MAINTENANCE_LIST_PROPOSAL_KEYS = "maintenance/list_proposal_keys"
    MAINTENANCE_UPDATE_TRACE_PROPOSAL_KEY = "maintenance/update_trace_proposal_key"
    MEMORY_CREATE_MEMORIES = "memory/create_memories"
    MEMORY_CREATE_MEMORY = "memory/create_memory"
    MEMORY_CREATE_VERSION = "memory/create_version"
    MEMORY_FIND_EQUAL_MEMORIES = "memory/find_equal_memories"
    MEMORY_FIND_EQUAL_MEMORY = "memory/find_equal_memory"
    MEMORY_GET_KEY_CURRENT = "memory/get_key_current"
    MEMORY_GET_MEMORY = "memory/get_memory"
    MEMORY_GET_MEMORY_STATE = "memory/get_memory_state"
    MEMORY_LINK_SUPERSEDES = "memory/link_supersedes"
    MEMORY_LIST_VERSIONS = "memory/list_versions"
    MEMORY_LOCK_KEY = "memory/lock_key"
    MEMORY_RETRACT_MEMORY = "memory/retract_memory"
    OUTCOME_LINK_OUTCOME = "outcome/link_outcome"
    OUTCOME_LINK_OUTCOME_CITATIONS = "outcome/link_outcome_citations"
    OUTCOME_LIST_OUTCOME_DECISIONS = "outcome/list_outcome_decisions"
    OUTCOME_LIST_OUTCOMES = "outcome/list_outcomes"
    PRECEDENT_LIST_PRECEDENT_TARGETS = "precedent/list_precedent_targets"
    REASONING_CREATE_STEPS = "reasoning/create_steps"
    REASONING_CREATE_TRACE = "reasoning/create_trace"
    REASONING_GET_CITED_MEMORIES = "reasoning/get_cited_memories"
    REASONING_GET_TRACE = "reasoning/get_trace"
    REASONING_LINK_CITATIONS = "reasoning/link_citations"
    REASONING_LINK_PRODUCED = "reasoning/link_produced"
    REASONING_LINK_REJECTIONS = "reasoning/link_rejections"
    REASONING_LIST_DEPENDENTS = "reasoning/list_dependents"
    REASONING_LIST_LINEAGE_TRACES = "reasoning/list_lineage_traces"
    RETRIEVAL_LIST_HITS = "retrieval/list_hits"
    RETRIEVAL_SEARCH_FULLTEXT_CANDIDATES = "retrieval/search_fulltext_candidates"
    RETRIEVAL_SEARCH_NAMESPACE_EXACT = "retrieval/search_namespace_exact"
    RETRIEVAL_SEARCH_VECTOR_HISTORY = "retrieval/search_vector_history"
    RETRIEVAL_SEARCH_VECTOR_IN_NAMESPACE = "retrieval/search_vector_in_namespace"
    SCHEMA_001_MEMORY_UID = "schema/001_memory_uid"
    SCHEMA_002_FACT_UID = "schema/002_fact_uid"
    SCHEMA_003_DECISION_UID = "schema/003_decision_uid"
    SCHEMA_004_PROCEDURE_UID = "schema/004_procedure_uid"
    SCHEMA_005_OBSERVATION_UID = "schema/005_observation_uid"
    SCHEMA_006_REASONING_TRACE_UID = "schema/006_reasoning_trace_uid"
    SCHEMA_007_REASONING_STEP_UID = "schema/007_reasoning_step_uid"
    SCHEMA_008_TASK_UID = "schema/008_task_uid"
    SCHEMA_009_SOURCE_UID = "schema/009_source_uid"
    SCHEMA_010_MEMORY_VERSION = "schema/010_memory_version"
    SCHEMA_011_MEMORY_NAMESPACE_KIND = "schema/011_memory_namespace_kind"
    SCHEMA_012_MEMORY_KEY = "schema/012_memory_key"
    SCHEMA_013_MEMORY_CONTENT_NORM = "schema/013_memory_content_norm"
    SCHEMA_014_IDEMPOTENCY_KEY = "schema/014_idempotency_key"
    SCHEMA_015_SOURCE_SHA = "schema/015_source_sha"
    SCHEMA_016_MEMORY_EMBEDDING = "schema/016_memory_embedding"
    SCHEMA_017_MEMORY_CONTENT = "schema/017_memory_content"
    SCHEMA_018_MEMORY_MEMORY_ID = "schema/018_memory_memory_id"
    SCHEMA_019_FACT_KEY = "schema/019_fact_key"
    SCHEMA_020_REASONING_TRACE_PROPOSAL_KEY = "schema/020_reasoning_trace_proposal_key"
    SCHEMA_021_MEMORY_CURRENT = "schema/021_memory_current"
    SCHEMA_STATE_DROP_INDEX = "schema_state/drop_index"
    SCHEMA_STATE_GET_VECTOR_INDEX = "schema_state/get_vector_index"
    SCHEMA_STATE_LIST_INDEX_DEFINITIONS = "schema_state/list_index_definitions"
    SCHEMA_STATE_LIST_INDEXES = "schema_state/list_indexes"


class DevQueryName(StrEnum):
    """A dev-only query (benchmarks, Browser examples): loaded only by a dev registry."""

    BENCH_CREATE_MEMORIES = "bench/create_memories"
    BROWSER_CHALLENGED_DECISIONS = "browser/challenged_decisions"
    BROWSER_CHALLENGED_DECISIONS_TABLE = "browser/challenged_decisions_table"
    BROWSER_DECISION_STORY = "browser/decision_story"
    BROWSER_DECISION_STORY_TABLE = "browser/decision_story_table"
    BROWSER_EVIDENCE_DEPENDENTS = "browser/evidence_dependents"
    BROWSER_EVIDENCE_DEPENDENTS_TABLE = "browser/evidence_dependents_table"
    BROWSER_HIDDEN_BY_ORIGIN = "browser/hidden_by_origin"
    BROWSER_LATEST_DECISIONS = "browser/latest_decisions"
    BROWSER_LATEST_DECISIONS_TABLE = "browser/latest_decisions_table"
    BROWSER_MAINTENANCE_CHANGES = "browser/maintenance_changes"
    BROWSER_MAINTENANCE_CHANGES_TABLE = "browser/maintenance_changes_table"
    BROWSER_NAMESPACES = "browser/namespaces"


#: Any query name a registry may hold (production or dev).
AnyQueryName: TypeAlias = QueryName | DevQueryName
