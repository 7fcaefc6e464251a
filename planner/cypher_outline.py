"""The :class:`~kgqa.planner.outline.Outline` of Cypher that no query tree wrote: the rules generator's (until
it goes), a language model's, a plan-cache template's. The only module that reads Cypher text back; plans
with a tree are outlined from it (:func:`kgqa.planner.outline.of_query`)."""

from __future__ import annotations

import re

from kgqa.planner.outline import Outline

_REL_TYPE = re.compile(r"\[\w*:`?(\w+)`?")
_ORDERED = re.compile(r"\bORDER\s+BY\b", re.I)
# rows ranked by one key and cut by a LIMIT at the end ("ORDER BY value DESC, country LIMIT 3")
_RANKED = re.compile(r"\bORDER\s+BY\s+(?P<key>[^\s,]+)(?:\s+(?:ASC|DESC))?(?:\s*,[^()]*?)?"
                     r"\s+(?P<limit>LIMIT\s+(?P<n>\d+))\s*$", re.I)
_LIST = re.compile(r"collect\((?!DISTINCT\b)[^()]+\)", re.I)  # a list of evidence, returned under this name
_LITERAL = r"(?:\$\w+|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|true|false)"
# a property set equal to one value (``p.discontinued = true``, ``CAST(o.shipVia AS DOUBLE) = 1``)
_FIXED = re.compile(rf"(?<![\w.`])(\w+)\.(\w+)(?:\s+AS\s+\w+\))?\s*=\s*{_LITERAL}(?![\w.])")
# the rules generator's form for the group tied at the top of a count of distinct nodes ("Which supplier supplies
# the most products?": "... count(DISTINCT p) AS value WHERE value = top RETURN companyName, value")
_TOP_COUNT = re.compile(r"\bcount\(DISTINCT (?P<var>\w+)\) AS value WHERE value = top RETURN \w+, value$")


def of_cypher(cypher: str, **known) -> Outline:
    """Returns the outline of ``cypher``'s rows; ``known``: the :class:`Outline` fields its writer knows (the
    label asked for, the limit asked, whether it is grounded), which the text does not say."""
    ranked = _RANKED.search(cypher)
    top = _TOP_COUNT.search(cypher.strip())
    counted = top and re.search(rf"\({top.group('var')}:`?(\w+)`?\)", cypher)
    read = {"ordered": bool(_ORDERED.search(cypher)),
            "cut": (ranked.group("key").strip("`"), int(ranked.group("n"))) if ranked else None,
            "lists": frozenset(m.group(0).casefold() for m in _LIST.finditer(cypher)),
            "fixed": frozenset((f"{m.group(1)}.{m.group(2)}", m.group(2)) for m in _FIXED.finditer(cypher)),
            "counted": counted.group(1) if counted else None,
            "rels": frozenset(_REL_TYPE.findall(cypher))}
    return Outline(**(read | known))


def past_cut(cypher: str, skip: int, bound: int) -> str:
    """Returns ``cypher``, a ranking cut by a final LIMIT (:attr:`Outline.cut`), giving the ``bound`` rows past its
    first ``skip`` instead."""
    m = _RANKED.search(cypher)
    return f"{cypher[:m.start('limit')]}SKIP {skip} LIMIT {bound}"
