"""The compiler's words: the domain vocabulary, the word tables the reader matches, and its stop words.

- a graph's own words come from its spec (``DomainSpec.words``, from its annotations file): words people
  use for its labels, properties and relationships. This is schema documentation, not answers: it says
  that "film" means ``Movie`` and "expensive" speaks of ``Product.unitPrice``. Everything else is matched
  from the schema's own names in any convention (camelCase, snake_case, UPPER_CASE, plural forms) and
  the words derived from them (:func:`schema_words`). Targets: ``"Label"``, ``"Label.prop"``,
  ``"rel:TYPE"`` (optionally ``"rel:TYPE>Label"`` to also imply the label at the far end, as "director"
  implies a Person along DIRECTED), or ``"Label.prop=value"`` for a word that names a value.
- :data:`NUMBER_WORDS`, :data:`NUMBER`, :data:`YEAR`, :data:`COMPARATORS`: how numbers, years and
  comparisons are written.
- :data:`STOP` (the shared :data:`kgqa.text.STOPWORDS` and the compiler's own additions) and
  :data:`FILLER`: words that carry no condition.
- :class:`Lexicon`: what a question's words name in one graph: schema targets (:meth:`Lexicon.scan`),
  property values (:meth:`Lexicon.value_mentions`), or nothing (:meth:`Lexicon.unexplained`).
"""

from __future__ import annotations

import re

from kgqa.planner.frame import Frame, Mention
from kgqa.planner.reader.cues import BIRTH_WORDS, DEATH_WORDS, MULTIPLIERS, TIME_CUES
from kgqa.planner.schema_view import SchemaView, split_camel
from kgqa.text import STOPWORDS, fold, name_words

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "twenty": 20}
YEAR = r"(?:18|19|20)\d\d"
NUMBER = r"(?:\$?\d+(?:\.\d+)?|zero|one|two|three|four|five|six|seven|eight|nine|ten|twenty)"


def number_value(token: str) -> float | int:
    """Returns the value of a :data:`NUMBER` token: "$12.5" -> 12.5, "twenty" -> 20, "7" -> 7."""
    token = token.lstrip("$").lower()
    if token in NUMBER_WORDS:
        return NUMBER_WORDS[token]
    return float(token) if "." in token else int(token)


COMPARATORS = [
    (r"(?:more than|greater than|higher than|larger than|above|over|exceeding|exceeds|in excess of)", ">"),
    (r"(?:less than|fewer than|lower than|smaller than|below|under)", "<"),
    (r"(?:at least|a minimum of|minimum of|no less than|or more)", ">="),
    (r"(?:at most|a maximum of|maximum of|no more than|or less|or fewer)", "<="),
    (r"(?:equal to|equals|exactly|of|is|=)", "="),
]

# the compiler's stop words: the shared list and the question words it also reads past
STOP = STOPWORDS | {"as", "get", "had", "has", "have", "identify", "many", "much", "than", "their", "there"}
# pronouns point back at what the question already named
PRONOUNS = frozenset("""he him his she her hers they them their theirs themselves himself herself itself someone
anyone anybody somebody everyone everybody""".split())

# words that ask, count or point at the data without constraining it ("List all products we sell")
FILLER = set("we our us you your i my sell sells sold carry stock have has database dataset data graph known "
             "every each ever exist exists existing available different distinct unique names number total "
             "count counts can could would should see want need like know about full entire whole complete "
             "currently recorded registered stored kept listed present overall altogether various kinds types "
             "type kind so far are there collection catalog catalogue".split())


AUXILIARIES = frozenset({"has", "have", "had", "is", "was", "are", "were", "be", "been"})
PREPOSITIONS = frozenset({"in", "by", "of", "to", "at", "with", "from", "for", "on", "into", "as", "via"})
IRREGULAR_AGENTS = {"wrote": "writer", "written": "writer", "won": "winner", "made": "maker", "sold": "seller",
                    "bought": "buyer", "taught": "teacher", "led": "leader", "drew": "drawer", "built": "builder",
                    "sang": "singer", "ran": "runner", "held": "holder", "owned": "owner", "founded": "founder"}
IRREGULAR_BASES = {"wrote": "write", "written": "write", "won": "win", "made": "make", "sold": "sell", "bought": "buy",
                   "taught": "teach", "led": "lead", "drew": "draw", "built": "build", "sang": "sing", "ran": "run",
                   "held": "hold", "read": "read", "gave": "give", "took": "take"}


IRREGULAR_PLURALS = {"person": "people", "child": "children", "man": "men", "woman": "women"}  # said in answers


def verb_property(view: SchemaView, low: str, s: int, prop: str) -> tuple[str, str] | None:
    """Returns the one (label, property) whose name is the verb right before position ``s`` of ``low`` and then
    ``prop``'s words ("shipped cities" -> Order.shipCity), else None."""
    verb = re.search(r"\b([a-z]{3,})\s+$", low[:s])
    if not verb:
        return None
    w = verb.group(1)
    stems = {w, w[:-2] if w.endswith("ed") else w, w[:-3] if w.endswith("ing") else w}
    stems |= {x[:-1] for x in stems if len(x) > 3 and x[-1] == x[-2]}  # "shipped" -> "shipp" -> "ship"
    words, said = name_words(prop), []
    for label, props in view.nodes.items():
        for p in props:
            head, *rest = name_words(p) or [""]
            if head in stems and rest == words:
                said.append((label, p))
    return said[0] if len(said) == 1 else None


def plural(word: str) -> str:
    """Returns an English plural of a noun (regular rules)."""
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "z", "ch", "sh")) else "s")


def relationship_words(rel: str, src: str, dst: str) -> dict[str, str]:
    """Returns the words a relationship's own name gives, each with its target: its verb in several forms
    (``wroteBook`` -> wrote, ``borrowedBook`` -> borrowed, borrow, borrows: ``rel:TYPE``), the agent nouns
    of a verb in -ed for the end that acts (borrower, director; ``publishedBy`` -> publisher, the far end),
    and the noun of a "has" name for the end it names (``postHasCreator`` -> creator: ``rel:TYPE>dst``).
    Simple English rules; a form that is no word (actor's twin "acter") never occurs in a question."""
    words = name_words(rel)
    src_w, dst_w = name_words(src), name_words(dst)
    if words[:len(src_w)] == src_w and len(words) > len(src_w):
        words = words[len(src_w):]
    if words[-len(dst_w):] == dst_w and len(words) > len(dst_w):
        words = words[:-len(dst_w)]
    out: dict[str, str] = {}
    if words and words[0] in AUXILIARIES:
        rest = [w for w in words[1:] if w not in PREPOSITIONS]
        if words[0] in ("has", "have") and rest and rest != dst_w:
            noun = " ".join(rest)
            out[noun] = out[plural(noun)] = f"rel:{rel}>{dst}"
        return out
    content = [w for w in words if w not in PREPOSITIONS]
    if not content:
        return out
    verb = content[0]
    passive = "by" in words[1:]
    out[verb] = f"rel:{rel}"
    agents = []
    if verb in IRREGULAR_BASES:
        base = IRREGULAR_BASES[verb]
        out.setdefault(base, f"rel:{rel}")
        out.setdefault(base + "s", f"rel:{rel}")
    if verb in IRREGULAR_AGENTS:
        agents.append(IRREGULAR_AGENTS[verb])
    elif verb.endswith("ed") and len(verb) > 4:  # borrowed -> borrow, borrower; produced -> produce, producer
        base = verb[:-1] if verb[-3] in "cgvzus" else verb[:-2]
        out[base] = out[verb[:-1] + "s" if base.endswith("e") else plural(base)] = f"rel:{rel}"
        agents.append(base + "r" if base.endswith("e") else base + "er")
        if not base.endswith("e"):
            agents.append(base + "or")  # directed -> director, acted -> actor
    elif verb.endswith("ies") and len(verb) > 4:  # supplies -> supply, supplied, supplier
        out[verb[:-3] + "y"] = f"rel:{rel}"
        out.setdefault(verb[:-3] + "ied", f"rel:{rel}")
        agents.append(verb[:-3] + "ier")
    elif verb.endswith("s") and not verb.endswith("ss") and len(verb) > 3:  # follows -> follow, followed, follower
        out[verb[:-1]] = f"rel:{rel}"
        out.setdefault(verb[:-1] + ("d" if verb[-2] == "e" else "ed"), f"rel:{rel}")
        agents.append(verb[:-1] + "er")
    for agent in agents:
        out[agent] = out[plural(agent)] = f"rel:{rel}>{dst if passive else src}"
    return out


# what a property's own name says of it, in words of any graph: time properties ("released", "birthYear",
# "shipped_on") and birth properties ("born", "birth_year") are found by these, never by a graph's names
YEAR_WORDS = frozenset({"year", "born", "released", "died"})


def is_year_like(prop: str) -> bool:
    """Whether a property's name says it holds a year (``released``, ``birthYear``, ``published_year``)."""
    return bool(YEAR_WORDS & set(name_words(prop)))


def is_date_like(prop: str) -> bool:
    """Whether a property's name says it holds a date (``orderDate``, ``loan_date``, ``dateAwarded``)."""
    words = name_words(prop)
    return bool(words) and "date" in (words[0], words[-1])


def is_time_like(prop: str) -> bool:
    """Whether a property's name says it holds a year or a date."""
    return is_year_like(prop) or is_date_like(prop)


# a yes/no question: it opens with an auxiliary verb ("Was The Matrix released before Cast Away?")
YES_NO = re.compile(r"\s*(?:is|was|were|are|did|does|do|has|have|had)\b")
# after a label word, words that make it the graph's name ("the movie graph"), not the label
GRAPH_NAME = re.compile(r"\s+(?:graph|database|dataset|data|db)\b")


def is_birth(prop: str) -> bool:
    """Whether a property's name says it is about birth (``born``, ``birthYear``, ``birth_year``)."""
    return bool(BIRTH_WORDS & set(name_words(prop)))


# words that shape the question (operators, question words, numbers in words) rather than name something
OPERATORS = frozenset("""top first last most least highest lowest largest smallest greatest biggest fewest maximum
minimum cheapest oldest youngest earliest latest newest average mean total sum how number count more less fewer
greater higher lower above below over under between and not without never containing contain contains mention
mentions mentioning starting
start starts ending end ends with before after since during until per each both either neither any all only also
equal equals exactly same different distinct unique frequently often commonly common frequent popular times time
year years date dates ago later earlier then name names named called list show give tell find identify which what
who whom whose where when why many much does did has have had one two three four five six seven eight nine ten
twenty""".split())
# general verbs and adverbs that carry no condition of their own
LIGHT = frozenset("""based located made came still among associated terms value values situated found listed
belong belongs belonging include includes included specified described having being currently code live lives
alongside gives gave got went word phrase placed generated generate generates applied apply come comes""".split())
# nouns that, right after a property word, only say what kind of value it is ("discontinued status")
TRAILING_NOUNS = frozenset({"description", "status", "value", "number", "option", "cost", "field", "flag", "method",
                            "values", "costs", "property", "attribute", "code"})
PARTICIPLES = frozenset({"given", "received", "assigned"})  # "the rating given by ...": the property's own verb
NEAR_MIN, NEAR_MARGIN = 0.65, 0.10  # embedding similarity a near word needs, and its lead over the runner-up


class Lexicon:
    """What the words of a question name in one graph: schema targets (phrase -> target, from the domain
    vocabulary plus the schema's own names) and property values (the view's value index)."""

    def __init__(self, view: SchemaView):
        self.view = view
        entries: dict[str, str] = {}
        for label in view.nodes:  # label names first: "countries" is the Country label before City.country
            low = label.lower()
            entries.setdefault(low, label)
            if low.endswith(("ion", "ent", "ic")):
                entries.setdefault(low + "al", label)  # "institutional": of an institution
            entries.setdefault(low + "s", label)
            entries.setdefault(low[:-1] + "ies" if low.endswith("y") else low + "es", label)
        for label, props in view.nodes.items():
            for prop in props:
                words = split_camel(prop).split()
                entries.setdefault(split_camel(prop), f"{label}.{prop}")
                entries.setdefault(plural(split_camel(prop)), f"{label}.{prop}")
                entries.setdefault(prop.lower(), f"{label}.{prop}")
                entries.setdefault(plural(prop.lower()), f"{label}.{prop}")  # "the orderIDs of"
                if len(words) == 2 and words[1] in ("count", "number", "total") and view.is_number(label, prop):
                    entries.setdefault(plural(words[0]), f"{label}.{prop}")  # "how many pages": page_count
                if len(words) == 2 and words[1] in PREPOSITIONS:
                    for verb in (words[0] + "ed", words[0] + words[0][-1] + "ed", words[0] + "d"):
                        entries.setdefault(f"{verb} {words[1]}", f"{label}.{prop}")  # "shipped via": shipVia
                if words and words[-1].endswith("e") and len(words[-1]) > 3:
                    entries.setdefault(words[-1] + "d", f"{label}.{prop}")  # "priced above 20": the verb of the price
                cut = next((i for i, w in enumerate(words) if i and (w in PREPOSITIONS or w == "per")), None)
                if cut:  # "quantities per unit": the head noun before the preposition takes the plural
                    entries.setdefault(" ".join([*words[:cut - 1], plural(words[cut - 1]), *words[cut:]]),
                                       f"{label}.{prop}")
        for rel, props in view.rel_props.items():
            entries.setdefault(split_camel(rel), f"rel:{rel}")
            for prop in props:
                entries.setdefault(split_camel(prop), f"{rel}.{prop}")
                entries.setdefault(plural(split_camel(prop)), f"{rel}.{prop}")  # "their ratings"
        for label, props in view.nodes.items():
            # "birth year", "date of death": the label's property of that event, year or date as written
            for event, words in (("birth", BIRTH_WORDS), ("death", DEATH_WORDS)):
                held = [p for p in props if words & set(name_words(p))]
                years = [p for p in held if is_year_like(p) or (props[p].startswith("INT") and not is_date_like(p))]
                dates = [p for p in held if is_date_like(p)]
                for phrases, cands in (((f"{event} year", f"year of {event}"), years or dates),
                                       ((f"{event} date", f"date of {event}"), dates or years)):
                    for phrase in phrases:
                        if len(cands) == 1:
                            entries.setdefault(phrase, f"{label}.{cands[0]}")
        for label, props in view.nodes.items():
            # "release year", "the year of publication": a year property named by its verb ("released")
            for prop, typ in props.items():
                words = name_words(prop)
                if typ.startswith("INT") and len(words) == 1 and words[0].endswith("ed") and len(words[0]) > 5:
                    verb = words[0]
                    base = verb[:-1] if verb[-3] in "cgvzus" else verb[:-2]
                    for phrase in (f"{base} year", f"{base} years", f"year of {base}", f"{base} date"):
                        entries.setdefault(phrase, f"{label}.{prop}")
        for rel, ends in view.rels.items():
            if len(ends) == 1:  # a type between one pair of labels: its verb and nouns say which ends
                for word, target in relationship_words(rel, *ends[0]).items():
                    entries.setdefault(word, target)
        entries.update(view.spec.words)
        for word, target in view.spec.words.items():  # "screenwriters", "casts": the plural of a noun annotated
            if " " not in word and not word.endswith("s") and (target in view.nodes or ">" in target):
                entries.setdefault(plural(word), target)
        # keep only targets that exist in this schema
        self.entries = {p: t for p, t in entries.items() if self._exists(t)}
        self.phrases = sorted(self.entries, key=lambda p: -len(p))
        # without annotated words, a question word no schema name matches may still be near one
        self.near = not view.spec.words
        self._near_index: tuple[list[str], object] | None = None
        self._near: dict[str, str | None] = {}  # word -> its near target, or None: computed once per word

    def _exists(self, target: str) -> bool:
        t = target[4:].split(">")[0] if target.startswith("rel:") else target.split("=", 1)[0]
        if target.startswith("rel:"):
            return t in self.view.rels
        if "." in t:
            owner, prop = t.split(".", 1)
            return prop in self.view.nodes.get(owner, {}) or prop in self.view.rel_props.get(owner, {})
        return t in self.view.nodes

    def scan(self, text: str, blocked: list[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
        """Returns the non-overlapping (start, end, phrase, target) matches in ``text``, longest phrases
        claimed first, outside the ``blocked`` spans, in textual order."""
        low = text.lower()
        taken = list(blocked)
        found = []
        for phrase in self.phrases:
            for m in re.finditer(r"(?<![A-Za-z])" + re.escape(phrase) + r"(?![A-Za-z])", low):
                s, e = m.start(), m.end()
                if any(s < b and e > a for a, b in taken):
                    continue
                taken.append((s, e))
                found.append((s, e, phrase, self.entries[phrase]))
        if self.near:
            found += self.near_words(low, taken)
        merged: list[tuple[int, int, str, str]] = []
        for s, e, phrase, target in sorted(found):
            prev = merged[-1] if merged else None
            if (prev and phrase in TRAILING_NOUNS and "." in prev[3] and not prev[3].startswith("rel:")
                    and not low[prev[1]:s].strip()):
                # "a quantity per unit description", "a discontinued status": one property, its noun after it
                merged[-1] = (prev[0], e, f"{prev[2]} {phrase}", prev[3])
                continue
            merged.append((s, e, phrase, target))
        return merged

    def near_words(self, low: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
        """Returns (start, end, word, target) for the content words outside ``taken`` whose embedding is near
        one schema target's name (cosine >= NEAR_MIN) and clearly nearer than to any other (by NEAR_MARGIN):
        "novel" -> Book, "pages" -> Book.page_count; "year" stays unmatched when two year properties are as
        near. Used for graphs without annotated words."""
        spans = [m for m in re.finditer(r"[a-z]{4,}", low) if not any(m.start() < b and m.end() > a for a, b in taken)
                 and m.group() not in STOP and m.group() not in FILLER and m.group() not in self.entries]
        if not spans:
            return []
        from kgqa.kg.embed import embed

        if self._near_index is None:
            names: dict[str, str] = {}
            for phrase, target in sorted(self.entries.items(), key=lambda kv: len(kv[0])):
                names.setdefault(target, phrase)  # each target by its shortest name
            targets = list(names)
            self._near_index = (targets, embed([names[t] for t in targets]))
        targets, vectors = self._near_index
        new = sorted({m.group() for m in spans} - set(self._near))
        for word, row in zip(new, embed(new) @ vectors.T if new else []):  # each word is embedded once
            order = row.argsort()[::-1]
            best = float(row[order[0]])
            second = float(row[order[1]]) if len(order) > 1 else 0.0
            self._near[word] = targets[order[0]] if best >= NEAR_MIN and best - second >= NEAR_MARGIN else None
        return [(m.start(), m.end(), m.group(), self._near[m.group()]) for m in spans if self._near[m.group()]]

    def value_mentions(self, question: str) -> list[Mention]:
        """Returns the spans of the question equal (case/accent-insensitively) to a property value of the
        graph, and quoted literals that are no value (with an empty label), in textual order."""
        mentions: list[Mention] = []
        taken: list[tuple[int, int]] = []
        # quoted literals first: 'Exotic Liquids', "Chai"
        for m in re.finditer(r"(?<![A-Za-z])'(.+?)'(?=[\s.,?!;:)]|$)|\"([^\"]+)\"", question):
            text = m.group(1) or m.group(2)
            if text.lower() in self.entries or split_camel(text) in self.entries:
                continue  # a quoted schema word ('unitsOnOrder'), read as a property below
            hits = self.view.values.get(fold(text))
            parts = self._name_parts(text, m.start() + 1) if not hits else []
            if hits:
                mentions.append(self._mention(m.start(), m.end(), text, hits))
            elif parts:
                mentions.extend(parts)  # "Linda Smith" quoted: a first and a last name of one label
            else:
                mentions.append(Mention(m.start(), m.end(), text, "", "", text, score=0.0))
            taken.append((m.start(), m.end()))
        # unquoted n-grams, longest first (up to 6 words)
        words = list(re.finditer(r"[\w'’./&-]+", question))
        for n in range(6, 0, -1):
            for i in range(len(words) - n + 1):
                s, e = words[i].start(), words[i + n - 1].end()
                if any(s < b and e > a for a, b in taken):
                    continue
                text = re.sub(r"(?:['’]s|(?<=s)['’])$", "", question[s:e].strip(".,?!"))  # "Marie Curie's"
                e = s + len(text)
                if n == 1 and (text.lower() in STOP or text.islower() and len(text) < 4):
                    continue
                if re.fullmatch(r"[\d.,$%-]+", text) or (text.islower() and text.lower() in self.entries):
                    continue
                hits = self.view.values.get(fold(text))
                if not hits:
                    continue
                if text.islower() and n == 1 and text.lower() in self.entries:
                    continue  # a schema word ("discontinued"), not a value
                if n == 1 and not text.isupper() and all(
                        len(str(v)) > 3 and str(v).isupper() for _, _, v in hits):
                    continue  # "the total number", "a Canadian airport": a word, not the code 'TOTAL', 'CANADIAN'
                before = re.search(r"([a-z]+)\s+$", question[:s].lower())
                if n == 1 and before and split_camel(before.group(1) + text) in self.entries:
                    continue  # "order ID '10248'": the word ends a property's name (orderID), no value
                mentions.append(self._mention(s, e, text, hits))
                taken.append((s, e))
        return sorted(mentions, key=lambda m: m.start)

    def _name_parts(self, text: str, at: int) -> list[Mention]:
        """The words of a quoted text that is no value, when each is a value of another property of one label
        (a first and a last name), as mentions at their places (``at``: where the text starts); else []."""
        words = list(re.finditer(r"\S+", text))
        if not 2 <= len(words) <= 3:
            return []
        hits = [self.view.values.get(fold(w.group())) or [] for w in words]
        labels = set.intersection(*({lb for lb, _, _ in h} for h in hits))
        for label in sorted(labels):
            props = [[p for lb, p, _ in h if lb == label] for h in hits]
            if all(len(p) == 1 for p in props) and len({p[0] for p in props}) == len(words):
                return [self._mention(at + w.start(), at + w.end(), w.group(), [hit for hit in h if hit[0] == label])
                        for w, h in zip(words, hits)]
        return []

    def _mention(self, s: int, e: int, text: str, hits: list[tuple[str, str, str]]) -> Mention:
        spec = self.view.spec
        ranked = sorted(hits, key=lambda h: (h[1] != spec.display.get(h[0]),
                                             h[1] not in spec.name_props.get(h[0], []),
                                             h[1] != spec.primary_keys.get(h[0])))
        label, prop, value = ranked[0]
        return Mention(s, e, text, label, prop, value, alternatives=[(lb, p, v) for lb, p, v in ranked[1:]])

    def unused(self, f: Frame, cypher: str) -> list[str]:
        """Returns the question's schema words whose target the plan does not use: a relationship word
        ("directed") with no such relationship in ``cypher``, a label word with no such label, a property
        word with no such property. "Who both acted in and directed the same movie?" read as every person
        leaves "acted in" and "directed": a plan that ignores them answers another question. Words inside
        linked values ("The Matrix Reloaded") are not the question's own."""
        low = f.question.lower()
        blocked = [(m.start, m.end) for m in f.anchors] + list(f.linked) + list(f.consumed)
        used_props = set(re.findall(r"\.`?(\w+)", cypher))
        timed = {w for p in used_props if is_time_like(p) for w in name_words(p)}
        words = []
        terms = self.scan(low, blocked)
        for i, (s, e, phrase, target) in enumerate(terms):
            after = terms[i + 1] if i + 1 < len(terms) else None
            if (phrase in self.view.spec.name.lower() and after and not low[e:after[0]].strip()
                    and "." not in after[3] and self._used(after[3], cypher)):
                continue  # "Nobel laureates" in a graph named after the prize: its name before a label it uses
            owner, _, prop = target.split("=", 1)[0].partition(".")
            expr = self.view.measures.get((owner, prop))
            if expr is not None and all(self._used(f"{owner}.{p}", cypher) for p in re.findall(r"[A-Za-z_]\w*", expr)):
                continue  # "revenue": a measure, written out as its arithmetic
            if self._used(target, cypher) or phrase in STOP:
                continue  # "Name the films ...": an imperative, not the name property
            before = terms[i - 1] if i else None
            if phrase in TRAILING_NOUNS and before and not low[before[1]:s].strip(" `'\""):
                continue  # "the `freight` cost": the noun of the property word before it
            if phrase in OPERATORS and (f.order or f.agg):
                continue  # "the oldest movie": the superlative the frame orders by, whatever it names
            if GRAPH_NAME.match(low, e):
                continue  # "the movie graph": the graph's name, not its label
            if phrase in TIME_CUES and TIME_CUES[phrase] & timed:
                continue  # "born before 1850" over a birth-year property
            if "." in target and phrase.endswith("ed") and re.match(r"\s+by\b", low[e:]) and is_time_like(prop):
                continue  # "orders placed by customers in Berlin": the verb, not the time it names
            said = verb_property(self.view, low, s, prop) if prop else None
            if said and self._used(".".join(said), cypher):
                continue  # "the most frequently shipped cities": the verb's property (shipCity) is used
            if prop and any(m.label == owner and 0 <= m.start - e <= 4 and m.prop != prop and self._used(
                    f"{m.label}.{m.prop}", cypher) and name_words(m.prop)[:1] == name_words(prop)[:1] for m in f.anchors):
                continue  # "shipped to 'Lisboa'": the verb's other property (shipCity, not shipCountry) holds the value
            if "." in target and YEAR_WORDS & set(phrase.split()) and timed:
                continue  # "the average birth year": a year property is used
            if (prop and phrase.endswith("ed") and is_time_like(prop)
                    and self._used(owner, cypher) and not re.search(YEAR + r"|\d-\d", low)):
                continue  # "orders placed" with no date: the verb of a time property, no condition
            words.append(phrase)
        return words

    @staticmethod
    def _used(target: str, cypher: str) -> bool:
        if target.startswith("rel:"):
            rel = target[4:].partition(">")[0]
            return re.search(r"\[\w*:" + re.escape(rel) + r"\b", cypher) is not None
        name = target.split("=", 1)[0]
        if "." in name:
            return re.search(r"\.`?" + re.escape(name.split(".", 1)[1]) + r"\b", cypher) is not None
        return re.search(r":`?" + re.escape(name) + r"\b", cypher) is not None

    def unexplained(self, f: Frame) -> list[str]:
        """Returns the content words of the question that the frame does not account for: no schema word,
        linked value, quoted literal or number covers them, and they are no operator (:data:`OPERATORS`),
        filler or light word. "Which laureates were born in Iceland?" leaves "iceland": a plan that ignores
        it answers another question, so the pipeline says "I don't know" instead of answering it."""
        low = f.question.lower()
        covered = [(s, e) for s, e, _, _ in self.scan(low, [])] + [(m.start, m.end) for m in f.anchors] + f.linked + f.consumed
        covered += [m.span() for m in re.finditer(r"'[^']*'|\"[^\"]*\"|\$?\d[\d,.]*", low)]
        for value in [m.value for m in f.anchors] + [c.value for c in f.conds]:  # values, wherever written
            if isinstance(value, str) and len(value) > 2:
                covered += [m.span() for m in re.finditer(re.escape(value.lower()), low)]
        labels = {f.target, *f.labels_mentioned, *(m.label for m in f.anchors)} - {None, ""}
        props = [p for lb in labels for p in self.view.nodes.get(lb, {})]
        # "companies located in 'London'": the noun of what names a label in the frame (companyName)
        heads = {w for lb in labels for w in name_words(self.view.display(lb)) if w not in ("name", "title", "id")}
        heads |= {plural(w) for w in heads}
        words = []
        for m in re.finditer(r"[a-z][a-z']*", low):  # each part of a hyphenated word ("co-stars")
            if any(a <= m.start() < b for a, b in covered):
                continue
            w = m.group(0).strip("'-")
            if w.endswith("'s"):
                w = w[:-2]
            short_acronym = len(w) == 2 and f.question[m.start():m.end()].isupper()  # "a PG rating"
            if ((len(w) < 3 and not short_acronym) or w in STOP or w in FILLER or w in OPERATORS or w in LIGHT
                    or w in NUMBER_WORDS
                    or w in PRONOUNS or w in heads
                    or w in self.view.spec.name):
                continue
            if w in (*TRAILING_NOUNS, *PARTICIPLES) and any(not low[b:m.start()].strip(" `'\"")
                                                          for a, b in covered if b <= m.start()):
                continue  # "a discontinued status", "the rating given": the noun or verb of the property before it
            if w == "recently" and f.order and is_time_like(f.order):
                continue  # "the most recently published": the time the frame orders by
            if w in TIME_CUES and any(TIME_CUES[w] & set(name_words(p)) for p in props):
                continue  # "born", "released", "died": a property of a label in the frame holds that time
            words.append(w)
        return words + [n.split(": ", 1)[1] for n in f.notes if n.startswith("unexplained: ")]


_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\d])|\d+(?:\.\d+)?")


def unused_numbers(question: str, values: list, cypher: str = "") -> list[str]:
    """Numbers written in the question that a plan uses nowhere: not among its ``values`` (parameters, limit),
    and not in ``cypher`` (its text, when no tree says which values it holds)."""
    haystack = cypher + " " + " ".join(str(v) for v in values if v is not None)
    values = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    out = []
    # "the 90s" is read as a decade of years (1990 to 1999)
    decades = {str(v % 100) for v in values if 1900 <= v < 2000 and v % 10 in (0, 9)}
    question = re.sub(r"\b'?(\d0)'?s\b", lambda m: "" if m.group(1) in decades else m.group(0), question)
    for m in _NUMBER.finditer(question):
        raw = m.group(0)
        text = raw.replace(",", "")
        if re.search(rf"(?<![\d.]){re.escape(text)}(?![\d])", haystack):
            continue
        after = (question[m.end():].split() or [""])[0].strip("?!.,;:)").lower()
        times = MULTIPLIERS.get(after, 1)  # "over 2 million"
        if any(abs(float(text) * k - v) < 1e-9 * max(1, abs(v)) for v in values for k in {1, times}):
            continue
        out.append(raw)
    return out
