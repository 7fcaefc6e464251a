"""Where the compiled path finds no answer: an LLM-named topic entity, bounded expansion, the vector memory."""

from __future__ import annotations

from kgqa.kg.cypher import ident
from kgqa.planner.domain import Domain
from kgqa.types import Result, Subgraph


class Fallbacks:
    """The pipeline's fallbacks (:meth:`_llm_entity`, :meth:`_expand`, :meth:`_memory_fallback`); mixed into
    :class:`~kgqa.planner.pipeline.Pipeline`, whose ``settings``, ``llm``, ``_tls`` and ``_choose`` they use."""

    # -- graph-less fallback (GLARE vector memory, kg/vector_memory.py) -------------------------
    def _memory_fallback(self, question: str, d: Domain, mentions, r: Result) -> None:
        """After the Cypher path ended in "I don't know": retrieve the top-k pooled subgraphs of the
        domain's vector memory (loaded lazily, once per domain and KG version; never built here) and
        answer from their triples only when :func:`kgqa.planner.memory_answer.answer_from_memory` finds one
        fact that answers the question; otherwise "I don't know" stands."""
        if not self.settings.vector_memory or r.status != "dont_know":
            return
        from kgqa.kg.vector_memory import cached_memory
        from kgqa.planner.memory_answer import answer_from_memory

        memory = cached_memory(self.settings.state_dir, d.name, d.graph.version, m=self.settings.vector_memory_m,
                               ranking=self.settings.vector_memory_ranking)
        if memory is None:
            return
        hits = memory.retrieve(question, self.settings.vector_memory_k)
        r.operators = [*r.operators, "vector_memory"]
        out = answer_from_memory(question, hits, mentions, words=d.view.spec.words)
        if out.answer is not None:
            r.answer, r.status, r.evidence, r.subgraph = out.answer, "answered", "vector-memory", out.subgraph

    def _llm_entity(self, question: str, d: Domain, mentions):
        from kgqa.planner.frame import Mention

        try:
            from kgqa.planner.programs import Programs

            self._tls.calls = getattr(self._tls, "calls", 0) + 1
            out = Programs(self.llm).extract_isr(question)
        except Exception:  # noqa: BLE001 - no LLM, no extra entity
            return None
        entity = (out or {}).get("entity") or ""
        start = question.lower().find(entity.lower()) if entity else -1
        if start < 0 or any(m.start <= start < m.end for m in mentions):
            return None  # the ISR must use the question's own words
        cands = d.index.link(entity, k=3)
        if not cands or cands[0].score < 0.8:
            return None
        top = cands[0]
        return Mention(start, start + len(entity), entity, top.label, d.view.key(top.label), top.key, top.score)

    @staticmethod
    def _local_relations(d: Domain, label: str, key: str, node_key) -> list[tuple[str, str, str]]:
        """The anchor's local 1-hop schema: (rel, direction, other label) it really has edges for."""
        out = []
        for direction, arrow in (("out", "-[r]->"), ("in", "<-[r]-")):
            res = d.graph.query(_local_relations_query(label, key, arrow), {"k": node_key})
            out += [(rel, direction, other) for rel, other in sorted(res.rows)]
        return out

    def _expand(self, question: str, d: Domain, mentions) -> Subgraph | None:
        anchors = [m for m in mentions if m.label]
        if not anchors or not (self.settings.use_depth or self.settings.use_breadth):
            return None
        try:
            from kgqa.kg.operators import breadth_expand, depth_expand

            m = anchors[0]
            key = d.view.key(m.label)
            node_key = m.value if m.prop == key else None
            if node_key is None:
                res = d.graph.query(f"MATCH (n:{ident(m.label)}) WHERE n.{ident(m.prop)} = $v RETURN n.{ident(key)} LIMIT 1",
                                    {"v": m.value})
                node_key = res.rows[0][0] if res.rows else None
            if node_key is None:
                return None
            sub = Subgraph()
            options = self._local_relations(d, m.label, key, node_key) if self.settings.use_depth else []
            if options:
                # depth: one hop along the relation the LLM picks from the anchor's real relationships
                labels = [f"{rel.lower().replace('_', ' ')} ({other})" for rel, _, other in options]
                pick = 0
                if len(options) > 1:
                    try:
                        pick = self._choose(f"Question: {question}\nWhich relation leads to the answer?", labels)
                    except Exception:  # noqa: BLE001 - the first relation stands
                        pick = 0
                rel, direction, _ = options[pick]
                sub.merge(depth_expand(d.graph, [(m.label, node_key)], rel, direction, k_depth_used=0,
                                       k_depth=self.settings.k_depth, limit=self.settings.k_degree))
            if self.settings.use_breadth:
                # breadth: bounded star scan around the anchor
                sub.merge(breadth_expand(d.graph, (m.label, node_key), question, k_degree=self.settings.k_degree))
            return sub
        except Exception:  # noqa: BLE001 - expansion is best effort evidence
            return None


def _local_relations_query(label: str, key: str, arrow: str) -> str:
    return f"MATCH (a:{ident(label)}){arrow}(b) WHERE a.{ident(key)} = $k RETURN DISTINCT label(r), label(b)"
