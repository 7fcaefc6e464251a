"""The grammar reader's cue words, as tables: which lemmas ask for a count, an aggregate, an order, a comparison
or a string match, and which words carry no condition of their own. Lemmas are spaCy's (lower case)."""

from __future__ import annotations

# "the average price": the aggregate a noun or adjective names
AGGREGATES = {"average": "avg", "mean": "avg", "avg": "avg", "total": "sum", "sum": "sum", "maximum": "max",
              "max": "max", "minimum": "min", "min": "min", "combined": "sum", "overall": "sum"}

# superlatives: (descending?, aggregate when the property itself is asked: "the highest price" -> max)
SUPERLATIVES = {"most": True, "highest": True, "largest": True, "biggest": True, "greatest": True, "maximum": True,
                "latest": True, "newest": True, "heaviest": True, "longest": True, "best": True, "top": True,
                "recent": True, "least": False, "lowest": False, "smallest": False, "fewest": False,
                "minimum": False, "earliest": False, "shortest": False, "lightest": False, "cheapest": False,
                "worst": False, "high": True, "low": False, "large": True, "small": False, "many": True,
                "few": False, "little": False, "much": True, "heavy": True, "long": True, "short": False,
                "great": True, "big": True, "late": True, "early": False, "new": True, "cheap": False,
                "expensive": True, "tall": True, "tallest": True, "fast": True, "fastest": True, "slow": False,
                "slowest": False, "rich": True, "richest": True, "strong": True, "strongest": True}
# superlatives that rank a label by how many of another it has ("the publisher with the fewest books"), as lemmas
COUNT_SUPERLATIVES = frozenset({"most", "fewest", "few", "least", "little"})
# prepositions of doing a thing together: "who acted alongside Ann Lee" (others, on the same movie)
ALONGSIDE = frozenset({"alongside", "with", "beside"})
# superlatives of size that count a group a noun names ("the largest cast": the most actors), as lemmas
SIZE_SUPERLATIVES = frozenset({"large", "big", "small", "largest", "biggest", "smallest"})
# superlatives of time, as lemmas: "the latest book" is the one made (or joined, or borrowed) last
TIME_SUPERLATIVES = frozenset({"late", "latest", "early", "earliest", "new", "newest", "recent", "first", "last"})
# superlatives of age: "the oldest" is the highest age, or the earliest date of birth
AGE_SUPERLATIVES = {"oldest": True, "youngest": False, "old": True, "young": False}
AGE_WORDS = frozenset({"age"})
# what an adjective measures, as words in a property's name ("the heaviest relationship": its weight)
MEASURES = {"heavy": ("weight",), "light": ("weight",), "tall": ("height",), "high": ("height",),
            "long": ("length", "duration"), "short": ("length", "duration", "height"),
            "expensive": ("price", "cost", "fee"), "costly": ("price", "cost", "fee"), "cheap": ("price", "cost", "fee"),
            "fast": ("speed",), "slow": ("speed",), "big": ("size",), "large": ("size",),
            "small": ("size",), "rich": ("wealth", "net_worth"), "popular": ("popularity",), "strong": ("strength",),
            "young": ("age",), "old": ("age",), "cost": ("price", "cost"), "earn": ("salary", "wage", "income", "pay"),
            "pay": ("salary", "wage", "income", "pay"), "make": ("salary", "wage", "income", "pay")}
# the measures' adjectives that say less of it ("the most affordable": the lowest price)
LOW_MEASURES = frozenset({"light", "short", "cheap", "slow", "small", "young"})
# nouns that say "the edge" after a relationship's name ("the LIKES2 relationship weight")
EDGE_WORDS = frozenset({"relationship", "relation", "edge", "link", "connection", "interaction"})
EDGE_DIRECTIONS = frozenset({"incoming", "outgoing", "inbound", "outbound"})  # said of a relationship's edges
FREQUENT = frozenset({"common", "frequent", "popular", "frequently", "commonly", "often", "usual"})
OCCUR_VERBS = frozenset({"occur", "appear", "happen"})  # verbs that say only that a value is there ("occurs the most")

# comparisons written before a number: (words, operator); the longest written first wins
COMPARATORS = [
    (("greater", "than", "or", "equal", "to"), ">="), (("more", "than", "or", "equal", "to"), ">="),
    (("less", "than", "or", "equal", "to"), "<="), (("higher", "than", "or", "equal", "to"), ">="),
    (("larger", "than", "or", "equal", "to"), ">="), (("bigger", "than", "or", "equal", "to"), ">="),
    (("lower", "than", "or", "equal", "to"), "<="), (("smaller", "than", "or", "equal", "to"), "<="),
    (("fewer", "than", "or", "equal", "to"), "<="), (("at", "least"), ">="), (("at", "most"), "<="),
    (("no", "less", "than"), ">="), (("no", "more", "than"), "<="), (("not", "less", "than"), ">="),
    (("not", "more", "than"), "<="), (("greater", "than"), ">"), (("more", "than"), ">"), (("higher", "than"), ">"),
    (("larger", "than"), ">"), (("bigger", "than"), ">"), (("older", "than"), ">"), (("longer", "than"), ">"),
    (("heavier", "than"), ">"), (("later", "than"), ">"), (("less", "than"), "<"), (("fewer", "than"), "<"),
    (("lower", "than"), "<"), (("smaller", "than"), "<"), (("younger", "than"), "<"), (("shorter", "than"), "<"),
    (("in", "or", "after"), ">="), (("in", "or", "before"), "<="), (("on", "or", "after"), ">="),
    (("on", "or", "before"), "<="), (("earlier", "than"), "<"), (("lighter", "than"), "<"), (("above",), ">"), (("over",), ">"),
    (("exceeding",), ">"), (("exceed",), ">"), (("below",), "<"), (("under",), "<"), (("after",), ">"),
    (("before",), "<"), (("prior", "to"), "<"), (("since",), ">="), (("exactly",), "="), (("only",), "="), (("equal", "to"), "="), (("equals",), "="),
    (("greater",), ">"), (("larger",), ">"), (("higher",), ">"), (("bigger",), ">"), (("less",), "<"), (("fewer",), "<"),
    (("lower",), "<"), (("smaller",), "<"),  # "whose enrollment is greater 18000": "than" left out
    (("not",), "<>"), (("but", "no"), "<>"), (("but", "never"), "<>"), (("other", "than"), "<>"), (("except",), "<>"), (("outside",), "<>"),
]
# a comparison written after the number: "100 or higher"
TRAILING_COMPARATORS = [(("or", "more"), ">="), (("or", "higher"), ">="), (("or", "greater"), ">="),
                        (("or", "above"), ">="), (("or", "over"), ">="), (("or", "less"), "<="),
                        (("or", "fewer"), "<="), (("or", "lower"), "<="), (("or", "below"), "<="),
                        (("or", "under"), "<="), (("or", "older"), ">="), (("or", "younger"), "<="),
                        (("or", "old"), ">="), (("or", "young"), "<="),
                        (("or", "after"), ">="), (("or", "later"), ">="), (("or", "before"), "<="),
                        (("or", "earlier"), "<="), (("or", "prior"), "<=")]

# trailing comparisons that are also prepositions: they close the clause ("2005 or after"), else they open the
# next condition ("before 2000 or after the year 2010")
PREPOSED = frozenset({"after", "before", "prior"})
RELATIVES = frozenset({"who", "whose", "which", "that", "where", "when", "whom"})  # words that open a relative clause

# words before a noun that say which or how many of it, and nothing of what it is ("all the", "each")
DETERMINERS = frozenset({"the", "all", "a", "an", "each", "every"})

# words that ask for what names a node (its display property), whatever property names end in them
NAMING_WORDS = frozenset({"name", "title", "number", "id", "count"})

# string matches: the lemma before a quoted value and the operator it asks for
STRING_CUES = {"contain": "CONTAINS", "include": "CONTAINS", "like": "CONTAINS", "substring": "CONTAINS",
               "substre": "CONTAINS",  # the parser's lemma of "substring" read as a verb ("has the substring 'Ha'")
               "start": "STARTS WITH", "begin": "STARTS WITH", "end": "ENDS WITH", "finish": "ENDS WITH",
               "prefix": "STARTS WITH", "suffix": "ENDS WITH", "letter": "CONTAINS", "mention": "CONTAINS"}

# a figure over every node of a label that a property is compared with ("above the average budget")
OVERALL = {"average": "avg", "mean": "avg"}
# a figure said after "than": "less than the largest salary", "more than the lowest revenue of any manufacturer"
EXTREMES = {"maximum": "max", "largest": "max", "highest": "max", "biggest": "max", "greatest": "max",
            "minimum": "min", "lowest": "min", "smallest": "min"}
# "than all engineers" (True: every one of them), "than some songs" (False: at least one)
QUANTIFIERS = {"all": True, "any": True, "every": True, "each": True, "some": False}

ORDER_WORDS = frozenset({"order", "sort", "rank", "arrange"})  # "ordered by", "sorted by", "in order of"
DESCENDING = frozenset({"descending", "descend", "decreasing", "decrease", "desc", "reverse", "high", "highest", "large", "largest",
                        "most", "big", "biggest", "great", "greatest"})
ASCENDING = frozenset({"ascending", "ascend", "increasing", "increase", "asc", "alphabetical", "alphabetic", "lexicographical",
                       "low", "lowest", "small", "smallest", "least", "chronological"})
EXPLICIT_WAYS = frozenset({"descending", "ascending", "decreasing", "increasing", "reverse"})  # "in descending order"
ALPHABETICAL = frozenset({"alphabetical", "alphabetically", "alphabetic", "lexicographical", "lexicographically"})
ORDER_ADVERBS = ALPHABETICAL | {"descending", "ascending"}
# words after which the asked properties end ("the maximum enrollment across all schools")
ENDS_ASKED = frozenset({"of", "for", "across", "among", "in", "by", "per", "with", "from", "at", "on", "to",
                        "who", "that", "which", "whose", "where"})
# what a ranking is by, said after the ranked noun ("the top 3 invoices by amount")
RANKED_BY = (("by",), ("base", "on"), ("in", "term", "of"), ("according", "to"))
GROUP_WORDS = frozenset({"each", "every", "per"})  # "for each city", "per country"
DISTINCT_WORDS = frozenset({"different", "distinct", "unique"})
# words that name a class of nodes, not one node: "the types of forms" lists each type once
CATEGORY_WORDS = frozenset({"type", "kind", "category", "class", "genre", "status", "sort"})
NEGATIONS = frozenset({"not", "no", "never", "without", "n't", "none"})
TOP_WORDS = frozenset({"top", "first"})
# nouns for the graph itself: "in the graph", "in the movie dataset", "in our database" say where, not which nodes
GRAPH_WORDS = frozenset({"graph", "dataset", "database", "db", "collection", "data", "kg", "catalog", "catalogue"})
WHERE_PREPOSITIONS = frozenset({"in", "within", "across", "throughout", "from"})

# words that ask, point or fill without naming anything ("Find all the ...", "Show me the ...", "records")
FILLER = frozenset("""
what which who whom whose where when how why be do have find list show give return tell display get identify
compute calculate
name names provide retrieve output fetch report select count me us i you we all the a an of in on at to for from
by with and or as that this those these there their its his her they them it any each every some both either
also please record records row rows entry entries table tables information info detail details data database
value values kind kinds type types different distinct unique respectively corresponding respective total
overall whole entire existing available known listed recorded stored along well s 's ? . , ; : ! - ( )
relationship relationships relation relations connection connections link links involve involved connect
connected exact information exist exists
""".split())

# filler words that may still name a property ("the name", "the type", "the count", "the value")
# nouns after a label that only say "its nodes, one by one" ("crew members", "staff entries")
INDIVIDUALS = frozenset({"member", "members", "individual", "individuals", "entry", "entries", "record", "records"})

# verbs of place that restate a join to where something is ("entities located in", "where the bank is based")
PLACE_VERBS = frozenset({"locate", "located", "base", "based", "situate", "situated", "headquarter", "headquartered"})
START_WORDS = frozenset({"begin", "start", "open", "opening", "created", "creation", "made"})  # a time that starts
BELONG_VERBS = frozenset({"belong"})  # "the county they belong to": a verb that says only that two nodes are linked
DWELL_VERBS = PLACE_VERBS | {"live", "reside", "stay"}  # verbs that say where a node is, restated by a place property

# words in the names of properties that say where a node is ("Where is the club located?": clublocation)
PLACE_WORDS = ("location", "city", "country", "place", "address", "region", "state", "site")

# words that multiply the number before them ("over $10 million")
MULTIPLIERS = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000, "k": 1_000, "m": 1_000_000,
               "mn": 1_000_000, "bn": 1_000_000_000}
# words in the names of properties that hold money, for an amount said with a currency and no property
MONEY_WORDS = ("amount", "price", "cost", "value", "salary", "budget", "fee", "payment", "total")
CURRENCY_SIGNS = frozenset({"$", "€", "£", "usd", "eur", "gbp", "dollar", "dollars", "euro", "euros"})

# adjectives that name a value of a sex or gender property, in the codes data writes it with ("female": 'F')
GENDERS = {"female": ("female", "f", "woman", "women"), "male": ("male", "m", "man", "men"),
           "women": ("female", "f", "woman", "women"), "men": ("male", "m", "man", "men"),
           "females": ("female", "f", "woman", "women"), "males": ("male", "m", "man", "men")}
GENDER_PROPS = ("sex", "gender")

# one name for the ways a unit is written, to tell properties by the unit the question says ("in USD": _in_dollars)
UNIT_NAMES = {"usd": "dollar", "dollars": "dollar", "$": "dollar", "eur": "euro", "euros": "euro", "€": "euro",
              "gbp": "pound", "pounds": "pound", "£": "pound", "meters": "meter", "metres": "meter", "metre": "meter",
              "m": "meter", "feet": "foot", "ft": "foot", "km": "kilometer", "kg": "kilogram", "lb": "pound",
              "lbs": "pound"}
# currency and units written after an amount ("over 1,000,000 USD"): they restate the number
UNITS = frozenset({"usd", "eur", "gbp", "dollar", "dollars", "euro", "euros", "percent", "%", "$", "€"})

# verbs that open a second sentence asking for more of the same nodes ("... ? Give me their names.")
ASK_VERBS = frozenset({"give", "list", "show", "find", "return", "tell", "provide", "report", "display", "what",
                       "compute", "calculate"})

NAMING_FILLER = frozenset({"name", "names", "count", "type", "types", "value", "values", "record", "records",
                           "detail", "details", "information", "info", "total", "data", "list", "entry",
                           "entries", "kind", "kinds", "link", "links", "relation", "relations"})

# filler words that, left unread, leave part of the question unanswered ("the types of games")
TELLING_FILLER = frozenset({"name", "names", "type", "types", "kind", "kinds", "count"})

# short words that change what is asked ("what else did X direct", "the other films"): read, or declined
SCOPE_WORDS = frozenset({"else", "other", "also", "same", "only", "again", "except", "besides", "too", "nor", "once",
                         "twice", "thrice"})

# verbs of being and having that join a noun to its own property ("whose age is", "with a weight of")
LIGHT_VERBS = frozenset({"be", "have", "has", "contain", "hold", "include", "get", "make", "go", "come"})
# participles that say a node was made, nothing of its own: "the orders placed", "reviews submitted", "claims filed"
MADE_PARTICIPLES = frozenset({"place", "make", "do", "submit", "create", "record", "register", "file", "issue", "log",
                              "enter", "post", "write"})
# a verb that says a node holds a property's value, its value "used" by the node ("payment methods used by customers")
USE_VERBS = frozenset({"use", "share", "produce"})

# generic head nouns after a property's own word that add nothing to it ("phone numbers": Phone, "fuel type":
# FuelType)
PROPERTY_HEADS = frozenset({"number", "name", "type", "kind"})
# nouns between a property's word and the value it is given, adding nothing ("a ship via code '3'", "option '1'")
VALUE_HEADS = frozenset({"code", "option", "value", "number"})
# words for "some other node" before a value it is named by ("the same department as someone with the first name Clara")
SOMEONE = frozenset({"someone", "somebody", "anyone", "anybody", "the", "a", "an", "one", "person", "with", "whose",
                     "name", "named", "called", "is", "of"})
# words before a value that keep the node it names out of the answer ("excluding Clara")
EXCLUDING = frozenset({"exclude", "excluding", "except", "besides"})
# nouns after the word of a property that holds numbers, adding nothing to it ("the enrollment size": Enrollment,
# "a freight cost": Freight)
NUMBER_HEADS = frozenset({"size", "amount", "value", "cost", "charge"})
# text nouns after the word of a property that holds text, adding nothing to it ("a quantity per unit description")
TEXT_HEADS = frozenset({"description", "text", "field", "entry", "string"})
# time nouns after the word of a property that holds a time, adding nothing to it ("their founding years": Founded)
TIME_HEADS = frozenset({"year", "date", "time", "day"})
# month names, and the words before one that say a date's month ("in August", "during the month of 'December'")
MONTHS = {m: i for i, ms in enumerate((("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
                                       ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
                                       ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
                                       ("december", "dec")), start=1) for m in ms}
MONTH_OPENERS = frozenset({"in", "during", "of", "for"})
# a quantifier over a joined label after "from" ("products from all categories"), or "every" after any
# preposition ("bookings for every court"): every one of them, a division no reading says
EVERY_WORDS = frozenset({"all", "every", "each"})
# units of a text's length ("titles longer than 20 characters")
LENGTH_UNITS = frozenset({"character", "letter", "char"})
# words after a superlative that rank one value each, not a figure added up ("the highest single rating")
SINGLE_WORDS = frozenset({"single", "individual"})

# verbs that say a node exists, made or recorded, and nothing more ("the bookings made", "how many payments were
# made", "films made before 2000": made in the year the node records; "customers who placed orders": theirs)
EXISTENCE_VERBS = frozenset({"make", "place", "create", "record", "register", "submit", "file", "issue", "happen", "occur"})

# words that compare ("before any wine from ...", "outside the state"): left unread, the comparison is lost
COMPARING = frozenset({"before", "after", "than", "above", "below", "over", "under", "between", "outside", "since",
                       "exceed", "exceeding"})
# modal verbs: "dorms that can accommodate 300 students" says a capacity, not the students there
MODALS = frozenset({"can", "could", "may", "might"})
# words of a relationship's name that say only that its ends are linked ("HAS_OWNER", "owner_of_boat")
LINK_WORDS = frozenset({"has", "have", "of", "to", "in", "for", "by", "with", "rel", "link", "links", "ref"})

# "the full name": the first and the last name properties, by the words of their names (a given name and a family name)
FULL_NAME = ("full", "complete", "whole")
NAME_PARTS = (frozenset({"first", "fname", "f", "given", "forename"}),
              frozenset({"last", "lname", "l", "family", "surname"}))

# words before a quoted text that make it a text searched for, whatever schema name it spells ("contain 'Party'")
TIMES = {"once": 1, "twice": 2, "thrice": 3}  # "more than once": how many times, as a count
LETTER_WORDS = frozenset({"letter"})  # "the letter M": the text after it, unquoted
WORD_WORDS = frozenset({"word", "phrase"})  # "the word FREEDOM": the word after it, unquoted
# verbs of a text searched for, the word after them (or after "with") unquoted: "a tagline that mentions love",
# "a family name starting with Mc"; "end in" only before a lower-case part ("names that end in son")
TEXT_VERBS = frozenset({"contain", "mention", "start", "begin", "end", "finish"})
SUBSTRING_WORDS = frozenset({"contain", "include", "like", "substring", "substre", "word", "letter", "start", "end",
                             "begin"})
# nouns for the asked label's own nodes, counted: "the parties with at least two records"
ROW_WORDS = frozenset({"record", "entry", "row"})

# words that say one doer does a second thing ("a film that they also directed", "a film they wrote themselves")
SAME_DOER_WORDS = frozenset({"also", "too", "themselves", "himself", "herself", "itself", "themself"})
# words about a time a property holds, with the words of the property names that hold it ("born": birthYear)
BIRTH_WORDS = frozenset({"born", "birth"})
DEATH_WORDS = frozenset({"death", "died"})
# text values that say yes or no: a property holding them is a flag written as text ("have wifi": 'Yes')
YES_NO_WORDS = frozenset({"yes", "no", "y", "n", "true", "false"})
# words after a property said as had, saying it is held ("suppliers that have a fax number listed", "on file")
HELD_WORDS = frozenset({"list", "record", "provide", "available", "number", "on", "file"})
# states said of nodes that hold a time of death: living ones have none ("laureates still alive"), dead ones one
LIVING_WORDS = frozenset({"alive", "living"})
DEAD_WORDS = frozenset({"dead", "deceased"})
TIME_CUES = {"born": BIRTH_WORDS, "birth": BIRTH_WORDS, "died": DEATH_WORDS, "death": DEATH_WORDS,
             "dead": DEATH_WORDS, "die": DEATH_WORDS, "dies": DEATH_WORDS, "alive": DEATH_WORDS,
             "living": DEATH_WORDS, "deceased": DEATH_WORDS, "released": frozenset({"released", "release"}),
             "release": frozenset({"released", "release"}), "published": frozenset({"published", "publication"}),
             "founded": frozenset({"founded", "foundation"})}
# two named nodes compared by a time ("Who is older, A or B?", "Was A released before B?"): a word's lemma ->
# (whether it compares ages, by the time of birth; the operator that holds when the first is so: older = born before)
PAIR_TIMES = {"old": (True, "<"), "elder": (True, "<"), "young": (True, ">"),
              "first": (False, "<"), "early": (False, "<"), "before": (False, "<"), "soon": (False, "<"),
              "last": (False, ">"), "late": (False, ">"), "after": (False, ">"), "recent": (False, ">")}
# two named nodes compared by how many of a label each reaches ("Has A acted in more films than B?"): the operator
# that holds when the first reaches so many more (or fewer)
PAIR_COUNTS = {"more": ">", "fewer": "<", "less": "<"}
# verbs that say when a thing began, restating the time compared ("Which came out first, A or B?")
START_VERBS = frozenset({"come", "appear", "premiere", "debut", "release", "bear", "publish", "found", "open", "start",
                         "begin", "launch", "out"})
# units of time a difference is counted in ("How many years older is A than B?")
TIME_UNITS = frozenset({"year", "years", "day", "days", "month", "months"})
