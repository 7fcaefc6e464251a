"""Entity linking: map a mention ("Tom Hangs", "Nolan", "MIT", "curie") to graph nodes, keeping ambiguity.

Build time (:func:`build_index`, on the loader's writable connection): Kuzu FTS indexes over each label's
name-like properties, plus ``entities.json`` (one row per (label, key, name, prop)) and ``entities.npz``
(embeddings of every distinct name and its accent-folded lower-case variant).

Serve time (:class:`EntityIndex`, on the read-only graph): everything lexical is precomputed in memory
(exact, case/accent-folded, token containment with per-token fuzzy matching, acronyms from initials,
character-trigram similarity); Kuzu FTS (BM25) and embedding cosine are consulted only when the lexical
matchers find nothing strong, which keeps a link well under 20 ms. Scores are in [0, 1]; every source
that found an entity is kept in the ranking, and several near-equal candidates are all returned.

Size: the build side (FTS indexes, names and vectors files) and the serve side (the matchers that read
them) share one file format and one scoring scale, so they stay together.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from kgqa.kg.cypher import ident, literal
from kgqa.kg.spec import DomainSpec
from kgqa.settings import Settings
from kgqa.text import STOPWORDS
from kgqa.text import fold as fold_text
from kgqa.types import EntityCandidate

log = logging.getLogger(__name__)

ENTRIES_FILE = "entities.json"
VECTORS_FILE = "entities.npz"

# Scores per matcher (the best source of an entity sets its score; extra sources add a small bonus).
S_EXACT, S_FOLDED, S_ACRONYM = 1.0, 0.97, 0.86
S_PARTIAL_BASE, S_PARTIAL_COVER = 0.6, 0.3  # all mention tokens inside the name; cover = share of its tokens
FUZZY_MIN, FUZZY_BASE, FUZZY_SLOPE = 0.5, 0.3, 0.65  # whole-name trigram Dice d -> 0.3 + 0.65 d
TOKEN_FUZZY_MIN = 0.6
VECTOR_MIN, VECTOR_WEIGHT = 0.55, 0.85
FTS_TOP, FTS_WEIGHT = 0.72, 0.25
STRONG = 0.7  # lexical best at or above this: skip the embedding search
WEAK = 0.6  # lexical best below this: also ask Kuzu FTS (BM25)
MULTI_SOURCE_BONUS = 0.02

# stop words of linking: the shared list and the words that name no entity in a question ("born", "won")
LINK_STOPWORDS = STOPWORDS | frozenset("""
being done many much when where why names some his her their there has have had not no as than more most
less least after before between during about into over under per each every other same also only both
either i you we they he she them us my your our can could would should will shall may might must get got
won win wins born located one ones
""".split())
ACRONYM_SKIP = frozenset({"of", "the", "and", "for", "de", "la", "le", "des", "du", "di", "der", "und", "at", "in", "&"})

_TOKEN_SPAN = re.compile(r"[\w][\w'’\-.&]*", re.UNICODE)
_QUOTED = re.compile(r"\"([^\"]{2,120})\"|“([^”]{2,120})”|‘([^’]{2,120})’|(?<![\w])'([^']{2,120})'(?![\w])")
_PAREN = re.compile(r"\(([^()]{2,12})\)")
_NOT_ASCII_WORD = re.compile(r"[^0-9a-z]+")
_ACRONYM_SPLIT = re.compile(r"[\s\-/,]+")
_ASCII_ALNUM = re.compile(r"[0-9A-Za-z]")
# candidates kept per matcher before ranking, the most postings a fuzzy lookup reads (more: too common a string
# to link fuzzily) and the most names whose trigrams it counts: a link costs about the same on a graph of
# millions of names as on one of thousands (10 ms for a question's windows at 440k names, 57 ms at 100,000)
MATCHER_TOP = 64
FUZZY_POSTINGS_MAX = 30_000
FUZZY_CANDIDATES = 2048


# -- text normalization ----------------------------------------------------------------------------
def fold(text: str) -> str:
    """Returns the form names are matched in, ASCII words: "Gustaf's Knäckebröd" -> "gustafs knackebrod"
    (:func:`kgqa.text.fold` with ``case="lower", ascii=True, apostrophes=False``; ASCII text takes a
    shortcut with the same result, since decomposition leaves it as it is)."""
    if isinstance(text, str) and text.isascii():
        return " ".join(_NOT_ASCII_WORD.sub(" ", text.lower().replace("'", "").replace("`", "")).split())
    return fold_text(text, case="lower", ascii=True, apostrophes=False)


def trigrams(text: str) -> set[str]:
    """Character trigrams of a folded string, padded so short words still have some."""
    padded = f"  {text} "
    return {padded[i:i + 3] for i in range(len(padded) - 2)}


def dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def acronyms(name: str) -> set[str]:
    """Acronyms a name may be written as: initials of its words, and a short parenthesized alias."""
    out: set[str] = set()
    base = name
    if "(" in name:
        for m in _PAREN.finditer(name):
            alias = fold(m.group(1)).replace(" ", "")
            if alias and m.group(1).strip().isupper():
                out.add(alias)
        base = _PAREN.sub(" ", name)
    words = [w for w in _ACRONYM_SPLIT.split(base) if w]
    if len(words) < 2:
        return {a for a in out if 2 <= len(a) <= 8}
    if base.isascii():  # initial() inlined: most names, once each per process
        search = _ASCII_ALNUM.search
        initials = [m.group(0).lower() if (m := search(w)) else "" for w in words]
    else:
        initials = [initial(w) for w in words]
    significant = [f for w, f in zip(words, initials) if f and w.lower() not in ACRONYM_SKIP]
    if len(significant) >= 2:
        out.add("".join(significant))
        if len(words) != len(significant):
            out.add("".join(initials))
    return {a for a in out if 2 <= len(a) <= 8}


def initial(word: str) -> str:
    """Returns the first character of ``fold(word)`` ("" when it folds to nothing): for ASCII, its first letter
    or digit, lower-cased, without folding the word."""
    if word.isascii():
        m = _ASCII_ALNUM.search(word)
        return m.group(0).lower() if m else ""
    return fold(word)[:1]


# -- build time ------------------------------------------------------------------------------------
class Entry(NamedTuple):
    """One name of one node in the names file."""

    label: str
    key: Any  # primary-key value as stored
    name: str  # the matched text
    prop: str  # property the text comes from
    display: str  # display value of the node


def _rows(run: Callable[[str], Iterable[list]], cypher: str) -> list[list]:
    return [list(r) for r in run(cypher)]


def _conn_runner(conn) -> Callable[[str], list[list]]:
    def run(cypher: str) -> list[list]:
        res = conn.execute(cypher)
        rows = []
        while res.has_next():
            rows.append(res.get_next())
        res.close()
        return rows
    return run


def _graph_runner(graph) -> Callable[[str], list[list]]:
    return lambda cypher: graph.execute_unchecked(cypher).rows


def _node_tables(run) -> dict[str, dict[str, str]]:
    """label -> {property: type} for every node table."""
    tables = {}
    for row in _rows(run, "CALL show_tables() RETURN *"):
        name, kind = row[1], row[2]
        if kind == "NODE":
            tables[name] = {r[1]: r[2] for r in _rows(run, f"CALL table_info({literal(name)}) RETURN *")}
    return tables


def collect_entries(run: Callable[[str], Iterable[list]], spec: DomainSpec,
                    tables: dict[str, dict[str, str]] | None = None) -> list[Entry]:
    """Every (label, key, name, prop) of the spec's name-like properties present in the graph; ``tables``
    (label -> {property: type}, from the engine's catalogue) spares reading Kuzu's catalogue."""
    tables = _node_tables(run) if tables is None else tables
    columns = lambda cypher, types: [list(c) for c in zip(*_rows(run, cypher))]  # noqa: E731
    return [Entry(*row) for row in entry_rows(columns, spec, tables)]


def _label_queries(spec: DomainSpec, tables: dict[str, dict[str, str]]
                   ) -> Iterator[tuple[str, list[str], str, list[str]]]:
    """Yields (label, name properties present, the query of its keys, display values and names, the Kuzu types
    of those columns) for each label with name-like properties in ``tables`` (label -> {property: type})."""
    for label, props in spec.name_props.items():
        if label not in tables:
            continue
        pk = spec.primary_keys[label]
        disp = spec.display_prop(label)
        present = [p for p in props if p in tables[label]]
        if not present or pk not in tables[label]:
            continue
        cols = ", ".join(f"n.{ident(p)} AS c{j}" for j, p in enumerate(present))
        yield (label, present, f"MATCH (n:{ident(label)}) RETURN n.{ident(pk)} AS k, n.{ident(disp)} AS d, {cols}",
               [tables[label].get(p, "") for p in (pk, disp, *present)])


def _label_rows(label: str, present: list[str], found: list[list]) -> list[list]:
    """The names file's rows of one label from its query's columns (keys, display values, one per name)."""
    if len(present) == 1:  # the usual case, without the per-row set of the loop below
        prop = present[0]
        texts = [v if v is None or isinstance(v, str) else str(v) for v in found[2]]
        return [[label, key, text.strip(), prop, display if isinstance(display, str) else
                 str(display if display is not None else key)]
                for key, display, text in zip(found[0], found[1], texts) if text is not None and text.strip()]
    out = []
    for key, display, *values in zip(*found):
        display = str(display if display is not None else key)
        seen = set()
        for prop, value in zip(present, values):
            if value is None:
                continue
            text = value if isinstance(value, str) else str(value)
            if text in seen or not text.strip():
                continue
            seen.add(text)
            out.append([label, key, text.strip(), prop, display])
    return out


def entry_rows(columns: Callable[[str, list[str]], list[list]], spec: DomainSpec,
               tables: dict[str, dict[str, str]]) -> list[list]:
    """Returns the names file's rows, ``[label, key, name, prop, display]``, of the spec's name-like properties
    present in ``tables`` (label -> {property: type}); ``columns(cypher, types)`` returns a query's result column
    by column."""
    out: list[list] = []
    for label, present, cypher, types in _label_queries(spec, tables):
        found = columns(cypher, types)
        if found and found[0]:
            out += _label_rows(label, present, found)
    return out


def names_json(graph, spec: DomainSpec, tables: dict[str, dict[str, str]]) -> tuple[str, int, int]:
    """Returns the names file's text (the JSON of :func:`entry_rows`, in the same order), its number of rows
    and its number of distinct names, read from ``graph`` (a :class:`~kgqa.kg.db.Graph`) as Arrow tables: a
    label's rows are written by Arrow's string kernels (:func:`_json_rows`), no Python object per row, unless
    they need more than that (several name properties, control characters, keys of other types), then
    through Python rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from kgqa.kg.arrow_tables import reads_as_rows

    parts: list[str] = []
    names: list = []
    for label, present, cypher, types in _label_queries(spec, tables):
        table = graph.table(cypher) if reads_as_rows(types) else None
        fast = _json_rows(label, present, table, types) if table is not None else None
        if fast is not None:
            parts.append(fast[0])
            names.append(fast[1])
            continue
        found = [c.to_pylist() for c in table.columns] if table is not None else graph.columns(cypher, types)
        rows = _label_rows(label, present, found) if found and found[0] else []
        parts.append(json.dumps(rows, ensure_ascii=False)[1:-1])
        names.append(pa.array([r[2] for r in rows], type=pa.string()))
    every = pa.chunked_array(names, type=pa.string())
    distinct = pc.count_distinct(every).as_py() if len(every) else 0
    return "[" + ", ".join(p for p in parts if p) + "]", len(every), distinct


_INTEGERS = frozenset({"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "SERIAL"})
# characters json.dumps escapes, or str.strip() strips, besides the space, a quote and a backslash
_NOT_PLAIN = r"[\x{0}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]"


def _json_rows(label: str, present: list[str], table, types: list[str]):
    """Returns (the JSON of one label's names file rows, without the brackets; the names as an Arrow array),
    built by Arrow's string kernels, or None when a row needs Python (see :func:`names_json`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(present) != 1:
        return None
    key_type, disp_type, name_type = types
    if name_type != "STRING" or key_type not in _INTEGERS | {"STRING"} or disp_type not in (key_type, "STRING") \
            or table.num_rows == 0:
        return None
    key, disp, name = table.columns
    texts = [c for c, t in zip(table.columns, types) if t == "STRING"]
    if any(pc.any(pc.match_substring_regex(c, _NOT_PLAIN)).as_py() for c in texts):
        return None
    keep = pc.not_equal(pc.utf8_trim(pc.fill_null(name, ""), characters=" "), "")
    key, disp, name = (c.filter(keep) for c in (key, disp, name))
    name = pc.utf8_trim(name, characters=" ")
    key_text = key if key_type == "STRING" else pc.cast(key, pa.string())
    disp = pc.coalesce(disp if disp_type == "STRING" else pc.cast(disp, pa.string()), key_text)

    def quoted(col):  # a JSON string: no character here needs escaping but a quote and a backslash
        escaped = pc.replace_substring(pc.replace_substring(col, "\\", "\\\\"), '"', '\\"')
        return pc.binary_join_element_wise('"', escaped, '"', "")

    closing = pc.binary_join_element_wise(quoted(disp), "]", "")
    rows = pc.binary_join_element_wise("[" + json.dumps(label, ensure_ascii=False),
                                       quoted(key) if key_type == "STRING" else key_text, quoted(name),
                                       json.dumps(present[0], ensure_ascii=False), closing, ", ")
    return ", ".join(rows.to_pylist()), name.combine_chunks()


def _variants(entries: list[Entry]) -> tuple[list[str], list[list[int]]]:
    """Distinct texts to embed (each name and its folded variant) -> the entries they stand for."""
    index: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        for text in {e.name, fold(e.name)}:
            if text:
                index.setdefault(text, []).append(i)
    texts = sorted(index)
    return texts, [index[t] for t in texts]


def _embed_entries(entries: list[Entry], limit: int | None = None) -> dict[str, np.ndarray]:
    """Returns the vectors file's arrays: embeddings of the entries' name texts and, per text, the entries it
    stands for; none at all when there are more than ``limit`` distinct names (a sample would rarely hold the
    name asked about, and the lexical index links names at any size)."""
    from kgqa.kg.embed import embed

    if limit is not None and len({e.name for e in entries}) > limit:
        texts, owners = [], []
    else:
        texts, owners = _variants(entries)
    vectors = embed(texts) if texts else np.zeros((0, 384), dtype=np.float32)
    offsets = np.zeros(len(owners) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(o) for o in owners])
    flat = np.array([i for o in owners for i in o], dtype=np.int64)
    return {"vectors": vectors.astype(np.float32), "offsets": offsets, "owners": flat}


def create_fts_indexes(run: Callable[[str], Iterable[list]], spec: DomainSpec) -> list[str]:
    """``CREATE_FTS_INDEX`` per label over its STRING name properties; returns the index names."""
    tables = _node_tables(run)
    try:
        run("LOAD EXTENSION fts")
    except RuntimeError:
        pass  # already loaded on this connection
    made = []
    for label, props in spec.name_props.items():
        cols = [p for p in props if tables.get(label, {}).get(p) == "STRING"]
        if not cols:
            continue
        idx = fts_index_name(label)
        try:
            run(f"CALL DROP_FTS_INDEX('{label}', '{idx}')")
        except RuntimeError:
            pass  # not there yet
        col_list = ", ".join(f"'{c}'" for c in cols)
        run(f"CALL CREATE_FTS_INDEX('{label}', '{idx}', [{col_list}])")
        made.append(idx)
    return made


def fts_index_name(label: str) -> str:
    return f"fts_{label.lower()}"


def build_index(conn, graph_dir: Path, spec: DomainSpec) -> None:
    """Build FTS indexes (in the database) and the name/embedding files (beside it) for ``spec``.

    ``conn`` is a writable ``kuzu.Connection``; call at the end of a graph build.
    """
    run = _conn_runner(conn)
    graph_dir = Path(graph_dir)
    entries = collect_entries(run, spec)
    create_fts_indexes(run, spec)
    save_entries(graph_dir, entries)


def save_entries(graph_dir: Path, entries: list[Entry] | list[list], *, vectors_max: int | None = None) -> None:
    """Writes the names file and the vectors file (no embeddings above ``vectors_max`` distinct names), of
    entries or of :func:`entry_rows`."""
    rows = [[e.label, e.key, e.name, e.prop, e.display] if isinstance(e, Entry) else e for e in entries]
    save_names(graph_dir, json.dumps(rows, ensure_ascii=False),
               embed=vectors_max is None or full_index(rows, vectors_max))


def save_names(graph_dir: Path, text: str, *, embed: bool) -> None:
    """Writes the names file (``text``: the JSON of :func:`entry_rows`) and the vectors file: the names'
    embeddings when ``embed``, else none."""
    graph_dir.mkdir(parents=True, exist_ok=True)
    (graph_dir / ENTRIES_FILE).write_text(text, encoding="utf-8")
    np.savez(graph_dir / VECTORS_FILE, **_embed_entries([Entry(*r) for r in json.loads(text)] if embed else []))


def full_index(entries: list[Entry] | list[list], full_max: int) -> bool:
    """Whether a graph's names (entries, or :func:`entry_rows`) are few enough (at most ``full_max`` distinct)
    for embeddings and FTS too."""
    return len({e.name if isinstance(e, Entry) else e[2] for e in entries}) <= full_max


def load_entries(graph_dir: Path) -> list[Entry] | None:
    path = Path(graph_dir) / ENTRIES_FILE
    if not path.exists():
        return None
    return [Entry(*row) for row in json.loads(path.read_text(encoding="utf-8"))]


# -- serve time ------------------------------------------------------------------------------------
def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Returns the positions of the ``k`` highest scores (all when fewer), ties to the lower position."""
    if len(scores) <= k:
        return np.arange(len(scores))
    part = np.argpartition(-scores, k - 1)[:k]
    cut = scores[part].min()
    above = np.nonzero(scores > cut)[0]
    tied = np.nonzero(scores == cut)[0][:k - len(above)]
    return np.concatenate([above, tied])


def postings(items: list[list[str]]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Returns ({item: the positions of the lists holding it, ascending, each once}, each list's length) of
    ``items`` (one list per entry), sorted by numpy rather than one set per item."""
    n = len(items)
    counts = np.fromiter(map(len, items), dtype=np.int64, count=n)
    ids: dict[str, int] = {}
    codes = np.fromiter((ids.setdefault(t, len(ids)) for t in itertools.chain.from_iterable(items)), dtype=np.int64,
                        count=int(counts.sum()))
    return _grouped(codes, np.repeat(np.arange(n, dtype=np.int64), counts), n, list(ids)), counts


def trigram_postings(folded: list[str]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Returns ({trigram: the positions of the names holding it, ascending}, each name's number of distinct
    trigrams) of :func:`fold` ed names (ASCII), as :func:`trigrams` gives them, read from one byte buffer."""
    n = len(folded)
    padded = [f"  {f} " for f in folded]
    length = np.fromiter(map(len, padded), dtype=np.int64, count=n)
    buf = np.frombuffer("".join(padded).encode("ascii"), dtype=np.uint8).astype(np.int64)
    per = length - 2  # trigrams of each padded name, repeats included
    first = np.repeat(np.cumsum(length) - length, per)  # where each trigram's name starts in the buffer
    pos = first + np.arange(int(per.sum()), dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)
    codes = (buf[pos] << 16) | (buf[pos + 1] << 8) | buf[pos + 2]
    del buf, first, pos
    found = _grouped(codes, np.repeat(np.arange(n, dtype=np.int64), per), n, None)
    every = np.concatenate(list(found.values())) if found else np.zeros(0, dtype=np.int64)
    return found, np.bincount(every, minlength=n)


def _grouped(codes: np.ndarray, entries: np.ndarray, n: int, names: list[str] | None) -> dict[str, np.ndarray]:
    """{name of a code: its entries, ascending, each once}; a code without ``names`` is three bytes of text."""
    pairs = np.sort(codes * n + entries)  # np.unique took 14 s for 10M pairs; a sort and a mask, 1 s
    if len(pairs):
        pairs = pairs[np.concatenate([[True], pairs[1:] != pairs[:-1]])]
    code_of, entry_of = np.divmod(pairs, n) if n else (pairs, pairs)
    cuts = np.flatnonzero(np.diff(code_of)) + 1
    starts = np.concatenate([[0], cuts]).astype(np.int64) if len(pairs) else np.zeros(0, dtype=np.int64)
    groups = np.split(entry_of, cuts)
    keys = code_of[starts]
    if names is None:
        return {bytes([(c >> 16) & 255, (c >> 8) & 255, c & 255]).decode("ascii"): g
                for c, g in zip(keys.tolist(), groups)}
    return {names[c]: g for c, g in zip(keys.tolist(), groups)}


@dataclass
class _Hit:
    score: float
    source: str
    entry: int


class EntityIndex:
    """In-memory entity linker over one graph; thread-safe, results memoized per mention.

    Order of work in :meth:`link`: lexical matchers (always, ~0.2 ms); Kuzu FTS when the best lexical
    score is below ``WEAK``; embedding cosine when the best so far is below ``STRONG``.
    """

    def __init__(self, graph, spec: DomainSpec, *, use_fts: bool = True, use_vectors: bool = True,
                 cache_size: int = 4096, vectors_max: int | None = None):
        self.graph = graph
        self._vectors_max = Settings.from_env().entity_full_max if vectors_max is None else vectors_max
        self.spec = spec
        graph_dir = Path(getattr(graph, "dir", "."))
        entries = load_entries(graph_dir)
        self._vector_file = graph_dir / VECTORS_FILE
        if entries is None:  # graph built without an index: derive it from the graph itself
            from kgqa.kg.backend import read_catalog

            tables = {lb: dict(props) for lb, props in read_catalog(graph).nodes.items()}
            entries = collect_entries(_graph_runner(graph), spec, tables)
            self._vector_file = None
        self.entries: list[Entry] = entries
        self.use_vectors = use_vectors
        self._vectors: dict[str, np.ndarray] | None = None
        self._cache: OrderedDict[tuple, list[EntityCandidate]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._build_lexical()
        self.fts_indexes = self._fts_indexes() if use_fts else {}
        if use_vectors and self._vector_file is not None:
            self._vector_data()

    def warm(self) -> EntityIndex:
        """Load the name embeddings and the shared embedding model now rather than on first use."""
        if self.use_vectors:
            from kgqa.kg.embed import get_model

            self._vector_data()
            get_model()
        return self

    # -- precomputation ----------------------------------------------------------------------------
    def _build_lexical(self) -> None:
        names = [e.name for e in self.entries]
        folded = [fold(n) for n in names]
        self._exact: dict[str, list[int]] = defaultdict(list)
        self._folded: dict[str, list[int]] = defaultdict(list)
        self._acronym: dict[str, list[int]] = defaultdict(list)
        for i, (name, f) in enumerate(zip(names, folded)):
            self._exact[name].append(i)
            self._folded[f].append(i)
            for a in acronyms(name):
                self._acronym[a].append(i)
        self._token_entries, ntok = postings([f.split() for f in folded])
        self._entry_ntok = np.maximum(ntok, 1).astype(np.float32)
        self._tri_entries, tri_len = trigram_postings(folded)
        self._entry_tri_len = tri_len.astype(np.float32)
        # per-token trigram index, for fuzzy tokens ("Wachowsky" -> "wachowski")
        self._vocab = sorted(self._token_entries)
        vocab_tri: dict[str, list[int]] = defaultdict(list)
        self._vocab_tri_len = np.zeros(len(self._vocab), dtype=np.float32)
        for j, tok in enumerate(self._vocab):
            tris = trigrams(tok)
            self._vocab_tri_len[j] = len(tris)
            for t in tris:
                vocab_tri[t].append(j)
        self._vocab_tri = {t: np.asarray(v, dtype=np.int64) for t, v in vocab_tri.items()}
        self._keys = [(e.label, e.key) for e in self.entries]

    def _fts_indexes(self) -> dict[str, str]:
        """label -> FTS index name, for the indexes present in the graph."""
        if getattr(getattr(self.graph, "dialect", None), "name", "kuzu") != "kuzu":
            return {}  # Kuzu's FTS extension; other engines link with the in-memory matchers and vectors
        try:
            rows = self.graph.query("CALL show_indexes() RETURN *").rows
        except Exception as err:  # noqa: BLE001 - FTS is an optional source
            log.info("no FTS indexes: %s", err)
            return {}
        found = {r[0]: r[1] for r in rows if len(r) > 2 and r[2] == "FTS"}
        if found and hasattr(self.graph, "load_fts"):
            self.graph.load_fts()
        return found

    def _vector_data(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            with self._lock:
                if self._vectors is None:
                    if self._vector_file is not None and self._vector_file.exists():
                        with np.load(self._vector_file) as data:
                            self._vectors = {k: data[k] for k in data.files}
                    else:
                        self._vectors = _embed_entries(self.entries, self._vectors_max)
                    offsets = self._vectors["offsets"]
                    self._vector_owner_start = offsets[:-1]
                    self._vector_owner_len = np.diff(offsets)
        return self._vectors

    # -- matchers ----------------------------------------------------------------------------------
    def _fuzzy_tokens(self, token: str) -> list[tuple[str, float]]:
        """Vocabulary tokens equal or close to ``token``: [(vocab token, similarity)]."""
        if token in self._token_entries:
            return [(token, 1.0)]
        if len(token) > 3 and token.endswith("s") and token[:-1] in self._token_entries:
            return [(token[:-1], 0.95)]  # plural: "Wachowskis", "Curies"
        if len(token) < 4:
            return []
        tris = trigrams(token)
        lists = [self._vocab_tri[t] for t in tris if t in self._vocab_tri]
        if not lists:
            return []
        counts = np.bincount(np.concatenate(lists), minlength=len(self._vocab)).astype(np.float32)
        sims = 2 * counts / (len(tris) + self._vocab_tri_len)
        best = np.nonzero(sims >= TOKEN_FUZZY_MIN)[0]
        return [(self._vocab[j], float(sims[j])) for j in best]

    def _lexical(self, mention: str) -> list[_Hit]:
        hits: list[_Hit] = []
        f = fold(mention)
        if not f:
            return hits
        for i in self._exact.get(mention.strip(), ()):
            hits.append(_Hit(S_EXACT, "exact", i))
        for i in self._folded.get(f, ()):
            hits.append(_Hit(S_FOLDED, "casefold", i))
        compact = f.replace(" ", "")
        if " " not in f and 2 <= len(compact) <= 8:
            bonus = 0.02 if mention.strip().isupper() else 0.0
            for i in self._acronym.get(compact, ()):
                hits.append(_Hit(S_ACRONYM + bonus, "acronym", i))
        hits.extend(self._partial(f))
        hits.extend(self._fuzzy(f))
        return hits

    def _partial(self, f: str) -> list[_Hit]:
        """Entries whose tokens contain every mention token (each exactly or fuzzily); the best
        :data:`MATCHER_TOP` of them."""
        toks = [t for t in f.split() if t not in LINK_STOPWORDS] or f.split()
        if not toks or len(toks) > 8:
            return []
        common: np.ndarray | None = None
        per_token: list[tuple[np.ndarray, np.ndarray]] = []
        for t in toks:
            matches = self._fuzzy_tokens(t)
            if not matches:
                return []
            ents = np.concatenate([self._token_entries[vt] for vt, _ in matches])
            sims = np.concatenate([np.full(len(self._token_entries[vt]), sim, dtype=np.float32)
                                   for vt, sim in matches])
            order = np.lexsort((-sims, ents))  # by entry, best similarity first
            ents, sims = ents[order], sims[order]
            first = np.ones(len(ents), dtype=bool)
            first[1:] = ents[1:] != ents[:-1]
            ents, sims = ents[first], sims[first]  # each entry once, with its best similarity
            per_token.append((ents, sims))
            common = ents if common is None else np.intersect1d(common, ents, assume_unique=True)
            if not len(common):
                return []
        sim = np.ones(len(common), dtype=np.float32)
        for ents, sims in per_token:
            sim = np.minimum(sim, sims[np.searchsorted(ents, common)])
        cover = np.minimum(1.0, len(toks) / self._entry_ntok[common])
        scores = (S_PARTIAL_BASE + S_PARTIAL_COVER * cover) * sim
        keep = _top(scores, MATCHER_TOP)
        return [_Hit(float(scores[j]), "partial", int(common[j])) for j in keep]

    def _fuzzy(self, f: str) -> list[_Hit]:
        """Whole-name character-trigram (Dice) similarity, for misspellings ("Tom Hangs"); the best
        :data:`MATCHER_TOP` entries at or above ``FUZZY_MIN``.

        Candidates come from the rarest trigrams only: a name within ``FUZZY_MIN`` (Dice 0.5) of the
        mention's ``a`` trigrams shares at least ``a/3`` of them, so it holds one of the rarest
        ``len - ceil(a/3) + 1`` of those in the index; its shared count is then read by binary search in
        each trigram's sorted posting list, for the :data:`FUZZY_CANDIDATES` that share most of the rarest
        ones (all of them on a graph of a few thousand names). A mention whose rarest trigrams still list
        more than :data:`FUZZY_POSTINGS_MAX` names is too common a string to link fuzzily."""
        tris = trigrams(f)
        lists = sorted((self._tri_entries[t] for t in tris if t in self._tri_entries), key=len)
        if not lists:
            return []
        need = -(-len(tris) // 3)
        if need > len(lists):
            return []
        prefix = lists[:len(lists) - need + 1]
        if sum(len(x) for x in prefix) > FUZZY_POSTINGS_MAX:
            return []
        shared = np.bincount(np.concatenate(prefix), minlength=len(self.entries))
        cands = np.flatnonzero(shared)
        shared = shared[cands]
        if len(cands) > FUZZY_CANDIDATES:  # the names sharing most of the rarest trigrams
            keep = np.sort(_top(shared.astype(np.float32), FUZZY_CANDIDATES))
            cands = cands[keep]
        counts = np.zeros(len(cands), dtype=np.float32)
        for post in lists:
            pos = np.minimum(np.searchsorted(post, cands), len(post) - 1)
            counts += post[pos] == cands
        sims = 2 * counts / (len(tris) + self._entry_tri_len[cands])
        ok = np.nonzero(sims >= FUZZY_MIN)[0]
        keep = ok[_top(sims[ok], MATCHER_TOP)]
        return [_Hit(FUZZY_BASE + FUZZY_SLOPE * float(sims[j]), "fuzzy", int(cands[j])) for j in keep]

    def _fts(self, mention: str, labels: set[str] | None, k: int) -> list[_Hit]:
        """Kuzu FTS (BM25) over each label's name properties; scores rescaled to below STRONG."""
        out: list[tuple[float, int]] = []
        by_key = self._key_positions()
        for label, idx in self.fts_indexes.items():
            if labels and label not in labels:
                continue
            pk = self.spec.primary_keys.get(label)
            if not pk:
                continue
            try:
                rows = self.graph.query(
                    f"CALL QUERY_FTS_INDEX({literal(label)}, {literal(idx)}, $q, top := $k) RETURN node.{ident(pk)}, score",
                    {"q": mention, "k": k}).rows
            except Exception as err:  # noqa: BLE001 - FTS is an optional source
                log.debug("FTS %s failed: %s", idx, err)
                continue
            for key, score in rows:
                for i in by_key.get((label, key), ()):
                    out.append((float(score), i))
        if not out:
            return []
        top = max(s for s, _ in out) or 1.0
        return [_Hit(FTS_TOP - FTS_WEIGHT * (1 - s / top), "fts", i) for s, i in out]

    def _key_positions(self) -> dict[tuple[str, Any], list[int]]:
        if not hasattr(self, "_by_key"):
            by_key: dict[tuple[str, Any], list[int]] = defaultdict(list)
            for i, key in enumerate(self._keys):
                by_key[key].append(i)
            self._by_key = dict(by_key)
        return self._by_key

    def _vector(self, mention: str, labels: set[str] | None, k: int) -> list[_Hit]:
        from kgqa.kg.embed import embed_one

        data = self._vector_data()
        if data["vectors"].shape[0] == 0:
            return []
        sims = data["vectors"] @ embed_one(mention)
        order = np.argsort(-sims)[: 4 * k]
        hits = []
        for row in order:
            if sims[row] < VECTOR_MIN:
                break
            start, n = self._vector_owner_start[row], self._vector_owner_len[row]
            for i in data["owners"][start:start + n]:
                hits.append(_Hit(VECTOR_WEIGHT * float(sims[row]), "vector", int(i)))
        return hits

    # -- public API --------------------------------------------------------------------------------
    def link(self, mention: str, k: int = 10, labels: Iterable[str] | None = None, *,
             lexical_only: bool = False) -> list[EntityCandidate]:
        """Ranked candidates for ``mention`` (best first, at most ``k``), optionally within ``labels``."""
        label_set = frozenset(labels) if labels else None
        key = (mention, k, label_set, lexical_only)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return [EntityCandidate(**c.to_dict()) for c in cached]
        result = self._link(mention, k, label_set, lexical_only)
        with self._lock:
            self._cache[key] = result
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return [EntityCandidate(**c.to_dict()) for c in result]

    def _link(self, mention: str, k: int, labels: frozenset[str] | None,
              lexical_only: bool) -> list[EntityCandidate]:
        mention = " ".join(str(mention).split())
        if not mention:
            return []
        hits = [h for h in self._lexical(mention) if not labels or self.entries[h.entry].label in labels]
        best = max((h.score for h in hits), default=0.0)
        if not lexical_only and best < WEAK and self.fts_indexes:
            fts = self._fts(mention, labels, k)
            hits += fts
            best = max([best] + [h.score for h in fts])
        if not lexical_only and best < STRONG and self.use_vectors:
            hits += [h for h in self._vector(mention, labels, k)
                     if not labels or self.entries[h.entry].label in labels]
        return self._rank(hits, k)

    def _rank(self, hits: list[_Hit], k: int) -> list[EntityCandidate]:
        """One candidate per node: its best hit, plus a small bonus per additional agreeing source."""
        best: dict[tuple[str, Any], _Hit] = {}
        sources: dict[tuple[str, Any], set[str]] = defaultdict(set)
        for h in hits:
            node = self._keys[h.entry]
            sources[node].add(h.source)
            cur = best.get(node)
            if cur is None or h.score > cur.score or (h.score == cur.score and h.entry < cur.entry):
                best[node] = h
        ranked = []
        for node, h in best.items():
            bonus = MULTI_SOURCE_BONUS * min(2, len(sources[node]) - 1)
            e = self.entries[h.entry]
            ranked.append(EntityCandidate(label=e.label, key=str(e.key), name=e.display,
                                          score=round(min(1.0, h.score + bonus), 4), prop=e.prop,
                                          source=h.source))
        ranked.sort(key=lambda c: (-c.score, len(c.name), c.label, c.name, c.key))
        return ranked[:k]

    def find_mentions(self, question: str, k: int = 5, max_ngram: int = 6
                      ) -> list[tuple[str, list[EntityCandidate]]]:
        """Entity mentions in a question, in textual order: [(span text, candidates)]."""
        return [(text, cands) for _, _, text, cands in self.find_mention_spans(question, k, max_ngram)]

    def find_mention_spans(self, question: str, k: int = 5, max_ngram: int = 6
                           ) -> list[tuple[int, int, str, list[EntityCandidate]]]:
        """Entity mentions in a question, in textual order: [(start, end, span text, candidates)], where
        ``question[start:end]`` is the span (its position, not the first place its text occurs).

        Quoted strings are linked first (with every source); then n-gram windows of the remaining words
        are linked lexically and the best non-overlapping spans kept (higher score, then longer span).
        """
        taken: list[tuple[int, int]] = []
        found: list[tuple[int, str, list[EntityCandidate]]] = []
        for m in _QUOTED.finditer(question):
            text = next(g for g in m.groups() if g)
            cands = self.link(text, k=k)
            if cands:
                start = m.start() + m.group(0).index(text)
                found.append((start, start + len(text), text, cands))
                taken.append((m.start(), m.end()))
        spans = self._token_spans(question)
        options = []
        for n in range(min(max_ngram, len(spans)), 0, -1):
            for i in range(len(spans) - n + 1):
                start, end = spans[i][0], spans[i + n - 1][1]
                if any(start < b and a < end for a, b in taken):
                    continue
                words = [question[a:b] for a, b in spans[i:i + n]]
                if all(fold(w) in LINK_STOPWORDS or not fold(w) for w in words):
                    continue
                if n == 1 and len(fold(words[0])) < 2:
                    continue
                text = question[start:end]
                cands = self.link(text, k=k, lexical_only=True)
                if not cands:
                    continue
                top = cands[0]
                informative = any(self._marked(question, a, w) for (a, _), w in zip(spans[i:i + n], words))
                edge_stop = fold(words[0]) in LINK_STOPWORDS or fold(words[-1]) in LINK_STOPWORDS
                score = top.score - (0.05 if edge_stop and top.source not in ("exact", "casefold") else 0.0)
                if score < (0.7 if informative else 0.88):
                    continue
                options.append((score, n, start, end, text, cands))
        options.sort(key=lambda o: (-o[0], -o[1], o[2]))
        for score, n, start, end, text, cands in options:
            if any(start < b and a < end for a, b in taken):
                continue
            taken.append((start, end))
            found.append((start, end, text, cands))
        found.sort(key=lambda f: f[0])
        return found

    @staticmethod
    def _marked(question: str, start: int, word: str) -> bool:
        """A word that looks like part of a name: digits, or capitalized mid-sentence and not a stopword."""
        if any(ch.isdigit() for ch in word):
            return True
        if not word[:1].isupper() or fold(word) in LINK_STOPWORDS:
            return False
        before = question[:start].rstrip()
        return bool(before) and before[-1] not in ".!?:;\"“(" or word.isupper() and len(word) > 1

    @staticmethod
    def _token_spans(question: str) -> list[tuple[int, int]]:
        spans = []
        for m in _TOKEN_SPAN.finditer(question):
            a, b = m.start(), m.end()
            word = question[a:b]
            for suffix in ("'s", "’s"):
                if word.lower().endswith(suffix) and len(word) > 2:
                    b -= 2
                    word = word[:-2]
            while word and word[-1] in ".-&'’" and word.count(".") <= 1:
                b -= 1
                word = word[:-1]
            if b > a:
                spans.append((a, b))
        return spans
