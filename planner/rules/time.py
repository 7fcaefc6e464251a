"""The rules that read years and dates: year conditions, functions of a property, ages."""

from __future__ import annotations

import re

from kgqa.planner.frame import Cond
from kgqa.planner.lexicon import YEAR, is_birth, is_date_like, is_year_like
from kgqa.planner.rules.state import Reading, rel_of, timed
from kgqa.text import name_words

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")


def arithmetic(r: Reading) -> None:
    """Conditions on a function of a property: "a year divisible by 25" and "odd-numbered years" (modulo),
    "titles longer than 20 characters" (text length), "awarded in November" (the month of a date written as
    text, YYYY-MM-DD)."""
    f, low = r.frame, r.low
    for m in re.finditer(r"\b(?:divisible by|a multiple of)\s+(\d+)\b|\b(odd|even)(?:-|\s+)?(?:numbered\s+)?(?=years?\b)",
                         low):
        hit = _year_prop(r, m.start())
        if hit is None or not hit[2].startswith("INT"):
            continue
        if m.group(1):
            f.conds.append(Cond(hit[0], hit[1], f"% {int(m.group(1))} =", 0, rel_of(r, hit[0])))
        else:
            f.conds.append(Cond(hit[0], hit[1], "% 2 =", 1 if m.group(2) == "odd" else 0, rel_of(r, hit[0])))
        r.used.append(m.span())
    for m in re.finditer(r"\b(longer|more|shorter|fewer|less)\s+than\s+(\d+)\s+(?:characters|letters|chars)\b", low):
        texts = [(s, o, p) for s, e, o, p in r.props_at if s < m.start() and r.view.prop_type(o, p) == "STRING"
                 and not re.match(r"names?\b", low[s:])]
        if re.search(r"\bnames?\s+$", low[:m.start()]) and f.target:
            owner, prop = f.target, r.view.display(f.target)  # "a name longer than 30 characters"
        elif texts:
            _, owner, prop = texts[-1]
        else:
            continue
        op = ">" if m.group(1) in ("longer", "more") else "<"
        f.conds.append(Cond(owner, prop, op, int(m.group(2)), rel_of(r, owner), fn="size"))
        r.used.append(m.span())
    for m in re.finditer(r"\b(?:in|during)\s+(?:the\s+month\s+of\s+)?['\"]?(" + "|".join(MONTHS) + r")\b(?!\s+\d)", low):
        verb = re.findall(r"[a-z]+", low[:m.start()])[-1:]
        dates = [(lb, p) for lb in dict.fromkeys([f.target, *f.labels_mentioned]) if lb
                 for p, t in r.view.nodes.get(lb, {}).items() if t == "STRING" and is_date_like(p)]
        near = [(o, p) for s0, e0, o, p in r.props_at if 0 <= m.start() - e0 <= 4 and (o, p) in dates]
        named = near or [d for d in dates if set(verb) & set(name_words(d[1]))] or (dates if len(dates) == 1 else [])
        if len(named) == 1:  # "a `requiredDate` in the month of August": the date named right before
            month = MONTHS.index(m.group(1)) + 1
            f.conds.append(Cond(named[0][0], named[0][1], "CONTAINS", f"-{month:02d}-"))
            r.used.append(m.span())


def years(r: Reading) -> None:
    """Years as conditions on a year or date property: ranges ("from 1939 to 1945", "between 2000 and
    2009"), decades ("the 1920s"), bounds ("before 1850", "since 1990") and single years ("in 1997",
    "the 2020 chemistry prize"). The property: the one a cue word names ("born" -> birth, "died" ->
    death, "won" -> award), else the nearest year-like property mentioned, else the single one of an
    anchored or mentioned label (or, for "in 1997", of the asked label). Several single years on one
    property are a disjunction and stay unbound. A date string compares as text ("1939" <= "1939-10-05")."""
    f, low = r.frame, r.low
    taken = r.used + r.blocked
    found: list[tuple[int, int, list[tuple[str, int]]]] = []

    def claim(m, bounds) -> None:
        if not any(a < m.end() and m.start() < b for a, b in taken):
            taken.append((m.start(), m.end()))
            found.append((m.start(), m.end(), bounds))

    for pattern in (rf"\bbetween\s+({YEAR})\s+and\s+({YEAR})\b",  # "in 1901 and 2001" is two years, not a span
                    rf"\b(?:from\s+)?({YEAR})\s*(?:to|-|–|through|until)\s*({YEAR})\b"):
        for m in re.finditer(pattern, low):
            lo, hi = sorted((int(m.group(1)), int(m.group(2))))
            claim(m, [(">=", lo), ("<=", hi)])
    for m in re.finditer(r"\b(?:the\s+)?((?:18|19|20)\d)0'?s\b", low):
        claim(m, [(">=", int(m.group(1)) * 10), ("<=", int(m.group(1)) * 10 + 9)])
    for m in re.finditer(r"\bthe\s+'?([2-9])0'?s\b", low):  # "the 90s": the decade of the last century
        claim(m, [(">=", 1900 + int(m.group(1)) * 10), ("<=", 1909 + int(m.group(1)) * 10)])
    for m in re.finditer(rf"\b(before|prior to|earlier than|until|after|later than|since)\s+(?:the\s+)?(?:year\s+)?"
                         rf"({YEAR})\b", low):
        op = {"before": "<", "prior to": "<", "earlier than": "<", "until": "<=", "after": ">",
              "later than": ">", "since": ">="}[m.group(1)]
        claim(m, [(op, int(m.group(2)))])
    for m in re.finditer(rf"(?<![$.,])\b({YEAR})\b(?![.,]\d)(?!\s*(?:units|products|orders|items|dollars))", low):
        claim(m, [("=", int(m.group(1)))])
    picked = []
    for start, _end, bounds in sorted(found):
        # with no cue word, "in 1997" may mean the asked label's one year; a bound or bare year must
        # belong to a label the question names ("Who directed X after 1990?" is not about birth years)
        plain_in = re.search(r"\b(?:in|during|of)\s+(?:the\s+)?(?:year\s+)?$", low[:start])
        hit = _year_cue(r, start) or _year_prop(r, start, with_target=bool(plain_in))
        if hit:
            picked.append((hit, bounds))
    singles = [hit for hit, bounds in picked if bounds[0][0] == "="]
    alts = [y for hit, bounds in picked if bounds[0][0] == "=" and singles.count(hit) == 2 and hit[2] != "STRING"
            for _, y in bounds]
    if len(alts) == 2 and re.search(rf"\b{alts[0]}\s+or\s+{alts[1]}\b", low) and re.search(r"\bwhich\b", low):
        # "Which physics prize was worth more, 1901 or 2001?": the two years are alternatives to pick from
        hit = next(hit for hit, bounds in picked if bounds[0][0] == "=" and singles.count(hit) == 2)
        f.conds.append(Cond(hit[0], hit[1], "IN", alts, rel_of(r, hit[0])))
    for hit, bounds in picked:
        if bounds[0][0] == "=" and singles.count(hit) > 1:
            continue  # "1901 and 2001": not a conjunction; left unbound, the plan is declined
        owner, prop, typ = hit
        for op, year in bounds:
            if typ != "STRING":
                f.conds.append(Cond(owner, prop, op, year, rel_of(r, owner)))
            elif op == "=":
                f.conds.append(Cond(owner, prop, "STARTS WITH", str(year), rel_of(r, owner)))
            else:  # ISO date text: "<= 1945" is "<= '1945-99'" (after every 1945 date, before 1946)
                bound = f"{year}-99" if op in ("<=", ">") else str(year)
                f.conds.append(Cond(owner, prop, op, bound, rel_of(r, owner)))


def ages(r: Reading) -> None:
    """An age: "lived to be 100 or older", "lived the longest, and to what age" (the death year minus the birth
    year), "the youngest physics laureate, and how old were they", "How old was Tom Hanks when Cast Away came
    out?" (the year of the prize won or the film named, minus the birth year). Years only (integers)."""
    f, low, view = r.frame, r.low, r.view
    asked = re.search(r"\bhow old\b|\bwhat age\b|\bages?\b|\blived\b", low)
    if not asked or not f.target:
        return
    years = {p: t for p, t in view.nodes.get(f.target, {}).items() if t.startswith("INT")}
    birth = [p for p in years if is_birth(p)]
    if len(birth) != 1:
        return
    if re.search(r"\blived\b|\bdied\b|\bdie\b", low):
        death = [p for p in years if {"death", "died"} & set(name_words(p))]
        if len(death) != 1:
            return
        f.age = (f.target, death[0], birth[0])
    else:
        # the event: a label the question joins with one year of its own (the prize won, the film named)
        others = [m.label for m in f.anchors if m.label != f.target]
        others += [lb for rel in f.rel_hints for pair in view.rels.get(rel, []) for lb in pair if lb != f.target]
        others += [c.label for c in f.conds if c.label != f.target]
        others += [lb for lb in f.labels_mentioned if lb != f.target]
        event = next((lb for lb in dict.fromkeys(others) if len(timed(view, lb)) == 1
                      and view.prop_type(lb, timed(view, lb)[0]).startswith("INT")), None)
        if event is None:
            return
        f.age = (event, timed(view, event)[0], birth[0])
    bound = re.search(r"\b(?:lived to be|lived to|aged?|at least)\s+(\d+)(\s+or\s+(?:older|more))?", low)
    if bound:
        f.age_cond = (">=" if bound.group(2) or "least" in bound.group(0) else "=", int(bound.group(1)))
        r.used.append(bound.span())
    of_ages = re.search(r"\b(average|mean|minimum|maximum)\s+age\b", low)
    if of_ages and f.agg in (None, "avg", "min", "max"):
        # "the average age of directors at the time of their film release": of the ages, not of the years
        f.agg = {"minimum": "min", "maximum": "max"}.get(of_ages.group(1), "avg")
        f.agg_label, f.agg_prop = None, None
    sup = re.search(r"\b(longest|youngest|oldest|shortest)\b", low)
    if sup:
        f.order, f.desc = "age", sup.group(1) in ("longest", "oldest")
        f.limit = f.limit or 1
        f.order_label, f.agg = None, None
        r.used.append(sup.span())
    f.target_prop = None
    r.used += [m.span() for m in re.finditer(r"\bhow old\b|\b(?:to |at )?what age\b|\bages?\b|\blived\b|\bold\b",
                                             low)]


def _year_cue(r: Reading, pos: int) -> tuple[str, str, str] | None:
    """The year property a cue word before the year names, on a label of the frame, if exactly one."""
    f = r.frame
    window = r.low[max(0, pos - 40):pos]
    # cue words and the first words of the property names they speak of, in words of any graph
    cues = [(r"\b(?:born|birth)", ("birth", "born")), (r"\b(?:died|dead|death|die)", ("death", "died")),
            (r"\b(?:released|release|came out)", ("released", "release")),
            (r"\b(?:won|win|awarded|award|prize)", ("award",)),
            (r"\b(?:ordered|order|placed)", ("order",)), (r"\b(?:shipped|ship)", ("shipped",))]
    labels = [m.label for m in f.anchors] + f.labels_mentioned + [f.target]
    nearest = []  # cues by distance to the year: "orders shipped in 1997" is about shipping
    for pattern, stems in cues:
        found = [m.end() for m in re.finditer(pattern, window)]
        if found:
            nearest.append((len(window) - found[-1], stems))
    for _, stems in sorted(nearest):
        hits = []
        for label in dict.fromkeys(lb for lb in labels if lb):
            for p, t in r.view.nodes.get(label, {}).items():
                first = (name_words(p) or [""])[0]
                if any(first.startswith(st) for st in stems) and (
                        t.startswith("INT") and is_year_like(p) or t == "STRING" and is_date_like(p)):
                    hits.append((label, p, t))
        ints = [h for h in hits if h[2].startswith("INT")]
        pick = ints or hits
        if len({(lb, p) for lb, p, _ in pick}) == 1:
            return pick[0]
    return None


def _year_prop(r: Reading, pos: int, with_target: bool = True) -> tuple[str, str, str] | None:
    f = r.frame
    best = None
    for _ps, pe, owner, prop in r.props_at:
        typ = r.view.prop_type(owner, prop)
        if typ in ("INT64", "STRING") and ("date" in name_words(prop) or is_year_like(prop)):
            dist = abs(pos - pe)
            if best is None or dist < best[0]:
                best = (dist, (owner, prop, typ))
    if best:
        return best[1]
    # a year with no property named: the one year-like property of the label just before it ("films from the
    # 90s"), else of an anchored, mentioned or target label
    near = [lb for s, lb in r.labels_at if s < pos and len(re.findall(r"[a-z']+", r.masked[s:pos])) <= 4]
    labels = near[-1:] + [m.label for m in f.anchors] + f.labels_mentioned + ([f.target] if with_target else [])
    for label in dict.fromkeys(lb for lb in labels if lb):
        props = r.view.nodes.get(label, {})
        ints = [(p, t) for p, t in props.items() if t.startswith("INT") and is_year_like(p)]
        dates = [(p, t) for p, t in props.items() if p.lower().endswith("date")]
        for cands in (ints, dates):
            if len(cands) == 1:
                return (label, cands[0][0], cands[0][1])
    return None
