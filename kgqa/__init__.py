"""kgqa: question answering over knowledge graphs (CacheRAG design).

The root package holds what every layer shares: ``kgqa.settings`` (the one configuration object) and
``kgqa.types`` (the typed objects passed between stages). The layers install as subpackages and import
downward only: ``kgqa.kg`` <- ``kgqa.cache`` <- ``kgqa.planner`` <- ``kgqa.autogen`` <- ``kgqa.app``, with
``kgqa.evals`` on top.
"""

__version__ = "0.1.0"
