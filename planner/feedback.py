"""Feedback closes the loop: a thumbs up or down on an answer the service gave updates its caches.

:func:`give_feedback` (behind ``POST /feedback`` and the chat page's buttons) acts only on an answer the
service itself produced. It never acts on a Cypher the client sends:

* The answer is looked up in the answer cache under the key the pipeline stored it with: the normalized
  question, the domain (every loaded domain when none is given, as ``Pipeline.ask`` does) and the graph's
  current KG version. When there is no entry, :class:`FeedbackNotFound` is raised: the question was never
  answered, or its answer was evicted or made on an older graph. A client may send the Cypher it was
  shown. It is only compared with the stored one (:class:`FeedbackConflict` when the answer has changed
  since) and never stored or run.
* ``up`` stores the answer's plan (the Cypher that answered, parameters inlined as in the answer) through
  :meth:`kgqa.cache.plan_cache.PlanCache.learn` with provenance ``"user"``. The pipeline's online learning
  makes the same entry, template and dedupe key, so a repeat of the question reuses it as a template, and
  a plan demoted earlier is revived. Only an answer a query computed qualifies: status ``answered``, a
  Cypher, evidence not from the vector memory.
* ``down`` demotes every plan of the domain whose Cypher is the answer's, and stores this question's own
  (question, Cypher) entry demoted (a tombstone when the pipeline had not learned it). Then it drops the
  answer from the answer cache, so the next ask computes it afresh. Demoted plans stay in the file but are
  never reused or shown as exemplars (see :mod:`kgqa.cache.plan_cache`). When the answer came from a
  reused template, the template is blocked for this question rather than demoted: template reuse skips any
  fill that gives a demoted (question, Cypher) pair, so no template can return the voted-down plan for this
  question, while the template's own question (whose answer nobody voted down) keeps it.

Only the caches are written. Feedback runs no query, and the graph stays opened read-only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kgqa.cache.plan_cache import PlanCache
from kgqa.cache.plan_entry import PlanEntry
from kgqa.types import InputError, Result

VOTES = ("up", "down")


class FeedbackNotFound(InputError):
    """No answer of the service's own to give feedback on (HTTP 404)."""


class FeedbackConflict(InputError):
    """Feedback that does not apply to the stored answer (HTTP 409): the answer changed since, or it has no
    plan to verify."""


@dataclass
class FeedbackResult:
    """What a vote did: the answer it applied to and the plan-cache entries it stored or demoted."""

    vote: str
    question: str
    domain: str
    kg_version: str
    action: str  # "verified" (up) or "demoted" (down)
    cypher: str | None
    plans: list[dict[str, Any]] = field(default_factory=list)  # {id, question, provenance, demoted}
    answer_forgotten: bool = False
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def give_feedback(pipeline, question: Any, domain: str | None, vote: Any, *,
                  cypher: str | None = None) -> FeedbackResult:
    """Apply a thumbs ``vote`` ("up" or "down") to the answer ``pipeline`` gave to ``question``.

    Raises :class:`kgqa.types.InputError` for bad input (question, unknown domain, vote),
    :class:`FeedbackNotFound` when the service holds no answer to the question, and
    :class:`FeedbackConflict` when the vote cannot apply to that answer.
    """
    if vote not in VOTES:
        raise InputError(f"'vote' must be 'up' or 'down', not {vote!r}")
    if cypher is not None and not isinstance(cypher, str):
        raise InputError("'cypher' must be a string")
    question = pipeline.validate(question, domain)
    d, answer = _stored_answer(pipeline, question, domain)
    r = Result.from_dict(answer)
    if cypher is not None and _norm(cypher) != _norm(r.cypher or ""):
        raise FeedbackConflict("the answer to this question has changed since it was shown (its Cypher differs); "
                               "ask again and vote on the new answer")
    plan_cache = pipeline.plan_cache
    out = FeedbackResult(vote=vote, question=r.question, domain=d.name, kg_version=d.graph.version,
                         action="verified" if vote == "up" else "demoted", cypher=r.cypher)
    if vote == "up":
        if r.status != "answered" or not r.cypher or r.evidence == "vector-memory":
            raise FeedbackConflict(f"only an answer computed by a Cypher query can be verified; this one is "
                                   f"{r.status!r} with evidence {r.evidence!r}")
        if not isinstance(plan_cache, PlanCache):
            raise FeedbackConflict("this service keeps no plan cache to verify plans into")
        entry = plan_cache.learn(r.question, r.isr or {}, d, r.cypher, {}, r, provenance="user")
        out.plans = [_describe(entry)] if entry is not None else []
        out.message = "Thanks: the plan behind this answer is verified and will be reused for this question."
        return out
    demoted: list[PlanEntry] = []
    if isinstance(plan_cache, PlanCache) and r.cypher:
        demoted += plan_cache.demote(e.id for e in plan_cache.with_cypher(d.name, r.cypher))
        # this question's own (question, Cypher) entry, demoted: a tombstone when the pipeline had not learned
        # it; it blocks every template from filling this question into this Cypher again
        isr = r.isr or {}
        mark = plan_cache.add(PlanEntry(question=r.question, cypher=r.cypher, domain=d.name,
                                        aspect=isr.get("aspect") or "general", isr=isr, answer=r.answer,
                                        kg_version=d.graph.version, provenance="user", demoted=True))
        if mark.id not in {e.id for e in demoted}:
            demoted.append(mark)
    out.plans = [_describe(e) for e in demoted]
    out.answer_forgotten = pipeline.forget_answer(r.question, d.name)
    n = len(demoted)
    out.message = (f"Thanks: {n} plan{'' if n == 1 else 's'} demoted and the answer forgotten; "
                   "the question will be answered afresh.")
    return out


def _stored_answer(pipeline, question: str, domain: str | None):
    """(domain, stored result dict) of the service's answer to ``question``, or FeedbackNotFound."""
    cache = pipeline.answer_cache
    if cache is None or not hasattr(cache, "peek"):
        raise FeedbackNotFound("this service keeps no answers, so it cannot tell which answer the feedback "
                               "is about")
    domains = pipeline.domains  # one snapshot: a reload swaps the dict, never mutates it
    routed = pipeline.cached_answer(question, None, peek=True) if domain is None else None
    if routed is not None and routed[0] in domains:  # the answer a routed question was given
        return domains[routed[0]], routed[1]
    for name in [domain] if domain else list(domains):
        d = domains.get(name)
        if d is None:
            continue
        hit = cache.peek(question, name, pipeline.answer_version(d.graph.version))
        if hit is not None:
            return d, hit
    where = f" in domain {domain!r}" if domain else ""
    raise FeedbackNotFound(f"no answer to this question is on record{where}: ask it first (answers are kept "
                           "until they are evicted or the graph is rebuilt)")


def _describe(e: PlanEntry) -> dict[str, Any]:
    return {"id": e.id, "question": e.question, "provenance": e.provenance, "demoted": e.demoted}


def _norm(cypher: str) -> str:
    return " ".join(cypher.split())
