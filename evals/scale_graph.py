"""A seeded lending-library graph of any size in the shared format (``schema.cypher`` + ``csv/``), with
template questions whose answers the generator knows.

Labels ``Author``, ``Book``, ``Publisher``, ``Genre``, ``Member``; relationships ``wroteBook``,
``publishedBy``, ``hasGenre`` and ``borrowedBook {loan_date, returned}``. For ``edges`` relationships there
are ``edges / 8`` books (one publisher and one genre each, one or two authors, the rest loans), a quarter
as many authors and half as many members. Names are realistic and unique within their label: authors are
first name + surname, members first name + initial + surname, titles "The <adjective> <noun> of <place>",
publishers "<surname> <house>". Same ``(edges, seed)``, same files, byte for byte.

    python -m kgqa.evals.scale_graph --edges 20000 --out DIR
"""

from __future__ import annotations

import argparse
import csv
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

GENERATOR_VERSION = "1"
SCHEMA = """\
CREATE NODE TABLE Author(author_id INT64, full_name STRING, birth_year INT64, nationality STRING, PRIMARY KEY (author_id));
CREATE NODE TABLE Publisher(publisher_id INT64, publisher_name STRING, country STRING, PRIMARY KEY (publisher_id));
CREATE NODE TABLE Genre(genre_name STRING PRIMARY KEY, description STRING);
CREATE NODE TABLE Book(book_id INT64, title STRING, published_year INT64, page_count INT64, in_print BOOLEAN, PRIMARY KEY (book_id));
CREATE NODE TABLE Member(member_id INT64, full_name STRING, joined_year INT64, home_city STRING, PRIMARY KEY (member_id));
CREATE REL TABLE wroteBook(FROM Author TO Book);
CREATE REL TABLE publishedBy(FROM Book TO Publisher);
CREATE REL TABLE hasGenre(FROM Book TO Genre);
CREATE REL TABLE borrowedBook(FROM Member TO Book, loan_date DATE, returned BOOLEAN);
"""
FIRST = """Ada Adrian Agnes Aiko Alan Alice Amara Amir Ana Andrea Anton Arjun Astrid Ayla Beatriz Ben Bianca Boris
Carla Carlos Chen Chiara Clara Conor Dalia Daniel Dara Diego Dmitri Elena Elias Elif Emil Emma Eric Esther Eva Farah
Felix Fiona Frida Gabriel Greta Hana Hannah Hassan Hugo Ida Ines Ingrid Irene Isaac Ivan Jack Jana Javier Jonas Jose
Julia Kai Karim Kate Kenji Kira Lara Laura Leo Leila Lena Liam Lina Lucas Lucia Luis Maja Marco Maria Marta Mateo Maya
Mei Mila Milan Mira Nadia Naomi Nia Nico Nina Noah Nora Olga Omar Oscar Paula Pedro Petra Priya Rafael Rania Ravi Rosa
Ruth Sami Sara Sean Sofia Sonia Stella Tara Teo Theo Tomas Uma Vera Victor Viktor Wei Yara Yusuf Zara Zoe Abel Bruno
Celia Dorian Edith Flora Gustav Helga Igor Jorge Kamal Lotte Magnus Nils Otto Pablo Quinn Rhea Selma Tobias Ulla
Vesna Wanda Xavier Yann Zeno Aurora Basil Cosima Dario Emre Fatima Gideon Heidi Imani""".split()
ROOTS = """Abbot Acker Alder Ash Bar Bell Birk Black Brad Brook Cald Carl Chal Clay Cole Corn Crane Dal Dean Elm Ells
Fair Fen Fern Gar Glen Gold Green Hal Har Hart Haw Hay Hol Ing Kel Ken Kings Lang Lind Mar Mill Mor Nor Oak Pem Red
Ros Rut Sand Sher Stan Stock Sum Thorn Wal West Whit Win Wood""".split()
SUFFIXES = ("son", "berg", "ley", "ton", "field", "wood", "ford", "man")
ADJECTIVES = """Silent Hidden Golden Broken Distant Burning Quiet Crimson Hollow Last Forgotten Secret Silver Endless
Wild Lost Pale Frozen Bright Dark Shining Bitter Gentle Restless Scarlet Iron Glass Paper Velvet Stone Winter Summer
Autumn Midnight Morning Northern Southern Eastern Western Ancient Little Long Narrow Open Painted Salt Sleeping
Stolen Sunken Twin Wandering Yellow Blue Green Amber Ashen Copper Drifting Fading Falling Hungry Invisible Lonely
Molten Patient Radiant Rising Shadowed Shattered Spinning Steady Tangled Trembling Vanishing Waking Whispering Woven
Wounded Young Azure Brave Calm Clever""".split()
NOUNS = """River Garden Tower Bridge Harbor Forest Mirror Lantern Island Orchard Valley Window Kingdom Letter Journey
Compass Voyage Festival Shore Mountain Library Cathedral Engine Clock Crown Feather Fortress Gate Horizon Meadow
Mill Ocean Palace Road Sea Storm Tide Village Well Wind Archive Atlas Beacon Cellar Chapel Citadel Cottage Desert
Echo Empire Estuary Fountain Frontier Glacier Grove Hearth Hill Kitchen Labyrinth Lake Marsh Market Moon Oasis
Observatory Passage Pilgrim Quarry Reef Sanctuary Scholar Station Summit Temple Theatre Thread Tundra Vineyard
Voice Wall Wanderer Weaver Winter""".split()
PLACES = """Avalon Babylon Carthage Delphi Eldoria Florence Galway Hamburg Istanbul Jericho Kyoto Lisbon Marrakesh
Nineveh Odessa Prague Quebec Ravenna Samarkand Toledo Utrecht Venice Warsaw Xanadu Yorkshire Zanzibar Antwerp Bergen
Cairo Dublin Edinburgh Fez Geneva Havana Ithaca Java Kerala Lima Madrid Naples Oslo Palermo Riga Seville Tangier
Uppsala Valencia Vienna Zurich Aleppo Bruges Cordoba Damascus Granada Lyon Malta Nantes Porto Siena Tallinn""".split()
HOUSES = ("House", "Press", "Books", "Publishing")
GENRES = """Fantasy|Science Fiction|Mystery|Thriller|Romance|Historical Fiction|Literary Fiction|Horror|Poetry|Drama
|Biography|Memoir|Travel|Cookery|Philosophy|History|Science|Mathematics|Economics|Politics|Art|Music|Nature
|Children's|Young Adult|Crime|Adventure|Western|Satire|Mythology|Religion|Psychology|Education|Sport|Humour
|Graphic Novel|Short Stories|Essays|Classics|Folklore""".replace("\n", "").split("|")
COUNTRIES = ("United States", "United Kingdom", "Canada", "Australia", "Ireland", "France", "Germany", "Japan",
             "Nigeria", "India", "Brazil", "Mexico", "Italy", "Spain", "Sweden", "Norway", "Poland", "Egypt")
NATIONALITIES = ("American", "British", "Canadian", "Australian", "Irish", "French", "German", "Japanese",
                 "Nigerian", "Indian", "Brazilian", "Mexican", "Italian", "Spanish", "Swedish", "Norwegian")
CITIES = ("Lagos", "Leeds", "Osaka", "Lyon", "Austin", "Porto", "Krakow", "Dublin", "Perth", "Pune", "Recife",
          "Bergen", "Turin", "Malmo", "Cork", "Quebec", "Seville", "Graz")
SURNAMES = [r.lower().capitalize() + s for r in ROOTS for s in SUFFIXES]


@dataclass
class Question:
    """One template question and its gold answer: the sorted values of the answer's first column."""

    template: str
    question: str
    answer: list


@dataclass
class GraphStats:
    edges: int
    seed: int
    nodes: dict
    rels: dict
    version: str = GENERATOR_VERSION


def sizes_for(edges: int) -> dict[str, int]:
    """Returns the node counts for ``edges`` relationships (books, authors, members, publishers)."""
    books = max(40, edges // 8)
    return {"Book": books, "Author": max(10, books // 4), "Member": max(10, books // 2),
            "Publisher": max(5, min(len(SURNAMES) * len(HOUSES), books // 200)), "Genre": len(GENRES)}


def _unique_combos(rng: np.random.Generator, n: int, *dims: int) -> np.ndarray:
    """Returns ``n`` distinct index tuples (n, len(dims)) drawn from the product of ``dims``."""
    total = int(np.prod(dims))
    if n > total:
        raise ValueError(f"{n} names asked, {total} possible")
    flat = rng.choice(total, size=n, replace=False)
    return np.stack(np.unravel_index(flat, dims), axis=1)


def _write(path: Path, header: list[str], rows) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def generate(edges: int, out: str | Path, *, seed: int = 7, questions: int = 4) -> tuple[GraphStats, list[Question]]:
    """Writes ``out/schema.cypher`` and ``out/csv/*.csv`` for about ``edges`` relationships; returns the stats
    and ``questions`` template questions of each kind with their answers (written to questions.json, with one
    more question of each kind to warm up on)."""
    out = Path(out)
    (out / "csv").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n = sizes_for(edges)
    nb, na, nm, npub, ng = n["Book"], n["Author"], n["Member"], n["Publisher"], n["Genre"]
    a_idx = _unique_combos(rng, na, len(FIRST), len(SURNAMES))
    authors = [f"{FIRST[f]} {SURNAMES[s]}" for f, s in a_idx]
    m_idx = _unique_combos(rng, nm, len(FIRST), 26, len(SURNAMES))
    members = [f"{FIRST[f]} {chr(65 + i)}. {SURNAMES[s]}" for f, i, s in m_idx]
    t_idx = _unique_combos(rng, nb, len(ADJECTIVES), len(NOUNS), len(PLACES))
    titles = [f"The {ADJECTIVES[a]} {NOUNS[b]} of {PLACES[c]}" for a, b, c in t_idx]
    p_idx = _unique_combos(rng, npub, len(SURNAMES), len(HOUSES))
    publishers = [f"{SURNAMES[s]} {HOUSES[h]}" for s, h in p_idx]

    _write(out / "csv" / "Author.csv", ["author_id", "full_name", "birth_year", "nationality"],
           ((i + 1, authors[i], int(y), NATIONALITIES[c]) for i, (y, c) in
            enumerate(zip(rng.integers(1900, 2000, na), rng.integers(0, len(NATIONALITIES), na)))))
    _write(out / "csv" / "Publisher.csv", ["publisher_id", "publisher_name", "country"],
           ((i + 1, publishers[i], COUNTRIES[c]) for i, c in enumerate(rng.integers(0, len(COUNTRIES), npub))))
    _write(out / "csv" / "Genre.csv", ["genre_name", "description"],
           ((g, f"Books of {g.lower()}") for g in GENRES))
    years, pages, in_print = rng.integers(1950, 2025, nb), rng.integers(90, 900, nb), rng.random(nb) < 0.8
    _write(out / "csv" / "Book.csv", ["book_id", "title", "published_year", "page_count", "in_print"],
           ((i + 1, titles[i], int(years[i]), int(pages[i]), "true" if in_print[i] else "false") for i in range(nb)))
    _write(out / "csv" / "Member.csv", ["member_id", "full_name", "joined_year", "home_city"],
           ((i + 1, members[i], int(y), CITIES[c]) for i, (y, c) in
            enumerate(zip(rng.integers(2000, 2025, nm), rng.integers(0, len(CITIES), nm)))))

    # each book: a first author (every author writes some), a second author for one book in five
    first = np.concatenate([np.arange(na), rng.integers(0, na, nb - na)]) if nb > na else np.arange(nb) % na
    rng.shuffle(first)
    second_of = rng.random(nb) < 0.2
    second = (first + 1 + rng.integers(0, na - 1, nb)) % na
    wrote = [(int(first[b]) + 1, b + 1) for b in range(nb)] + \
            [(int(second[b]) + 1, b + 1) for b in np.nonzero(second_of)[0]]
    wrote.sort()
    _write(out / "csv" / "wroteBook.csv", ["from", "to"], wrote)
    publisher = rng.integers(0, npub, nb)
    _write(out / "csv" / "publishedBy.csv", ["from", "to"], ((b + 1, int(publisher[b]) + 1) for b in range(nb)))
    genre = rng.integers(0, ng, nb)
    _write(out / "csv" / "hasGenre.csv", ["from", "to"], ((b + 1, GENRES[genre[b]]) for b in range(nb)))
    loans = max(0, edges - len(wrote) - 2 * nb)
    # popular books are borrowed more (Zipf-like), a member borrows a book at most once
    weights = 1.0 / np.arange(1, nb + 1) ** 0.6
    weights /= weights.sum()
    pairs = np.unique(np.stack([rng.integers(0, nm, loans), rng.choice(nb, size=loans, p=weights)], axis=1), axis=0)
    dates = np.datetime64("2015-01-01") + rng.integers(0, 3650, len(pairs))
    returned = rng.random(len(pairs)) < 0.9
    _write(out / "csv" / "borrowedBook.csv", ["from", "to", "loan_date", "returned"],
           ((int(m) + 1, int(b) + 1, str(d), "true" if r else "false")
            for (m, b), d, r in zip(pairs, dates, returned)))
    (out / "schema.cypher").write_text(SCHEMA, encoding="utf-8")

    stats = GraphStats(edges=len(wrote) + 2 * nb + len(pairs), seed=seed, nodes=n,
                       rels={"wroteBook": len(wrote), "publishedBy": nb, "hasGenre": nb, "borrowedBook": len(pairs)})
    drawn = _questions(rng, questions + 1, authors, titles, publishers, members, wrote, publisher, pairs)
    firsts = {q.template: q for q in reversed(drawn)}  # the first question of each template warms up
    warmup = list(firsts.values())
    qs = [q for q in drawn if q not in warmup]
    (out / "questions.json").write_text(json.dumps({"stats": asdict(stats), "questions": [asdict(q) for q in qs],
                                                    "warmup": [asdict(q) for q in warmup]}, indent=1),
                                        encoding="utf-8")
    return stats, qs


def _questions(rng, k, authors, titles, publishers, members, wrote, publisher, loans) -> list[Question]:
    """``k`` questions of each template, about entities picked at random (seeded); answers from the rows."""
    by_author: dict[int, list[int]] = {}
    by_book: dict[int, list[int]] = {}
    for a, b in wrote:
        by_author.setdefault(a - 1, []).append(b - 1)
        by_book.setdefault(b - 1, []).append(a - 1)
    borrowers: dict[int, list[int]] = {}
    for m, b in loans:
        borrowers.setdefault(int(b), []).append(int(m))
    per_publisher = np.bincount(publisher, minlength=len(publishers))
    out: list[Question] = []
    for a in rng.choice(len(authors), size=k, replace=False):
        out.append(Question("books_by_author", f"Which books did {authors[a]} write?",
                            sorted(titles[b] for b in by_author[int(a)])))
    for b in rng.choice(len(titles), size=k, replace=False):
        out.append(Question("author_of_book", f"Who wrote {titles[b]}?", sorted(authors[a] for a in by_book[int(b)])))
    for b in rng.choice(len(titles), size=k, replace=False):
        out.append(Question("publisher_of_book", f"Which publisher published {titles[b]}?",
                            [publishers[int(publisher[b])]]))
    for p in rng.choice(len(publishers), size=k, replace=False):
        out.append(Question("count_by_publisher", f"How many books were published by {publishers[p]}?",
                            [int(per_publisher[p])]))
    lent = sorted(borrowers)
    for b in rng.choice(len(lent), size=min(k, len(lent)), replace=False):
        book = lent[int(b)]
        out.append(Question("borrowers_of_book", f"Who borrowed {titles[book]}?",
                            sorted(members[m] for m in borrowers[book])))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edges", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    stats, qs = generate(args.edges, args.out, seed=args.seed)
    print(f"{args.out}: {sum(stats.nodes.values())} nodes, {stats.edges} relationships, {len(qs)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
