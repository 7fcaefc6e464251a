"""How people phrase questions about each relationship and property (paraphrase tables for synthesis).

Keys are ``(relationship, direction from the anchor to the answer)``: ``np`` is a noun phrase naming the
answer set ("the movies {x} acted in"), ``q`` are whole questions, ``count`` counting questions; ``{x}``
is the anchor. Attribute, filter and comparison phrasings are keyed ``(label, property)``. Anything not
listed falls back to phrasings built from the schema's own names, so a new graph still gets questions.
"""

from __future__ import annotations

from kgqa.planner.schema_view import split_camel

REL: dict[str, dict[tuple[str, str], dict[str, list[str] | str]]] = {
    "movies": {
        ("ACTED_IN", "out"): {"np": "the movies {x} acted in",
                              "q": ["Which movies did {x} act in?", "What movies has {x} acted in?",
                                    "List the movies {x} acted in."],
                              "count": ["How many movies did {x} act in?"]},
        ("ACTED_IN", "in"): {"np": "the actors of {x}",
                             "q": ["Who acted in {x}?", "Which actors appeared in {x}?", "Who starred in {x}?"],
                             "count": ["How many actors appeared in {x}?"]},
        ("DIRECTED", "out"): {"np": "the movies {x} directed",
                              "q": ["Which movies did {x} direct?", "What films did {x} direct?"],
                              "count": ["How many movies did {x} direct?"]},
        ("DIRECTED", "in"): {"np": "the directors of {x}",
                             "q": ["Who directed {x}?", "Who was the director of {x}?"]},
        ("PRODUCED", "out"): {"np": "the movies {x} produced", "q": ["Which movies did {x} produce?"],
                              "count": ["How many movies did {x} produce?"]},
        ("PRODUCED", "in"): {"np": "the producers of {x}", "q": ["Who produced {x}?"]},
        ("WROTE", "out"): {"np": "the movies {x} wrote", "q": ["Which movies did {x} write?"]},
        ("WROTE", "in"): {"np": "the writers of {x}", "q": ["Who wrote {x}?"]},
        ("REVIEWED", "out"): {"np": "the movies {x} reviewed", "q": ["Which movies did {x} review?"]},
        ("REVIEWED", "in"): {"np": "the reviewers of {x}", "q": ["Who reviewed {x}?"]},
        ("FOLLOWS", "out"): {"np": "the people {x} follows", "q": ["Who does {x} follow?"]},
        ("FOLLOWS", "in"): {"np": "the followers of {x}", "q": ["Who follows {x}?"]},
    },
    "northwind": {
        ("SUPPLIES", "out"): {"np": "the products supplied by {x}",
                              "q": ["Which products does {x} supply?", "List all products supplied by {x}.",
                                    "What products are supplied by {x}?"],
                              "count": ["How many products does {x} supply?"]},
        ("SUPPLIES", "in"): {"np": "the suppliers of {x}", "q": ["Who supplies {x}?", "Which supplier supplies {x}?"]},
        ("PART_OF", "out"): {"np": "the category of {x}",
                             "q": ["Which category is {x} in?", "What category does {x} belong to?"]},
        ("PART_OF", "in"): {"np": "the products in the {x} category",
                            "q": ["Which products are in the {x} category?", "List all products in the category {x}.",
                                  "What products belong to {x}?"],
                            "count": ["How many products are in the {x} category?"]},
        ("PURCHASED", "out"): {"np": "the orders placed by {x}",
                               "q": ["Which orders did {x} place?", "List the orders placed by {x}."],
                               "count": ["How many orders did {x} place?"]},
        ("ORDERS", "out"): {"np": "the products in {x}", "q": ["Which products are in {x}?"]},
        ("ORDERS", "in"): {"np": "the orders containing {x}", "q": ["Which orders contain {x}?"],
                           "count": ["How many orders include {x}?"]},
    },
    "nobel": {
        ("WON", "out"): {"np": "the prizes {x} won", "q": ["Which prizes did {x} win?"],
                         "count": ["How many Nobel prizes did {x} win?"]},
        ("AFFILIATED_WITH", "out"): {"np": "the institutions affiliated with {x}",
                                     "q": ["Which institutions was {x} affiliated with?", "Where did {x} work?"]},
        ("AFFILIATED_WITH", "in"): {"np": "the laureates affiliated with {x}",
                                    "q": ["Which laureates were affiliated with {x}?", "Who worked at {x}?"],
                                    "count": ["How many laureates were affiliated with {x}?"]},
        ("BORN_IN", "out"): {"np": "the birthplace of {x}", "q": ["Where was {x} born?", "In which city was {x} born?"]},
        ("BORN_IN", "in"): {"np": "the laureates born in {x}",
                            "q": ["Which laureates were born in {x}?", "Who was born in {x}?"],
                            "count": ["How many laureates were born in {x}?"]},
        ("IS_LOCATED_IN", "out"): {"np": "the city of {x}", "q": ["In which city is {x} located?"]},
        ("IS_LOCATED_IN", "in"): {"np": "the institutions in {x}", "q": ["Which institutions are located in {x}?"]},
        ("IS_CITY_IN", "out"): {"np": "the country of {x}", "q": ["In which country is {x}?"]},
        ("IS_CITY_IN", "in"): {"np": "the cities in {x}", "q": ["Which cities are in {x}?"],
                               "count": ["How many cities are in {x}?"]},
        ("IS_COUNTRY_IN", "out"): {"np": "the continent of {x}", "q": ["On which continent is {x}?"]},
        ("IS_COUNTRY_IN", "in"): {"np": "the countries in {x}", "q": ["Which countries are in {x}?"],
                                  "count": ["How many countries are in {x}?"]},
    },
}

ATTR: dict[tuple[str, str], list[str]] = {
    ("Movie", "released"): ["When was {x} released?", "What year was {x} released?"],
    ("Movie", "tagline"): ["What is the tagline of {x}?"],
    ("Person", "born"): ["When was {x} born?", "What year was {x} born?"],
    ("Product", "unitPrice"): ["What is the unit price of {x}?", "How much does {x} cost?"],
    ("Product", "unitsInStock"): ["How many units of {x} are in stock?"],
    ("Supplier", "country"): ["Which country is {x} from?", "What country is {x} located in?"],
    ("Supplier", "city"): ["In which city is {x} located?"],
    ("Customer", "country"): ["Which country is {x} from?"],
    ("Customer", "city"): ["In which city is {x} located?"],
    ("Laureate", "birthYear"): ["In which year was {x} born?"],
    ("Laureate", "birthDate"): ["When was {x} born?"],
    ("Laureate", "gender"): ["What is the gender of {x}?"],
}

FILTER: dict[tuple[str, str], dict[str, list[str]]] = {
    ("Movie", "released"): {">": ["Which movies were released after {v}?"], "<": ["Which movies were released before {v}?"]},
    ("Person", "born"): {">": ["Which people were born after {v}?"], "<": ["Who was born before {v}?"]},
    ("Laureate", "birthYear"): {">": ["Which laureates were born after {v}?"], "<": ["Which laureates were born before {v}?"]},
    ("Prize", "awardYear"): {">": ["Which prizes were awarded after {v}?"], "<": ["Which prizes were awarded before {v}?"]},
    ("Product", "unitsInStock"): {">": ["Which products have more than {v} units in stock?"],
                                  "<": ["Which products have less than {v} units in stock?"]},
}

COMPARE: dict[tuple[str, str], dict[bool, list[str]]] = {
    ("Person", "born"): {False: ["Who is older, {x} or {y}?"], True: ["Who is younger, {x} or {y}?"]},
    ("Movie", "released"): {False: ["Which was released first, {x} or {y}?"],
                            True: ["Which was released later, {x} or {y}?"]},
    ("Laureate", "birthYear"): {False: ["Who was born first, {x} or {y}?"]},
}


def noun(label: str) -> str:
    return split_camel(label)


def plural(label: str) -> str:
    word = noun(label)
    if word == "person":
        return "people"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


WORDS = {"born": "birth year", "released": "release year"}


def words(prop: str) -> str:
    return WORDS.get(prop) or split_camel(prop)


def rel_phrases(domain: str, rel: str, direction: str, target: str) -> dict[str, list[str] | str]:
    """The table entry for ``(rel, direction)``, or phrasings built from the schema names."""
    known = REL.get(domain, {}).get((rel, direction))
    if known:
        return known
    verb, t = rel.lower().replace("_", " "), plural(target)
    if direction == "out":
        np = f"the {t} that {{x}} {verb}"
    else:
        np = f"the {t} that {verb} {{x}}"
    return {"np": np, "q": [f"What are {np}?", f"List {np}."], "count": [f"What is the number of {np}?"]}
