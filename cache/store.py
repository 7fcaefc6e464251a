"""Open the service's caches from settings: the persistent plan cache and the in-memory answer cache.

Takes any object with the :class:`kgqa.settings.Settings` fields it reads, so ``cache/`` stays free of the
app layer; the plan cache file is ``<state_dir>/plan_cache.sqlite``.
"""

from __future__ import annotations

from kgqa.cache.answer_cache import AnswerCache
from kgqa.cache.plan_cache import PlanCache


def open_plan_cache(settings, *, code_version: str = "") -> PlanCache:
    """The service's plan cache, bounded per bucket and per domain as configured; ``code_version`` (the
    compiler's, :func:`kgqa.planner.version.compiler_version`) is stamped on what it learns and decides
    which templates it reuses."""
    return PlanCache(settings.state_dir, bound=settings.plan_bucket_bound, domain_bound=settings.plan_domain_bound,
                     code_version=code_version)


def open_answer_cache(settings, *, memory_efficient: bool = True):
    """The answer cache; ``memory_efficient`` prunes to ``answer_prune_rows`` rows and compresses. With
    ``redis_url`` set, the in-process cache is backed by the shared Redis tier
    (:class:`kgqa.cache.redis_tier.TieredAnswerCache`)."""
    local = AnswerCache(settings.answer_cache_entries, settings.answer_cache_bytes,
                       prune_rows=settings.answer_prune_rows if memory_efficient else 0,
                       compress_min_bytes=settings.answer_compress_min_bytes, compress=memory_efficient,
                       semantic_threshold=settings.semantic_cache_threshold)
    url = getattr(settings, "redis_url", "")
    if not url:
        return local
    from kgqa.cache.redis_tier import TieredAnswerCache

    return TieredAnswerCache(local, url, ttl_s=settings.redis_ttl_s)
