"""Offline cache pre-warm (CacheRAG §4.4): sample stars, synthesize questions, verify plans, fill the cache.

sampling (stratified stars, 2-hop paths) -> synth (schema templates) / llm_synth (LLM questions, LLM judge)
-> verify (leak filter, deterministic compile + execute, pipeline agreement, template round trip) -> job
(`kgqa prewarm`, resumable; `prewarm_into` for the ablation).
"""
