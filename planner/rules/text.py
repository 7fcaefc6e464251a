"""The rules that read conditions on text and truth: literals, booleans, values recorded, amounts held."""

from __future__ import annotations

import re

from kgqa.planner.frame import Cond, Mention
from kgqa.planner.lexicon import OPERATORS, is_time_like
from kgqa.planner.rules.order import AMOUNT_WORDS
from kgqa.planner.rules.state import Reading, consumed, rel_of
from kgqa.text import STOPWORDS as STOP_WORDS
from kgqa.text import name_words

TEXT_CLASSES = frozenset("""numbers number digits digit letters letter vowels vowel consonants spaces space
punctuation characters character symbols symbol numerals numeral capitals uppercase lowercase""".split())


def string_conditions(r: Reading) -> None:
    """Quoted literals that are not graph values: dates, prefixes, substrings ('... containing 'bags''),
    on the nearest string property named, else on the target's display property."""
    f, low, view = r.frame, r.low, r.view
    ops = [(r"(?:containing|contains|contain|includes|including|described as|with the word|mention(?:s|ing)?)", "CONTAINS"),
           (r"(?:starting with|starts with|start with|beginning with|begins with|begin with)", "STARTS WITH"),
           (r"(?:ending with|ends with|end with|ending in|ends in|end in)", "ENDS WITH"),
           (r"(?:later than|after|since|from)", ">"), (r"(?:earlier than|before|prior to|until)", "<")]
    # "Which laureates have Curie in their name?": a linked value inside a text property, not that value
    for m in [m for m in f.anchors if m.label]:
        word = re.match(r"\s+in\s+(?:the|their|its|his|her)\s+([a-z]+(?:\s[a-z]+)?)", low[m.end:])
        if not word:
            continue
        named = r.lex.entries.get(word.group(1)) or r.lex.entries.get(word.group(1).split()[0], "")
        owner, _, prop = named.partition(".")
        if word.group(1).split()[0] in ("name", "names"):  # what names the node: its display property
            owner, prop = m.label, view.display(m.label)
        if prop and owner in (m.label, f.target) and view.prop_type(owner, prop) == "STRING":
            f.anchors.remove(m)
            f.conds.append(Cond(owner, prop, "CONTAINS", m.text, fold=m.text.islower() or m.text.isupper()))
    # unquoted: "a tagline that mentions love", "names ending in son", "containing the word FREEDOM"
    words = re.compile(r"\b(?:mention(?:s|ing)?|contain(?:s|ing)?|includ(?:es|ing)|(?:start|begin)(?:s|ning|ing)?"
                       r"\s+with|end(?:s|ing)?\s+(?:in|with))\s+(?:the\s+(?:word|phrase|text)\s+)?([A-Za-z0-9][\w'-]*)")
    literals = [m for m in r.mentions if not m.label]
    unquoted: list[Mention] = []
    # "for work on insulin", "work involving the LASER": a word about what a text property says
    about = [(e, o, p) for s, e, o, p in r.props_at if r.view.prop_type(o, p) == "STRING"]
    for e, owner, prop in about:
        m = re.match(r"\s+(?:on|about|involving|concerning|regarding)\s+(?:the\s+)?([A-Za-z][\w'-]*)", r.question[e:])
        a, b = (e + m.start(1), e + m.end(1)) if m else (0, 0)
        if (m and m.group(1).lower() not in STOP_WORDS and m.group(1).lower() not in r.lex.entries
                and not any(x < b and y > a for x, y in r.blocked)):  # "about Cloud Atlas": a named entity
            lit = m.group(1)
            f.conds.append(Cond(owner, prop, "CONTAINS", lit, rel_of(r, owner), fold=True))
            r.used.append((e, b))
    for m in words.finditer(r.question):
        a, b = m.span(1)
        # "a family name starting with Mc": a fragment the fuzzy linker took for a whole name is the literal
        fuzzy = [x for x in f.anchors if (x.start, x.end) == (a, b) and str(x.value).lower() != x.text.lower()]
        for x in fuzzy:
            f.anchors.remove(x)
        if m.group(1).lower() in TEXT_CLASSES or m.group(1).lower() in ("their", "its", "his", "her", "your", "my"):
            # "titles containing numbers": a kind of character, not the word itself
            f.notes.append(f"unexplained: {m.group(0)}")
            continue
        if any(x < b and y > a for x, y in r.blocked if (x, y) != (a, b) or not fuzzy) \
                or m.group(1).lower() in r.lex.entries \
                or m.group(1).lower() in STOP_WORDS or m.group(1).lower() in OPERATORS or m.group(1)[0].isdigit():
            continue
        literals.append(Mention(a, b, m.group(1), "", "", m.group(1), score=0.0))
        unquoted.append(literals[-1])
        r.used.append((m.start(), a))  # "containing the word": the operator's words
    prev: tuple[int, str, tuple] | None = None  # (end, operator, property) of the last substring read
    for lit in literals:
        if consumed(r, lit.start):
            continue  # "in the month of 'December'": read already
        if prev and prev[1] != "=" and re.fullmatch(r"[\s`'\"]*and[\s`'\"]*", low[prev[0]:lit.start]):
            # "a summary containing both 'Silly' and 'fun'": the same text holds the second one too
            best, op = prev[2], prev[1]
            f.conds.append(Cond(best[1], best[2], op, lit.text, best[1] if best[1] in view.rel_props
                                and best[1] not in view.nodes else None, fold=lit.text.islower() or lit.text.isupper()))
            prev = (lit.end, op, best)
            continue
        if lit.text.lower() in ("true", "false") and any(
                view.prop_type(o, p) == "BOOL" and 0 <= lit.start - e <= 12 for _s, e, o, p in r.props_at):
            continue  # "a discontinued status of 'True'": the property's own value, read as a boolean
        before = low[max(0, lit.start - 30):lit.start]
        op = "="
        for pat, o in ops:
            said = r"(?:\s+both)?(?:\s+the\s+(?:words?|phrases?|text|letters?))?"  # "containing the word FREEDOM"
            if re.search(pat + said + r"\s*$", before.strip() + " ") or re.search(pat + said + r"\W*$", before):
                op = o
                break
        inside = re.match(r"\W*\s+in (?:the|its|their|his|her) ", low[lit.end:])
        if op == "=" and inside and re.match(r"\w+", low[lit.end + inside.end():]):
            op = "CONTAINS"  # "'Matrix' in the title"
        best = None
        substring = op in ("CONTAINS", "STARTS WITH", "ENDS WITH")
        named_in = [x for x in r.props_at if inside and 0 <= x[0] - (lit.end + inside.end()) <= 16]
        for ps, pe, owner, prop in named_in or r.props_at:  # "'love' in the review summary": that text
            dist = lit.start - pe if pe <= lit.start else ps - lit.end + 20
            # a relationship's text ("work mentioning DNA": the prize's motivation) for a substring, or for a
            # value right after its name ("the summary 'A solid romp'")
            if view.prop_type(owner, prop) != "STRING" or (owner in view.rel_props and not substring
                                                           and not 0 <= dist <= 4):
                continue
            if best is None or dist < best[0]:
                best = (dist, owner, prop)
        verb = re.search(r"\b([a-z]+)\s+as\s*['\"]?$", low[:lit.start + 1])
        named = (r.lex.entries.get(verb.group(1), "") if verb else "").partition(">")[0]
        texts = [p for p, t in view.rel_props.get(named[4:], {}).items() if t == "STRING"] if named.startswith("rel:") else []
        if best is None and len(texts) == 1:
            best = (0, named[4:], texts[0])  # "reviewed as 'Silly, but fun'": the review's one text
        if best is None and f.target and (lit not in unquoted or re.search(r"\b(?:names?|titles?|called)\b", low)):
            # no text property named: what names the target, when quoted or when the question says so ("whose
            # names end in son"); "work mentioning DNA" is no name
            best = (0, f.target, view.display(f.target))
            if op == "=" and lit not in unquoted:
                # a quoted value the entity index does not hold: no node is so named, and nothing says which
                # text it is ("reviewed as 'Pretty funny at times'"); not an empty answer either
                f.notes.append(f"unexplained: {lit.text!r} names no {f.target}")
        if best and op == "=" and lit.label == "" and is_time_like(best[2]) and not re.search(r"\d", lit.text):
            # "shipped by 'United Package'": a name is no date
            f.notes.append(f"unexplained: {lit.text!r} as a {best[2]}")
        if best:
            # a substring written all in one case ('FREEDOM', 'burg') matches whatever the data's casing is
            fold = op in ("CONTAINS", "STARTS WITH", "ENDS WITH") and (lit.text.islower() or lit.text.isupper())
            rel = best[1] if best[1] in view.rel_props and best[1] not in view.nodes else None
            f.conds.append(Cond(best[1], best[2], op, lit.text, rel, fold=fold))
            prev = (lit.end, op, best) if substring else None


def booleans(r: Reading) -> None:
    """"still alive" / "deceased": whether the label's death date or year is recorded; a BOOL property
    named is true, or false after "not", "non", "never"."""
    f, low, view = r.frame, r.low, r.view
    life = re.search(r"\b(alive|living|still living|dead|deceased|passed away)\b", low)
    if life:
        for label in dict.fromkeys([f.target, *f.labels_mentioned]):
            death = [p for p in view.nodes.get(label or "", {}) if p.lower().startswith("death")]
            if death:
                op = "IS NULL" if life.group(1) in ("alive", "living", "still living") else "IS NOT NULL"
                f.conds.append(Cond(label, sorted(death)[0], op, None))
                break
    for prop_owner, props in view.nodes.items():
        # "orders that have been shipped" / "have not been shipped": whether the time the verb names is recorded
        if prop_owner not in (f.target, *f.labels_mentioned):
            continue
        for prop in props:
            cues = [w for w in name_words(prop) if w.endswith("ed") and len(w) > 4]  # shippedDate: "shipped"
            for cue in cues:
                m = re.search(rf"\b(?:has|have|had|was|were|is|are)\s+(not\s+|never\s+)?(?:yet\s+)?(?:been\s+)?(?:yet\s+)?"
                              rf"{cue}\b(?=\s*(?:$|[,.?!;]|and\b|or\b|but\b|yet\b))", low)
                if m and is_time_like(prop) and not any(c.prop == prop for c in f.conds):
                    f.conds.append(Cond(prop_owner, prop, "IS NULL" if m.group(1) else "IS NOT NULL", None))
                    r.used.append(m.span())
    for s, e, owner, prop in r.props_at:
        # "whose birth year is unknown", "a fax number listed", "with no fax": whether a value is recorded
        after, typ = low[e:e + 30], view.prop_type(owner, prop)
        noun = r"\s+(?:number|name|date|address|value)"  # "a fax number listed"
        missing = re.match(rf"(?:{noun})?\s+(?:(?:is|are|was|were)\s+)?(?:unknown|missing|not (?:known|recorded|"
                           rf"listed|given))\b", after)
        present = re.match(rf"(?:{noun})?\s+(?:(?:is|are|was|were)\s+)?(?:listed|recorded|known|given|on file)\b",
                           after)
        if (missing or present) and owner in view.nodes and not any(c.prop == prop for c in f.conds):
            # "no birth year listed" is none recorded
            negated = re.search(r"\b(?:no|without|not|n't|lack|lacking)\s+(?:have\s+|has\s+|had\s+)?(?:an?\s+|any\s+)?$", low[:s])
            f.conds.append(Cond(owner, prop, "IS NULL" if bool(missing) != bool(negated) else "IS NOT NULL", None))
            r.used.append((e, e + (missing or present).end()))
            continue
        if (typ == "STRING" and owner in view.nodes and re.search(r"\b(?:no|without)\s+(?:an?\s+)?$", low[:s])
                and not any(c.prop == prop for c in f.conds)):
            f.conds.append(Cond(owner, prop, "IS NULL", None))
            continue
        if typ != "BOOL":
            continue
        before = low[max(0, s - 24):s]
        # "not discontinued", "never been discontinued", "hasn't been discontinued"
        negated = bool(re.search(r"\b(not|non|never|n't)\b[\s-]*(?:(?:been|be|being|ever|yet)\s+)?$", before))
        # "a discontinued status of 'False'", "discontinued = false": the value written after it
        value = re.match(r"[\s`'\"]*(?:\w+\s+)?(?:of|is|=|equal to|equals|set to)?\s*['\"]?(false|true)\b", low[e:])
        if value:
            negated ^= value.group(1) == "false"
            r.used.append((e, e + value.end()))
        if any(c.prop == prop and c.op == "=" and c.value is negated for c in f.conds):
            # "a product that is discontinued and also one that is not": two nodes, one condition each
            f.notes.append(f"unexplained: {prop} both true and false")
        if not any(c.prop == prop for c in f.conds):
            f.conds.append(Cond(owner, prop, "=", not negated, rel_of(r, owner)))


def held_amounts(r: Reading) -> None:
    """"products in stock", "the most products on order": a number property named by the words its name ends
    with after "in"/"on" (unitsInStock, unitsOnOrder), with nothing else said of it, is an amount held: more
    than none; "not in stock" is none."""
    f, low, view = r.frame, r.low, r.view
    said = {f.agg_prop, f.order, f.target_prop, *f.shown_props, *(c.prop for c in f.conds)}
    for s, e, owner, prop in r.props_at:
        words = name_words(prop)
        if (len(words) < 3 or words[-2] not in ("in", "on") or low[s:e].split() != words[-2:] or prop in said
                or owner not in (f.target, *f.labels_mentioned) or not view.is_number(owner, prop)):
            continue
        before = low[:s].split()[-1:]
        if before and before[0].rstrip("s") in {w.rstrip("s") for w in AMOUNT_WORDS}:
            continue  # "the quantity on order": the property itself, named by its amount
        negated = re.search(r"\b(?:not|no longer)\s+(?:currently\s+|still\s+)?$", low[:s])
        f.conds.append(Cond(owner, prop, "=" if negated else ">", 0, rel_of(r, owner)))
        said.add(prop)
        if negated:
            r.used.append(negated.span())  # "no longer" is this negation, not a comparison
