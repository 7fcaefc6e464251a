"""Domain specifications: how each knowledge graph is named, keyed and displayed.

A :class:`DomainSpec` is the static knowledge other layers need about a domain's graph: the primary key
and display property of each node label (rows render a node as its display value), the name-like
properties the entity index covers, and a short description for the domain router.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class DomainSpec:
    name: str
    description: str
    primary_keys: dict[str, str]  # label -> primary-key property
    display: dict[str, str]  # label -> property that renders a node in rows/answers
    name_props: dict[str, list[str]] = field(default_factory=dict)  # label -> props for entity linking

    def display_prop(self, label: str) -> str:
        return self.display.get(label) or self.primary_keys[label]


MOVIES = DomainSpec(
    name="movies",
    description="Movies and the people who acted in, directed, produced, wrote or reviewed them; "
    "release years, taglines, roles, review ratings, who follows whom.",
    primary_keys={"Movie": "title", "Person": "name"},
    display={"Movie": "title", "Person": "name"},
    name_props={"Movie": ["title"], "Person": ["name"]},
)

NORTHWIND = DomainSpec(
    name="northwind",
    description="Northwind trading company: products, categories, suppliers, customers, orders, "
    "order lines with quantities, prices and discounts, shipping cities and countries.",
    primary_keys={"Product": "productID", "Category": "categoryID", "Supplier": "supplierID",
                  "Customer": "customerID", "Order": "orderID"},
    display={"Product": "productName", "Category": "categoryName", "Supplier": "companyName",
             "Customer": "companyName", "Order": "orderID"},
    name_props={"Product": ["productName"], "Category": ["categoryName"],
                "Supplier": ["companyName", "contactName"], "Customer": ["companyName", "contactName", "customerID"],
                "Order": ["orderID"]},
)

NOBEL = DomainSpec(
    name="nobel",
    description="Nobel Prize laureates: prizes by category and year with motivations and prize amounts, "
    "laureates' birth dates and places, affiliated institutions, cities, countries and continents.",
    primary_keys={"Laureate": "id", "Prize": "id", "Institution": "id", "City": "id",
                  "Country": "name", "Continent": "name"},
    display={"Laureate": "knownName", "Prize": "id", "Institution": "name", "City": "name",
             "Country": "name", "Continent": "name"},
    name_props={"Laureate": ["knownName", "fullName", "familyName"], "Institution": ["name"],
                "City": ["name"], "Country": ["name"], "Continent": ["name"], "Prize": ["category"]},
)

SPECS: dict[str, DomainSpec] = {s.name: s for s in (MOVIES, NORTHWIND, NOBEL)}
