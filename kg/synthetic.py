"""Wikidata-like synthetic knowledge graphs for the scalability benchmark.

One node table ``Item(id, name, description, kind)`` (Wikidata items) and a few dozen relation tables
named after common Wikidata properties. Relation frequencies, out-degrees and in-degrees all follow
Zipf-like power laws, so a handful of items are super-nodes (like "human" or "United States") while most
have a few edges. Generation is deterministic in (triples, seed); graphs are written as CSV and bulk
loaded with ``COPY FROM``, and cached under ``<home>/bench/`` for reuse.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from kgqa.kg.db import DB_FILE, GraphMeta, open_database

GENERATOR_VERSION = "1"
STATS_FILE = "synthetic.json"

PREDICATES = (
    "INSTANCE_OF", "SUBCLASS_OF", "COUNTRY", "LOCATED_IN", "CITIZEN_OF", "PLACE_OF_BIRTH", "PLACE_OF_DEATH",
    "EDUCATED_AT", "EMPLOYER", "MEMBER_OF", "PART_OF", "HAS_PART", "AUTHOR", "DIRECTOR", "CAST_MEMBER",
    "GENRE", "PUBLISHER", "FOLLOWS", "FOLLOWED_BY", "SPOUSE", "CHILD", "FATHER", "MOTHER", "SIBLING",
    "OCCUPATION", "AWARD_RECEIVED", "NOMINATED_FOR", "LANGUAGE", "CAPITAL", "HEAD_OF_GOVERNMENT",
    "SHARES_BORDER_WITH", "NAMED_AFTER", "OWNED_BY", "FOUNDED_BY", "HEADQUARTERS", "MEMBER_OF_SPORTS_TEAM",
)
KINDS = ("human", "city", "country", "film", "book", "organization", "university", "award", "genre",
         "language", "sports team", "occupation")
_SYLLABLES = ("ka", "lo", "mi", "ra", "ten", "vor", "shi", "an", "bel", "dor", "el", "fi", "gar", "hul",
              "is", "jo", "kin", "lum", "nor", "os", "pra", "qui", "sol", "tur", "ul", "ven", "wy", "zen")


@dataclass
class SyntheticStats:
    triples: int
    items: int
    seed: int
    predicates: int
    max_in_degree: int
    max_out_degree: int
    hubs: list[int]  # item ids with the highest total degree, highest first
    build_s: float = 0.0
    version: str = GENERATOR_VERSION


def _zipf_weights(n: int, alpha: float) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** alpha
    return w / w.sum()


def generate(triples: int, seed: int = 13) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Edges (src, predicate index, dst) of a power-law graph with exactly ``triples`` distinct triples."""
    rng = np.random.default_rng(seed)
    n_items = max(200, triples // 8)
    pred_p = _zipf_weights(len(PREDICATES), 1.1)
    out_p = _zipf_weights(n_items, 0.6)  # out-degree: mild tail
    in_p = _zipf_weights(n_items, 1.0)  # in-degree: heavy tail (super-nodes)
    out_perm, in_perm = rng.permutation(n_items), rng.permutation(n_items)
    keys = np.zeros(0, dtype=np.int64)
    need = triples
    while need > 0:
        m = int(need * 1.15) + 16
        src = out_perm[rng.choice(n_items, size=m, p=out_p)]
        dst = in_perm[rng.choice(n_items, size=m, p=in_p)]
        pred = rng.choice(len(PREDICATES), size=m, p=pred_p)
        ok = src != dst
        new = (src[ok].astype(np.int64) * len(PREDICATES) + pred[ok]) * n_items + dst[ok]
        keys = np.unique(np.concatenate([keys, new]))
        need = triples - len(keys)
    keys = rng.permutation(keys)[:triples]
    dst = keys % n_items
    rest = keys // n_items
    return rest // len(PREDICATES), rest % len(PREDICATES), dst, n_items


def _names(n: int, rng: np.random.Generator) -> list[str]:
    syl = np.array(_SYLLABLES)
    parts = rng.integers(0, len(syl), size=(n, 4))
    return [f"{syl[a].title()}{syl[b]} {syl[c].title()}{syl[d]}" for a, b, c, d in parts]


def graph_dir(home: Path, triples: int, seed: int = 13) -> Path:
    return Path(home) / "bench" / f"synthetic-{triples}-s{seed}-v{GENERATOR_VERSION}"


def load_stats(path: Path) -> SyntheticStats | None:
    f = Path(path) / STATS_FILE
    if not (f.exists() and (Path(path) / DB_FILE).exists()):
        return None
    return SyntheticStats(**json.loads(f.read_text()))


def build(home: Path, triples: int, seed: int = 13, *, force: bool = False) -> tuple[Path, SyntheticStats]:
    """Build (or reuse) the synthetic graph of ``triples`` edges; returns its directory and stats."""
    import kuzu

    target = graph_dir(home, triples, seed)
    stats = None if force else load_stats(target)
    if stats is not None:
        return target, stats
    t0 = time.perf_counter()
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "csv").mkdir(parents=True)
    src, pred, dst, n_items = generate(triples, seed)
    rng = np.random.default_rng(seed + 1)
    names = _names(n_items, rng)
    kinds = rng.integers(0, len(KINDS), size=n_items)
    with open(tmp / "csv" / "items.csv", "w") as fh:
        fh.write("id,name,description,kind\n")
        fh.writelines(f'{i},{names[i]},"{KINDS[k]} number {i}",{KINDS[k]}\n' for i, k in enumerate(kinds))
    for p, rel in enumerate(PREDICATES):
        sel = pred == p
        pairs = np.stack([src[sel], dst[sel]], axis=1)
        np.savetxt(tmp / "csv" / f"{rel}.csv", pairs, fmt="%d", delimiter=",", header="from,to", comments="")
    db = open_database(tmp / DB_FILE)
    conn = kuzu.Connection(db)
    conn.execute("CREATE NODE TABLE Item(id INT64 PRIMARY KEY, name STRING, description STRING, kind STRING)")
    conn.execute(f"COPY Item FROM '{tmp / 'csv' / 'items.csv'}' (header=true)")
    for rel in PREDICATES:
        conn.execute(f"CREATE REL TABLE {rel}(FROM Item TO Item)")
        conn.execute(f"COPY {rel} FROM '{tmp / 'csv' / (rel + '.csv')}' (header=true)")
    conn.close()
    db.close()
    shutil.rmtree(tmp / "csv")
    in_deg = np.bincount(dst, minlength=n_items)
    out_deg = np.bincount(src, minlength=n_items)
    total = in_deg + out_deg
    hubs = [int(i) for i in np.argsort(-total, kind="stable")[:10]]
    stats = SyntheticStats(triples=triples, items=n_items, seed=seed, predicates=len(PREDICATES),
                           max_in_degree=int(in_deg.max()), max_out_degree=int(out_deg.max()), hubs=hubs,
                           build_s=round(time.perf_counter() - t0, 2))
    (tmp / STATS_FILE).write_text(json.dumps(asdict(stats), indent=2))
    GraphMeta(domain="synthetic", version=f"synthetic-{triples}-s{seed}-v{GENERATOR_VERSION}",
              node_counts={"Item": n_items},
              rel_counts={r: int((pred == p).sum()) for p, r in enumerate(PREDICATES)},
              built_at=time.strftime("%Y-%m-%dT%H:%M:%S")).write(tmp)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target, stats
