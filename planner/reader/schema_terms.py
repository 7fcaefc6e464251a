"""What a question's words name in one graph's schema, matched by word forms: labels, node and relationship
properties, relationship types.

Every schema name is split into words in any convention (``Ref_Paint_Shades``, ``receiver_bank_country``,
``postHasCreator``, ``VISITS3``) and matched against runs of question tokens by their forms: the word as
written, its noun and verb lemmas (lemminflect) and its singular (inflect), so "people" names ``Person``,
"signed" names ``SIGNED`` and "visit" names ``VISITS``. A run also matches a name written as one word
("club name" and ``clubname``). Longer runs win. The words a graph's annotations file gives
(``DomainSpec.words``) are matched the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from kgqa.planner.reader import cues
from kgqa.planner.reader.word_forms import (
    abbreviates,
    agent_nouns,
    forms,
    inflect_engine,
    past_tense,
    singular,
)
from kgqa.planner.schema_view import SchemaView
from kgqa.text import fold, name_words

MAX_RUN = 5  # tokens in the longest name matched
PREPOSITIONS = frozenset({"in", "of", "to", "by", "at", "with", "for", "on", "from"})
ABBREVIATED = frozenset({"first", "last", "middle"})  # words a column name shortens to their first letter
# endings that make another word of a name, not a longer form of it ("memberships" is no member)
SUFFIXES = frozenset({"s", "es", "ship", "ships", "ing", "ings", "ed", "er", "ers", "ment", "ments", "al", "ly", "ness",
                      "ity", "ation", "ations", "ion", "ions", "ist", "ists", "ism", "ful", "less", "able", "ance"})
COUNT_PREFIXES = frozenset({"no", "num", "nbr", "number", "cnt", "count"})  # "no_of_widgets", "num_widgets"
CODE_WORDS = frozenset({"code", "cd", "id"})  # a property's last word that people leave unsaid ("the product type")
VALUE_CAP = 5000  # distinct values the schema view indexes per text property (SchemaView._index_values)
# words of a name that say nothing of what it names: "Ref_Shades" is shades, "HAS_ARENA" an arena
# units a property's name ends with that a question leaves unsaid ("price" of Price_in_euro, "loss" of
# Loss_millions_USD, "revenue" of Revenue_in_Billion)
UNIT_WORDS = frozenset({"usd", "eur", "gbp", "dollar", "dollars", "euro", "euros", "million", "millions", "billion",
                        "billions", "thousand", "thousands", "feet", "foot", "ft", "meter", "meters", "metre", "metres",
                        "m", "km", "mile", "miles", "kg", "kilogram", "kilograms", "lb", "lbs", "pound", "pounds", "cm",
                        "mm", "mb", "mib", "g", "gb", "gib", "kb", "percent", "pct", "sec", "secs", "seconds", "minutes",
                        "mins", "hours", "hrs", "days", "years", "mph", "kmh"})
# last words too common in names to name one property alone (the "date" of one of two dated properties)
GENERIC_HEADS = frozenset({"name", "names", "date", "dates", "type", "types", "details", "detail", "description",
                           "year", "time", "status", "count", "number", "code", "id", "value", "text", "info"})
GLUED_HEADS = ("name", "title")  # a name's head glued after its owner's shortened name: bname of bank
GLUED_ENDS = (("no", "number"), ("num", "number"), ("nbr", "number"), ("id", "id"), ("cd", "code"))  # flno, custid
OWN_HEADS = frozenset({"status", "date", "year", "time"})  # said alone of a label's own "<its head> <word>" property
SAME_WORDS = {"sex": ("gender",), "gender": ("sex",)}  # name words that say the same thing
# one word for a name's words: "the birthdays" of Date_Of_Birth, dob
ONE_WORD = {("birth", "date"): "birthday", ("date", "of", "birth"): "birthday", ("dob",): "birthday",
            ("birth", "day"): "birthday", ("home", "town"): "hometown", ("zip", "code"): "zip"}
MEASURE_HEADS = frozenset({"score", "value"})  # said after a number's own name: "the snatch score" of Snatch
HEAD_FIRST = frozenset({"date", "amount", "time"})  # a name's head written first: Date_Booking_Made, Amount_Refund
LIGHT_VERBS = frozenset({"made", "done"})  # say no event of their own: Date_Order_Made is the order's date
# a word no name matches may still mean one label or property ("airplanes" of aircraft, "attendees" of
# Attendance): the cosine of its embedding to the name's words, and its lead over the next name's
NEAR_TERM_MIN, NEAR_TERM_MARGIN = 0.6, 0.1
NEAR_PROP_MIN = 0.7  # a property's, unless the word shares its name's first five letters ("attendees": Attendance)
NAME_NOISE = frozenset({"ref", "has", "of", "the", "tbl", "table", "info", "details", "data", "list", "lu", "dim",
                        "profile", "profiles", "record", "records", "all"})


@dataclass(frozen=True)
class Term:
    """One schema element a run of words names: a ``label`` (those of its nodes at one end of a relationship type
    when ``via`` says which: "the actors"), a ``prop`` (of ``owner``, a label or a relationship type: ``on_rel``) or
    a ``rel`` (``owner`` is the type)."""

    kind: str  # "label" | "prop" | "rel"
    owner: str
    prop: str | None = None
    on_rel: bool = False
    exact: bool = False  # the question writes the schema name itself ("VISITS3", "home_port")
    via: str | None = None  # a label's nodes as the ends of this relationship type ("the actors": of ACTED_IN)


class SchemaTerms:
    """The schema names of one graph, indexed by the forms of their words (module docstring)."""

    def __init__(self, view: SchemaView):
        self.view = view
        self.index: dict[str, set[Term]] = {}  # a key (joined forms of a name's words) -> terms
        self.exact: dict[str, set[Term]] = {}  # a schema name as written, lower case -> its terms
        self._label_words = {singular(name_words(lb)[-1]) for lb in view.nodes if name_words(lb)}
        # a form of the one word of a relationship's name besides its ends' and noise words -> (relationship, ends)
        self.verb_rels: dict[str, list[tuple[str, set[str]]]] = {}
        for rel, pairs in view.rels.items():
            ends = {lb for pair in pairs for lb in pair}
            said = {f for lb in ends for w in name_words(lb) for f in forms(w)}
            if len(rest := [w for w in name_words(rel) if w not in NAME_NOISE and w not in said]) == 1:
                for f in forms(rest[0]):
                    self.verb_rels.setdefault(f, []).append((rel, ends))
        self._name_words = {singular(w) for name in [*view.nodes, *view.rels] for w in name_words(name)} | {
            singular(w) for props in [*view.nodes.values(), *view.rel_props.values()] for p in props
            for w in name_words(p)}  # every word of the graph's names, singular
        self._heads: dict[str, list[str]] = {}  # the singular last word of a name (noise words off) -> those names
        for name in [*view.nodes, *view.rels]:
            if ws := [w for w in name_words(name) if w not in NAME_NOISE]:
                self._heads.setdefault(singular(ws[-1]), []).append(name)
        for label, props in view.nodes.items():
            self._add(label, Term("label", label))
            for prop in props:
                self._add(prop, Term("prop", label, prop), owner=label)
        for rel, props in view.rel_props.items():
            self._add(rel, Term("rel", rel))
            for prop in props:
                self._add(prop, Term("prop", rel, prop, on_rel=True), owner=rel)
        for rel in view.rels:
            if rel not in view.rel_props:
                self._add(rel, Term("rel", rel))
        self._agents()
        self._single = self._one_word_names()  # for shortened()
        self._tiny = [(p.lower(), Term("prop", label, p)) for label, props in view.nodes.items() for p in props
                      if 2 <= len(p) <= 3 and p.isalpha()]
        self._pairs = [(w[0], w[1], Term("prop", label, p)) for label, props in view.nodes.items() for p in props
                       if len(w := name_words(p)) == 2 and all(len(x) >= 3 and x.isalpha() for x in w)]
        self._glued = [(p.lower(), Term("prop", label, p)) for label, props in view.nodes.items() for p in props
                       if 4 <= len(p) <= 6 and p.isalpha() and len(name_words(p)) == 1]  # flno, custid
        self._counts: dict[tuple[str, str], int] = {}
        self._name_vectors: dict[str, object] = {}  # a name's words -> their embedding (a numpy row), once
        for hits in view.values.values():
            for lb, p, _ in hits:
                self._counts[(lb, p)] = self._counts.get((lb, p), 0) + 1
        # an annotations file's words for values ("economics": ``Prize.category=Economic Sciences``)
        self.value_words: dict[str, tuple[str, str, str]] = {}
        for word, target in view.spec.words.items():
            owner, _, rest = target.partition(".")
            prop, eq, value = rest.partition("=")
            if eq and prop in view.nodes.get(owner, {}) and " " not in word:
                self.value_words[word.lower()] = (owner, prop, value)
        # an annotations file's words as written (lower case) -> their terms; a key -> the terms only those words gave
        self.written: dict[str, set[Term]] = {}
        self._words_gave: dict[str, set[Term]] = {}
        for word, target in view.spec.words.items():  # an annotations file's words, as schema documentation
            term = _term_of(view, target)
            words = word.split()
            # a role noun as written ("reviewer"), not the stem it shares with its verb ("review")
            keys = {"".join(words[:-1]) + w for w in (words[-1], singular(words[-1]))} if term and term.via else \
                _keys(words)
            if term is not None:  # the word as written names its term as a schema name written out does
                self.written.setdefault(word.lower(), set()).add(replace(term, exact=True))
            for key in keys if term is not None else ():
                if term not in self.index.get(key, ()):
                    self._words_gave.setdefault(key, set()).add(term)
                self.index.setdefault(key, set()).add(term)

    def _agents(self) -> None:
        """The nouns of who does what a relationship's past-tense verb says, for the nodes at its start: "the
        actors" of ACTED_IN from Person to Movie, "the directors" of DIRECTED (:attr:`Term.via`); not where a schema
        name says the noun already, nor for a relationship of a label to itself."""
        for rel, pairs in self.view.rels.items():
            words = [w for w in name_words(rel) if w not in PREPOSITIONS]
            if len(words) != 1 or len(pairs) != 1 or pairs[0][0] == pairs[0][1] or not past_tense(words[0]):
                continue
            for noun in agent_nouns(words[0]):
                for key in (noun, inflect_engine().plural_noun(noun)):
                    if not self.index.get(key):
                        self.index.setdefault(key, set()).add(Term("label", pairs[0][0], via=rel))

    def _add(self, name: str, term: Term, owner: str | None = None) -> None:
        self.exact.setdefault(name.lower(), set()).add(Term(term.kind, term.owner, term.prop, term.on_rel, True))
        words = name_words(name)
        variants = [words, [w for w in words if w not in NAME_NOISE] or words]
        if term.kind == "label" and variants[1] != words and any(
                lb != name and [singular(w) for w in name_words(lb)] == [singular(w) for w in variants[1]] or
                lb != name and [singular(w) for w in name_words(self.view.spec.primary_keys.get(lb) or "")] ==
                [singular(w) for w in variants[1]] for lb in self.view.nodes):
            variants[1] = words  # not "show" of show_record beside show: another label's name, or its key's ("allergy")
        key = name_words(self.view.spec.primary_keys.get(name) or "") if term.kind == "label" else []
        if key and len(key) < len(words) and [singular(w) for w in words[:len(key)]] == [singular(w) for w in key] \
                and key[-1] not in CODE_WORDS:
            variants.append(key)  # Pet_Kind keyed by Pet: "the pets" are its nodes
        if words and words[-1].rstrip("0123456789") != words[-1] and words[-1].rstrip("0123456789").isalpha():
            variants.append(words[:-1] + [words[-1].rstrip("0123456789")])  # VISITS3: one of the "visits"
        for k, w in enumerate(words):
            variants += [words[:k] + [other] + words[k + 1:] for other in SAME_WORDS.get(w, ())]  # "gender" of Sex
        for k in range(len(words)):
            variants += [words[:k] + [one] + words[k + len(run):] for run, one in ONE_WORD.items()
                         if tuple(words[k:k + len(run)]) == run]  # "the customer birthday" of customer_birth_date
        if term.kind == "prop" and len(words) > 1 and words[-1] in UNIT_WORDS:
            k = len(words)
            while k > 1 and (words[k - 1] in UNIT_WORDS or words[k - 1] == "in"):
                k -= 1
            variants.append(words[:k])  # "Price_in_euro": the price
        if term.kind == "prop" and len(words) == 3 and words[1] in ("in", "on") and words[2] not in UNIT_WORDS:
            variants.append(words[1:])  # "in stock" of unitsInStock, "on order" of unitsOnOrder: their state
        if term.kind == "rel" and len(words) > 1 and (words[0] in PREPOSITIONS or words[-1] in PREPOSITIONS):
            variants.append([w for w in words if w not in PREPOSITIONS] or words)  # "enrolled_in": enrolled
        if term.kind == "rel" and len(words) > 1:  # "wroteBook" from Author to Book: "wrote"
            pairs = self.view.rels.get(name, [])
            ends = {singular(w) for pair in pairs for lb in pair for w in name_words(lb)}
            rest = [w for w in words if singular(w) not in ends]
            if len(rest) == 1 and len(rest) < len(words) and past_tense(rest[0]) and all(a != b for a, b in pairs):
                variants.append(rest)  # not "plays" of Plays_Cards, "friend" of a Person-to-Person link: a past tense alone
            elif len(rest) == 1 and len(rest) < len(words) and pairs and all(a == b for a, b in pairs) and \
                    rest[0].isalpha() and not past_tense(rest[0]):
                variants.append(rest)  # "the friends" of a UserFriend link: its edges, the far end
        if term.kind == "label" and len(words) > 1:
            # "Hotel_amenity", "Pet_Type": a label named after another label is the rest of its words
            others = {tuple(singular(w) for w in name_words(lb)) for lb in self.view.nodes if lb != name}
            for k in range(1, len(words)):
                if tuple(singular(w) for w in words[:k]) in others:  # Report_Sections beside Reports
                    rest = words[k + 1:] if words[k] in PREPOSITIONS and k + 1 < len(words) else words[k:]
                    if tuple(singular(w) for w in rest) in others:
                        continue  # not "games" of Players_in_Games beside Games, nor "region" of Shop_Region beside Region
                    variants.append(rest)  # "Orders_with_refunds": refunds
        if term.kind == "label" and (head := self._head_only(name, variants[1])):
            variants.append(head)  # "the lanes" of Shipping_Lanes, "fairs" of Farm_Fairs: its one head noun
        if term.kind == "label" and len(variants[1]) >= 3 and (tail := self._tail_only(name, variants[1][-2:])):
            variants.append(tail)  # "the repair shops" of Auto_Repair_Shops: its last two words
        if owner is not None and term.kind == "prop":
            # "PUP_MARK" of PUPIL, "wrk_fname" of WORKER: a leading abbreviation of the owner's name is no word
            own = name_words(owner)
            trimmed = words[1:] if len(words) > 1 and own and abbreviates(words[0], own[0]) else None
            if trimmed:
                variants.append(trimmed)
            glued = next((head for head in GLUED_HEADS if len(words) == 1 and words[0].endswith(head) and own and (
                abbreviates(words[0][:-len(head)], own[0]) or words[0][:-len(head)] == own[0])), None)
            if glued:
                variants.append([glued])  # "bname" of bank, "dname" of Department: its name
            if len(own) > 1 and len(words) == 2 and singular(words[0]) == singular(own[-1]) and \
                    words[1] in OWN_HEADS:
                variants.append(words[1:])  # "the status" of sale_status of Shop_Sales: its own
            if len(rest := _own_words_off(words, owner)) < len(words):
                variants.append(rest)  # "singer_name" of singer, "settlement_amount" of Settlements
                if len(rest) == 2 and rest[-1] in CODE_WORDS and rest[-1] != "id" and rest[0].isalpha() and \
                        singular(rest[0]) not in self._label_words:
                    variants.append(rest[:1])  # "the type of the form": its one type code
            if prop_is_key(self.view, owner, name) and name.lower().endswith("id") and words != ["id"]:
                variants.append(["id"])  # "aircraft with id 12": the key "aid"
            labels = {tuple(name_words(lb)) for lb in self.view.nodes}
            if len(words) == 2 and words[1] not in CODE_WORDS | UNIT_WORDS | GENERIC_HEADS and words[1].isalpha() \
                    and len(words[1]) > 3 and singular(words[1]) not in self._label_words \
                    and not any(name_words(p)[-1:] == words[1:] for p in self.view.nodes.get(owner, {}) if p != name) \
                    and not any(singular(name_words(lb)[0]) == singular(words[0]) and name in props
                                for lb, props in self.view.nodes.items() if lb != owner):
                # "the capacity of rooms": guest_capacity, its owner's one capacity (not Item_Price of Offers
                # beside Items, whose price it is)
                variants.append(words[1:])
            if len(words) > 1 and words[0] in HEAD_FIRST:
                # "Date_Booking_Made", "Amount_Refund": "the booking date", "the refund amount"
                rest = [w for w in words[1:] if not past_tense(w) and w not in PREPOSITIONS] or words[1:]
                done = [w for w in words[1:] if past_tense(w) and w not in LIGHT_VERBS]
                if not (done and rest != words[1:] and self._done_sibling(owner, name, words[0], rest)):
                    variants.append(rest + words[:1])  # not "the order date" of Date_Order_Shipped beside _Made
                variants += [[noun, words[0]] for w in done for noun in self._nouns_of(w)]  # "the settlement date"
                if (bare := [w for w in rest if singular(w) not in {singular(x) for x in own}]) and bare != rest:
                    variants.append(bare + words[:1])  # date_visit_end of Visits: "the end date"
            if words[-1] in CODE_WORDS and tuple(words[:-1]) not in labels and (len(words) > 2 or len(words) == 2 and (
                    words[-1] != "id" and singular(words[0]) not in self._label_words)):
                variants.append(words[:-1])  # "tool type" of tool_type_code, not "roller coaster" of its id
            if len(words) == 2 and words[-1] == "count" and tuple(words[:-1]) not in labels:
                variants.append(words[:-1])  # "how many pages" of page_count (not a seat_number, which numbers a seat)
            if len(words) > 1 and words[-1] in ("id", "no", "num", "nbr") and words[:-1] != own and not any(
                    name_words(p) == words[:-1] + ["number"] for p in self.view.nodes.get(owner, {})):
                variants.append(words[:-1] + ["number"])  # "the widget number" of widget_id
            if rest[-2:] == ["email", "address"]:
                variants.append(rest[:-1])  # "the email" of Buyer_Email_Address
            if words[-1] == "phone":
                variants.append(words + ["number"])  # "the phone number" of vendor_phone
            if len(words) == 2 and words[1] == "by" and past_tense(words[0]):
                variants += [[noun] for noun in agent_nouns(words[0])]  # "the makers" of Made_by
            rest = words[2:] if words[1:2] == ["of"] else words[1:]
            if len(words) > 1 and words[0] in COUNT_PREFIXES and rest and self.view.is_number(owner, name):
                variants.append(["number", *rest])  # "the number of widgets" of no_of_widgets, num_widgets
            if words[-1] not in MEASURE_HEADS | UNIT_WORDS and self.view.is_number(owner, name) and \
                    not prop_is_key(self.view, owner, name) and words[-1] not in CODE_WORDS | COUNT_PREFIXES:
                variants += [words + [head] for head in MEASURE_HEADS]  # "the total score" of Total
            if len(words) == 2 and words[0] == "total" and self.view.is_number(owner, name):
                variants.append(["total", "number", "of", words[1]])  # "the total number of pupils": Total_Pupils
        for v in variants:
            keys = _keys(v)
            if term.kind != "rel" and len(v) > 1:
                for first in forms(v[0]) - {v[0]}:  # Days_in_Office: "the day in office"; a "billing date": "bill date"
                    keys |= _keys([first, *v[1:]])
            for key in keys:
                self.index.setdefault(key, set()).add(term)

    def _nouns_of(self, verb: str) -> list[str]:
        """The nouns of a past verb the graph's own names use ("settled": settlement, "claimed": claim, "paid":
        payment), else none."""
        from lemminflect import getLemma

        out = []
        for lemma in getLemma(verb, upos="VERB"):
            for noun in (lemma + "ment", lemma + "ion", lemma[:-1] + "ion", lemma):
                if noun not in out and noun != verb and singular(noun) in self._name_words:
                    out.append(noun)
        return out

    def _done_sibling(self, owner: str, name: str, head: str, rest: list[str]) -> bool:
        """Whether another property of ``owner`` named head first has the same other words and no verb, or a light
        one (Date_Order_Made beside Date_Order_Shipped): "the order date" is that one."""
        for p in self.view.nodes.get(owner, self.view.rel_props.get(owner, {})):
            w = name_words(p)
            if p != name and w[:1] == [head] and [x for x in w[1:] if not past_tense(x)] == rest and \
                    all(x in LIGHT_VERBS for x in w[1:] if past_tense(x)):
                return True
        return False

    def _head_only(self, label: str, words: list[str]) -> list[str] | None:
        """The last word of a label's name of several words, where no other label's or relationship's name ends with
        it (nor is it) and it is a noun of its own (not a code, unit or generic word), else None."""
        head = singular(words[-1]) if words else ""
        if len(words) < 2 or not head.isalpha() or len(head) < 4 or \
                {head, words[-1]} & (GENERIC_HEADS | CODE_WORDS | UNIT_WORDS | PREPOSITIONS):
            return None
        ends = [name for name in self._heads.get(head, []) if not self._points_to(name, label)]
        return [words[-1]] if len(ends) == 1 else None

    def _tail_only(self, label: str, tail: list[str]) -> list[str] | None:
        """The last two words of a label's name, where no other label's name ends with them and the last is a
        noun of its own (not a code, unit or generic word), else None."""
        if not all(w.isalpha() for w in tail) or {singular(tail[-1]), tail[-1]} & (GENERIC_HEADS | CODE_WORDS |
                                                                                 UNIT_WORDS | PREPOSITIONS):
            return None
        own = [singular(w) for w in tail]
        if any(lb != label and [singular(w) for w in name_words(lb)][-2:] == own for lb in self.view.nodes):
            return None
        return tail

    def _points_to(self, rel: str, label: str) -> bool:
        """Whether ``rel`` is a relationship named "has" + a word that leads to ``label`` (HAS_LANE to
        Shipping_Lanes): it names the label, not a thing of its own."""
        return name_words(rel)[:1] == ["has"] and any(dst == label for _, dst in self.view.rels.get(rel, []))

    def holds(self, owner: str, prop: str | None, value) -> bool:
        """Whether a node property may hold ``value``: True unless it is text whose values were all indexed
        (fewer than the index's cap) and ``value`` is none of them."""
        if not isinstance(value, str) or prop is None or self.view.prop_type(owner, prop) != "STRING":
            return True
        if self._counts.get((owner, prop), 0) >= VALUE_CAP:
            return True
        return any(lb == owner and p == prop for lb, p, _ in self.view.values.get(fold(value), []))

    def spelled(self, owner: str, prop: str, value: str) -> str:
        """Returns ``value`` as the node property writes it ('GREENLAND' of a callsign is 'Greenland' of a country),
        where it holds one spelling of it; else ``value``."""
        found = {v for lb, p, v in self.view.values.get(fold(value), []) if lb == owner and p == prop}
        return found.pop() if len(found) == 1 else value

    def match(self, words: list[str]) -> list[tuple[int, int, set[Term]]]:
        """Returns (start, end, terms) for runs of ``words`` (the question's tokens, lower case; "" for a token
        that names nothing, such as a quoted value) that name schema elements: longest runs first, never
        overlapping, in textual order."""
        found: list[tuple[int, int, set[Term]]] = []
        taken = [False] * len(words)
        for size in range(MAX_RUN, 0, -1):
            for i in range(0, len(words) - size + 1):
                if any(taken[i:i + size]) or not all(words[i:i + size]):
                    continue
                terms = self.lookup(words[i:i + size])
                if terms and not self._splits_label(words, i, size):
                    found.append((i, i + size, terms))
                    for k in range(i, i + size):
                        taken[k] = True
        return sorted(found, key=lambda t: t[0])

    def _splits_label(self, words: list[str], i: int, size: int) -> bool:
        """Whether the run ``words[i:i + size]``, read across "of" ("ids of tourist" as tourist_id), ends inside a
        label's name that goes on after it ("the ids of tourist attractions"), or begins inside a property's name said
        before it ("the email address of customer"): those names are read, not the run."""
        if "of" not in words[i + 1:i + size - 1]:
            return False
        if i > 0 and words[i - 1] and any(t.kind == "prop" for t in self.lookup(words[i - 1:i + 1])):
            return True  # "the email address of customer": the run before "of" begins inside a name said before it
        tail = words[i + words[i:i + size].index("of") + 1:i + size]
        return any(len(words) >= i + size + extra and all(words[i + size:i + size + extra]) and any(
            t.kind == "label" for t in self.lookup(tail + words[i + size:i + size + extra])) for extra in (1, 2))

    def numbered(self, word: str, digits: str) -> set[Term]:
        """Returns the terms whose name is ``word`` and then the number ``digits`` ("street 2": ``street_2``, "lap 400":
        ``lap_400``), for a number said after a word; empty for a number that is no part of a name."""
        if not digits.isdigit() or not word.isalpha():
            return set()
        return {t for f in forms(word) for t in self.index.get(f + digits, set())
                if t.prop is not None and name_words(t.prop)[-1:] == [digits] or
                t.prop is None and name_words(t.owner)[-1:] == [digits]}

    def shortened(self, word: str) -> set[Term]:
        """Returns the terms whose whole name is one word of four letters or more that ``word`` begins with and
        goes on past ("specifications": ``spec``, "committees": ``committ``), for a word that names nothing; the
        labels named by one word that ends with it after three letters or more ("rooms": ``classroom``); and the
        properties of two or three letters that abbreviate it."""
        w = word.lower()
        if not w.isalpha():
            return set()
        found = {t for name, t in self._single if len(w) >= len(name) + 2 and w.startswith(name) and
                 w[len(name):] not in SUFFIXES}
        one = singular(w)
        found |= {t for name, t in self._single if len(one) >= 5 and name.startswith(one) and
                  name[len(one):] in ("ality", "ity", "hood")}  # "the nations": Nationality
        if len(one) >= 4 and one not in GENERIC_HEADS:
            found |= {t for name, t in self._single if t.kind == "label" and len(name) >= len(one) + 3 and
                      name.endswith(one)}  # "the rooms": the label classroom, a word glued before it
        # and a property named by three letters that start the word ("enrollment": enr), or by two consonants in it
        # in order ("hours": HS)
        return found | {t for name, t in self._tiny if len(w) >= 5 and (
            len(name) == 3 and w.startswith(name) and len(w) >= 6 or
            len(name) == 2 and not set(name) & set("aeiouy") and abbreviates(name, w))}

    def _one_word_names(self) -> list[tuple[str, Term]]:
        """Returns (word, term) for every schema name that is one word of four letters or more."""
        out = []
        for label, props in self.view.nodes.items():
            out.append((label, Term("label", label)))
            out += [(p, Term("prop", label, p)) for p in props]
        for rel in self.view.rels:
            out.append((rel, Term("rel", rel)))
            out += [(p, Term("prop", rel, p, on_rel=True)) for p in self.view.rel_props.get(rel, {})]
        return [(words[0], t) for name, t in out if len(words := _own_words_off(
            [w for w in name_words(name) if w not in NAME_NOISE], t.owner if t.kind == "prop" else None)) == 1
                and len(words[0]) >= 4 and words[0].isalpha()]

    def names_word(self, word: str) -> bool:
        """Whether ``word`` (its singular) is a word of any label, relationship or property name."""
        return singular(word.lower()) in self._name_words

    def near_label(self, word: str) -> str | None:
        """Returns the one label whose name words (noise words off) embed near ``word`` (cosine >=
        NEAR_TERM_MIN, ahead of every other label by NEAR_TERM_MARGIN), for a word that names nothing; else None."""
        found = self._nearest(word, [(lb, Term("label", lb)) for lb in self.view.nodes])
        return next(iter(found)).owner if found else None

    def near_props(self, word: str, labels: set[str]) -> set[Term]:
        """Returns the properties of ``labels`` (of every label, if none) whose one name embeds nearest ``word``
        ("altitude" of elevation), as :meth:`near_label` finds a label but nearer (NEAR_PROP_MIN) unless a word
        of the name begins as ``word`` does ("attendees" of Attendance); else none."""
        props = [(p, Term("prop", lb, p)) for lb in sorted(labels or self.view.nodes) for p in self.view.nodes[lb]]
        return self._nearest(word, props, NEAR_PROP_MIN) or {
            t for t in self._nearest(word, props) if len(word) >= 5 and any(w[:5] == word[:5] for w in name_words(t.prop))}

    def _nearest(self, word: str, named: list[tuple[str, Term]], least: float = 0.0) -> set[Term]:
        """The terms of the one name (noise words off) among ``named`` that ``word`` embeds near (cosine >=
        NEAR_TERM_MIN, and >= ``least``) and nearer than any other name by NEAR_TERM_MARGIN; else none."""
        from kgqa.kg.embed import embed

        texts: dict[str, set[Term]] = {}
        for name, term in named:
            texts.setdefault(" ".join([w for w in name_words(name) if w not in NAME_NOISE] or name_words(name)),
                             set()).add(term)
        if not texts:
            return set()
        names = sorted(texts)
        missing = [n for n in names if n not in self._name_vectors]
        if missing:
            self._name_vectors.update(zip(missing, embed(missing)))
        vector = embed([word])[0]
        sims = sorted(((float(vector @ self._name_vectors[n]), n) for n in names), reverse=True)
        best, second = sims[0][0], sims[1][0] if len(sims) > 1 else 0.0
        return texts[sims[0][1]] if best >= max(least, NEAR_TERM_MIN) and best - second >= NEAR_TERM_MARGIN else set()

    def lookup(self, run: list[str]) -> set[Term]:
        """Returns the terms a run of words names (the schema name as written first: "VISITS3"); two words that
        name nothing, the property whose two name words begin them ("employee salary": emp_sal) or whose second ends
        with the second ("post code": post_zipcode), unless the first is an aggregate ("the total points" is no
        tot_pts)."""
        out: set[Term] = set(self.exact.get(run[0], ())) if len(run) == 1 else set()
        if any(len(w) < 2 or not any(c.isalpha() for c in w) for w in run):
            return out
        if len(run) >= 4 and run[1] == "of" and any(
                t.kind == "label" for t in self.lookup(list(run[3:] if run[2] == "the" else run[2:]))):
            return out  # "the code of the site": the location's code, not one name Site_Code
        said = {(t.kind, t.owner, t.prop) for t in out}
        # a word an annotations file gives as written names its own terms, not another annotated word's of one stem
        # ("shared" the relationship, "share" a property of it)
        written = self.written.get(" ".join(run), set())
        out |= {t for t in written if (t.kind, t.owner, t.prop) not in said}
        said |= {(t.kind, t.owner, t.prop) for t in written}
        for key in _run_keys(tuple(run)):
            out |= {t for t in self.index.get(key, set()) if (t.kind, t.owner, t.prop) not in said and not (
                written and t in self._words_gave.get(key, ()))}
        if not out and len(run) == 2 and all(w.isalpha() for w in run) and run[0] not in cues.AGGREGATES:
            out = {t for a, b, t in self._pairs if run[0].startswith(a) and run[1].startswith(b) and
                   (a, b) != (run[0], run[1]) or run[0] == a and len(run[1]) >= 4 and len(b) > len(run[1]) + 2 and
                   b.endswith(run[1])}  # "post code": post_zipcode
        if not out and len(run) == 2 and run[0].isalpha():
            out = {t for p, t in self._glued for end, word in GLUED_ENDS
                   if word == singular(run[1]) and p.endswith(end) and abbreviates(p[:-len(end)], run[0])}  # flno
        return out


def prop_is_key(view: SchemaView, owner: str, prop: str) -> bool:
    """Whether ``prop`` is the primary key of node label ``owner``."""
    return owner in view.nodes and view.spec.primary_keys.get(owner) == prop


def count_prop(view: SchemaView, label: str, counted: str) -> str | None:
    """The one number property of ``label`` that holds how many ``counted`` nodes it has, named so
    (Number_of_guests, num_guests, guest_count), else None."""
    want = [singular(w) for w in name_words(counted) if w not in NAME_NOISE]
    found = []
    for prop in view.nodes.get(label, {}):
        words = name_words(prop)
        if not view.is_number(label, prop) or len(words) < 2:
            continue
        if words[0] in COUNT_PREFIXES:
            rest = words[2:] if words[1:2] == ["of"] else words[1:]
        elif words[-1] in ("count", "number"):
            rest = words[:-1]
        else:
            continue
        if rest and [singular(w) for w in rest] == want:
            found.append(prop)
    return found[0] if len(found) == 1 else None


def _own_words_off(words: list[str], owner: str | None) -> list[str]:
    """A property's name words without its owner's name written first (TeamDesc of Team: "desc") or last after "of"
    (weight_of_parcel of Parcels: "weight"), the owner's leading noise words aside (Site_Name of Ref_Sites:
    "name"); no owner: all."""
    own = [singular(w) for w in name_words(owner)] if owner else []
    while len(own) > 1 and own[0] in NAME_NOISE:
        own = own[1:]
    if own and len(words) > len(own) + 1 and words[-len(own) - 1] == "of" and \
            [singular(w) for w in words[-len(own):]] == own:
        return words[:-len(own) - 1]  # weight_of_parcel of Parcels: "weight"
    return words[len(own):] if own and len(words) > len(own) and [singular(w) for w in words[:len(own)]] == own \
        else words


def _keys(words: list[str]) -> set[str]:
    """Returns the index keys of a name's words: joined, with each form of the last word."""
    if not words:
        return set()
    head = "".join(words[:-1])
    return {head + f for f in forms(words[-1])}


@lru_cache(maxsize=65536)
def _run_keys(run: tuple[str, ...]) -> frozenset[str]:
    """Returns the keys a run of question words may match: joined, with each form of the last word and of the
    first ("visited", "visiting": visit)."""
    head = "".join(run[:-1])
    keys = {head + f for f in forms(run[-1])}
    if len(run) == 1:
        return frozenset(keys)
    if len(run) == 2 and run[0] in ABBREVIATED:  # "first name": fname, "last name": lname
        keys |= {run[0][0] + f for f in forms(run[1])}
    if len(run) == 3 and run[1] == "in" and forms(run[2]) & UNIT_WORDS:  # "width in feet": width_feet
        keys |= {run[0] + f for f in forms(run[2])}
    if len(run) == 3 and run[1] == "of":  # "year of joining": join_year; "date of launch": launch_date
        keys |= {run[0] + f for f in forms(run[2])}
        if run[0] not in ("number", "count", "numbers"):  # "the number of people" is no Person_ID
            keys |= {run[2] + f for f in forms(run[0])}
            if run[2].endswith("ing"):  # "year of founding": Found_Year
                keys |= {v + f for v in forms(run[2]) - {run[2]} for f in forms(run[0])}
    if 4 <= len(run) <= 5 and run[1] == "of" and run[0] not in ("number", "count", "numbers"):
        tail = run[3:] if run[2] == "the" else run[2:]  # "the description of the fund kind": Fund_Kind_Description
        if len(tail) <= 2:
            keys |= {"".join(tail) + f for f in forms(run[0])}
    return frozenset(keys | {f + "".join(run[1:]) for f in forms(run[0])})


def _term_of(view: SchemaView, target: str) -> Term | None:
    """Returns the term an annotations file's target names (``Label``, ``Label.prop``, ``rel:TYPE``, and
    ``rel:TYPE>Label``: the label's nodes at that end of the type, "the actors")."""
    if target.startswith("rel:"):
        rel, _, end = target[4:].partition(">")
        if rel not in view.rels:
            return None
        if end and any(end in pair for pair in view.rels[rel]):
            return Term("label", end, via=rel)
        return Term("rel", rel)
    if "=" in target:
        return None
    if "." in target:
        owner, prop = target.split(".", 1)
        if prop in view.nodes.get(owner, {}):
            return Term("prop", owner, prop)
        if prop in view.rel_props.get(owner, {}):
            return Term("prop", owner, prop, on_rel=True)
        return None
    return Term("label", target) if target in view.nodes else None
