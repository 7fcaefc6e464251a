"""Nobel laureates (``nobel.json``) as a graph of laureates, prizes, institutions and places.

Design notes live in ``kg/domains/NOBEL_SCHEMA.md``. In short: places are keyed by their *current* names
(``cityNow``/``countryNow``) so one city is one node; the names a laureate's birthplace had at the time
of birth stay on the ``BORN_IN`` relationship. Dates keep the source's strings ('1943-00-00' is not a
valid DATE) beside integer years. Duplicate laureate records are merged by id.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kgqa.kg.dataset import Dataset, NodeTable, RelTable

SOURCE = "nobel.json"

LAUREATE = [("id", "STRING"), ("knownName", "STRING"), ("fullName", "STRING"), ("givenName", "STRING"),
            ("familyName", "STRING"), ("gender", "STRING"), ("birthDate", "STRING"), ("birthYear", "INT64"),
            ("deathDate", "STRING"), ("deathYear", "INT64")]
PRIZE = [("id", "STRING"), ("category", "STRING"), ("awardYear", "INT64"), ("dateAwarded", "STRING"),
         ("prizeAmount", "INT64"), ("prizeAmountAdjusted", "INT64")]
INSTITUTION = [("id", "STRING"), ("name", "STRING"), ("city", "STRING"), ("country", "STRING")]
CITY = [("id", "STRING"), ("name", "STRING"), ("country", "STRING")]
COUNTRY = [("name", "STRING")]
CONTINENT = [("name", "STRING")]


def prize_id(category: str, year: int) -> str:
    """'Physiology or Medicine', 1901 -> 'physiology-or-medicine-1901'."""
    return re.sub(r"[^a-z0-9]+", "-", category.lower()).strip("-") + f"-{year}"


def year_of(date: str | None) -> int | None:
    m = re.match(r"^(-?\d{3,4})", date or "")
    return int(m.group(1)) if m else None


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return value


def _int(value: Any) -> int | None:
    value = _clean(value)
    return None if value is None else int(value)


def join_id(*parts: str | None) -> str:
    return ", ".join(p for p in parts if p)


class _Builder:
    """Collects deduplicated nodes and relationships while walking the laureate records."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, dict]] = {k: {} for k in
                                                  ("Laureate", "Prize", "Institution", "City", "Country",
                                                   "Continent")}
        self.rels: dict[str, dict[tuple, dict]] = {k: {} for k in
                                                   ("WON", "AFFILIATED_WITH", "BORN_IN", "IS_LOCATED_IN",
                                                    "IS_CITY_IN", "IS_COUNTRY_IN")}

    def node(self, label: str, key: str, props: dict) -> str:
        current = self.nodes[label].setdefault(key, props)
        for k, v in props.items():  # fill gaps from later mentions, never overwrite
            if current.get(k) is None and v is not None:
                current[k] = v
        return key

    def rel(self, name: str, a: str, b: str, props: dict | None = None, *, key: tuple = ()) -> None:
        self.rels[name].setdefault((a, b, *key), {"_from": a, "_to": b, **(props or {})})

    def place(self, city: str | None, country: str | None, continent: str | None) -> str | None:
        """City/Country/Continent nodes (current names) and their links; returns the city id or None."""
        if continent:
            self.node("Continent", continent, {"name": continent})
        if country:
            self.node("Country", country, {"name": country})
            if continent:
                self.rel("IS_COUNTRY_IN", country, continent)
        if not city:
            return None
        city_id = join_id(city, country)
        self.node("City", city_id, {"id": city_id, "name": city, "country": country})
        if country:
            self.rel("IS_CITY_IN", city_id, country)
        return city_id

    def laureate(self, rec: dict) -> None:
        lid = str(rec["id"])
        known = _clean(rec.get("knownName"))
        full = _clean(rec.get("fullName"))
        given, family = _clean(rec.get("givenName")), _clean(rec.get("familyName"))
        known = known or full or join_id(given, family).replace(", ", " ") or None
        birth, death = _clean(rec.get("birthDate")), _clean(rec.get("deathDate"))
        self.node("Laureate", lid, {
            "id": lid, "knownName": known, "fullName": full or known, "givenName": given,
            "familyName": family, "gender": _clean(rec.get("gender")), "birthDate": birth,
            "birthYear": year_of(birth), "deathDate": death, "deathYear": year_of(death)})
        city_id = self.place(_clean(rec.get("birthPlaceCityNow")) or _clean(rec.get("birthPlaceCity")),
                             _clean(rec.get("birthPlaceCountryNow")) or _clean(rec.get("birthPlaceCountry")),
                             _clean(rec.get("birthPlaceContinent")))
        if city_id:
            self.rel("BORN_IN", lid, city_id, {"city": _clean(rec.get("birthPlaceCity")),
                                               "country": _clean(rec.get("birthPlaceCountry"))})
        for prize in rec.get("prizes") or []:
            self.prize(lid, prize)

    def prize(self, lid: str, p: dict) -> None:
        category, year = _clean(p["category"]), _int(p["awardYear"])
        pid = prize_id(category, year)
        self.node("Prize", pid, {"id": pid, "category": category, "awardYear": year,
                                 "dateAwarded": _clean(p.get("dateAwarded")),
                                 "prizeAmount": _int(p.get("prizeAmount")),
                                 "prizeAmountAdjusted": _int(p.get("prizeAmountAdjusted"))})
        self.rel("WON", lid, pid, {"portion": _clean(p.get("portion")),
                                   "motivation": _clean(p.get("motivation"))})
        for aff in p.get("affiliations") or []:
            name = _clean(aff.get("nameNow")) or _clean(aff.get("name"))
            if not name:
                continue
            city = _clean(aff.get("cityNow")) or _clean(aff.get("city"))
            country = _clean(aff.get("countryNow")) or _clean(aff.get("country"))
            iid = join_id(name, city) if city else join_id(name, country)
            self.node("Institution", iid, {"id": iid, "name": name, "city": city, "country": country})
            city_id = self.place(city, country, _clean(aff.get("continent")))
            if city_id:
                self.rel("IS_LOCATED_IN", iid, city_id)
            self.rel("AFFILIATED_WITH", lid, iid, {"awardYear": year, "category": category},
                     key=(year, category))


def source_files(data_dir: Path) -> list[Path]:
    return [Path(data_dir) / SOURCE]


def read(data_dir: Path) -> Dataset:
    records = json.loads((Path(data_dir) / SOURCE).read_text(encoding="utf-8"))
    b = _Builder()
    for rec in records:
        b.laureate(rec)
    columns = {"Laureate": LAUREATE, "Prize": PRIZE, "Institution": INSTITUTION, "City": CITY,
               "Country": COUNTRY, "Continent": CONTINENT}
    keys = {"Laureate": "id", "Prize": "id", "Institution": "id", "City": "id", "Country": "name",
            "Continent": "name"}
    nodes = [NodeTable(label, cols, keys[label], list(b.nodes[label].values())) for label, cols in columns.items()]
    rel_shapes = {
        "WON": ("Laureate", "Prize", [("portion", "STRING"), ("motivation", "STRING")]),
        "AFFILIATED_WITH": ("Laureate", "Institution", [("awardYear", "INT64"), ("category", "STRING")]),
        "BORN_IN": ("Laureate", "City", [("city", "STRING"), ("country", "STRING")]),
        "IS_LOCATED_IN": ("Institution", "City", []),
        "IS_CITY_IN": ("City", "Country", []),
        "IS_COUNTRY_IN": ("Country", "Continent", []),
    }
    rels = [RelTable(name, f, t, cols, list(b.rels[name].values())) for name, (f, t, cols) in rel_shapes.items()]
    return Dataset(nodes, rels)
