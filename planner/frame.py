"""The compiler's intermediate form: what the reader reads a question into and the generator turns into Cypher.

Typed objects only, no behaviour: a :class:`Mention` (a span of the question linked to a graph value), a
:class:`Cond` (a property condition; its value may be an :class:`AggregateOf` or a :class:`ValueOf`), the
:class:`Frame` (target label, anchors, conditions, aggregation, ordering, limit) and the :class:`Compiled`
plan. :data:`Chooser` is the shape of the constrained choice
(an LLM picking one of a list) the generator may ask for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgqa.planner.outline import Outline
from kgqa.planner.query import Query

# (prompt, options) -> index of the chosen option
Chooser = Callable[[str, list[str]], int]


@dataclass
class Mention:
    """A span of the question naming a graph value: ``label.prop = value``, with the other readings."""

    start: int  # char offsets in the question
    end: int
    text: str
    label: str  # "" for a quoted literal that is no graph value
    prop: str
    value: Any
    score: float = 1.0
    alternatives: list[tuple[str, str, Any]] = field(default_factory=list)  # other (label, prop, value)


RANGE_OPS = frozenset({"<", ">", "<=", ">="})  # the operators of a condition that leaves the values open


@dataclass(frozen=True)
class AggregateOf:
    """A condition's value that is an aggregate: over every node (or edge) holding the property ("priced above
    the average price of all products", scope ``all``), over the rows the rest of the question matches
    ("born before the cast's average birth year", scope ``rows``), per node of a label the row reaches
    ("above the average price of products in their category", scope ``group``), or over the nodes its own
    phrase restricts ("above the average price of products in the Seafood category", scope ``own``: each
    ``(label, prop, value)`` of ``where`` holds on a node joined to them)."""

    fn: str  # avg
    scope: str = "rows"  # "rows" | "all" | "group" (per node of ``group``: "of products in their category") | "own"
    group: str | None = None
    where: tuple[tuple[str, str, Any], ...] = ()


@dataclass(frozen=True)
class ValueOf:
    """A condition's value that is another node's property: a named entity's ("released in the same year as
    The Matrix", ``anchor`` set: that node is matched on its own), or that of the row's node of ``label``
    ("released in the same year they were born", "shipped later than their required date")."""

    label: str
    prop: str
    anchor: Mention | None = None


@dataclass
class Cond:
    """A condition ``label.prop op value`` (``op`` may be ``IS NULL``/``IS NOT NULL`` with no value)."""

    label: str
    prop: str
    op: str
    value: Any
    rel: str | None = None  # set when the property lives on a relationship
    fold: bool = False  # compare case-insensitively (a string predicate written in another casing)
    fn: str | None = None  # a function of the property compared instead of the value: "size" (text length)


@dataclass
class Frame:
    """A question as read: what is asked, what it is anchored on, and how rows are filtered and shaped."""

    target: str | None = None
    target_prop: str | None = None  # a property of the anchor/target asked for ("when was X released")
    anchors: list[Mention] = field(default_factory=list)
    conds: list[Cond] = field(default_factory=list)
    agg: str | None = None  # count | avg | sum | min | max (over agg_label[.agg_prop])
    agg_label: str | None = None
    agg_prop: str | None = None
    group_prop: str | None = None  # group by a property of the target instead of the node
    per_target: bool | None = None  # an aggregate of another label per target node (None: when they differ)
    over_groups: str | None = None  # "avg": the average of the per-target figures ("average number of X per Y")
    having: tuple[str, float | AggregateOf] | None = None  # a bound on the grouped count: a number or the average
    having_per: str | None = None  # the bound or ranking holds per node of this label on the way ("orders with a
    # total value over 1000", "the customer who placed the order with the highest total value")
    order: str | None = None  # "agg" or a property of the target (or of ``order_label``)
    order_label: str | None = None  # another label whose property orders ("who directed the oldest movie")
    order_fn: str | None = None  # a function of the ordering property ("size": "the longest tagline")
    desc: bool = True
    limit: int | None = None
    unranked: bool = False  # "the top 5 X" with no measure: an answer only when no more than ``limit`` match
    rel_hints: list[str] = field(default_factory=list)
    rel_at: list[tuple[int, str]] = field(default_factory=list)  # (start, relationship) of relationship words
    agent_rels: list[str] = field(default_factory=list)  # self-relationships named by their actor's noun ("followers")
    exists: list[tuple[str, str, str]] = field(default_factory=list)  # (label, relationship, far label): such an
    # edge from the row's node of that label ("films directed by people who have also acted in a film")
    role_rels: list[tuple[int, str, str]] = field(default_factory=list)  # (start, relationship, label the noun
    # names) of a relationship named by a noun of one end ("actors": Person)
    rel_prop: tuple[str, str] | None = None  # a relationship's property asked for ("what rating did X give Y")
    negated: list[str] = field(default_factory=list)  # relationships or labels the question negates ("never")
    shown: list[str] = field(default_factory=list)  # labels returned before the target ("where were X born")
    shown_props: list[str] = field(default_factory=list)  # target properties asked to be shown ("the shipCity of")
    age: tuple[str, str, str] | None = None  # (label, year property, target's birth year): an age at that year
    age_cond: tuple[str, int] | None = None  # (op, years): a condition on the age ("lived to be 100 or older")
    connections: str | None = None  # "how is X connected to films": the far label ("" for any), every edge
    compare: tuple[str, str] | None = None  # yes/no: (property, op), the first anchor's value <op> the second's
    cycle: bool = False  # "the same movie", "also", "themselves": relationships named close on one node
    labels_mentioned: list[str] = field(default_factory=list)
    of_labels: list[str] = field(default_factory=list)  # labels named in "X of Y" ("the institutions of ...")
    derived: dict[tuple[str, str], str] = field(default_factory=dict)  # numbers the question defines: (owner,
    # name) -> arithmetic over the owner's properties ("the days between the order date and the shipped date")
    distinct: bool = True
    notes: list[str] = field(default_factory=list)
    question: str = ""
    exemplar_rels: dict[str, float] = field(default_factory=dict)  # relationship -> weight from cached plans
    linked: list[tuple[int, int]] = field(default_factory=list)  # spans of the linked entity mentions
    consumed: list[tuple[int, int]] = field(default_factory=list)  # spans of words a reader rule read


@dataclass
class Compiled:
    """A compiled plan: parameterized Cypher, its parameters, and the frame (the rules reader's) or query tree (the
    grammar reader's) it came from."""

    cypher: str
    params: dict[str, Any]
    frame: Frame | None
    score: float = 1.0
    description: str = ""  # which shape was generated: "selection", "aggregate", ...
    alternatives: list[Compiled] = field(default_factory=list)  # other readings of the same question
    choices: list[str] = field(default_factory=list)  # the schema names this reading chose where it had to
    query: Query | None = None  # the grammar reader's query tree the Cypher was written from (None: the rules')
    outline: Outline | None = None  # how its rows are made, for every step after compiling (set by the compiler)
