"""Words people use for each domain's labels, properties and relationships (KG annotations).

This is schema documentation, not answers: it says that "film" means ``Movie`` and "expensive" speaks of
``Product.unitPrice``. Everything not listed here is matched from the schema's own names (camelCase split,
plural forms) and, failing that, by embedding similarity — see :mod:`planner.lexicon`.
Targets: ``"Label"``, ``"Label.prop"``, ``"rel:TYPE"`` (optionally ``"rel:TYPE>Label"`` to also imply the
label at the far end, as "director" implies a Person along DIRECTED), or ``"Label.prop=value"`` for a word
that names a value ("women" is ``Laureate.gender = 'female'``).
"""

from __future__ import annotations

VOCAB: dict[str, dict[str, str]] = {
    "movies": {
        "film": "Movie", "films": "Movie", "movie": "Movie", "movies": "Movie", "picture": "Movie",
        "person": "Person", "people": "Person", "persons": "Person",
        "actor": "rel:ACTED_IN>Person", "actors": "rel:ACTED_IN>Person", "actress": "rel:ACTED_IN>Person",
        "cast": "rel:ACTED_IN>Person", "acted": "rel:ACTED_IN", "act": "rel:ACTED_IN", "starred": "rel:ACTED_IN",
        "star": "rel:ACTED_IN", "stars": "rel:ACTED_IN", "appeared": "rel:ACTED_IN", "appear": "rel:ACTED_IN",
        "played": "rel:ACTED_IN", "role": "ACTED_IN.roles", "roles": "ACTED_IN.roles", "character": "ACTED_IN.roles",
        "director": "rel:DIRECTED>Person", "directors": "rel:DIRECTED>Person", "directed": "rel:DIRECTED",
        "direct": "rel:DIRECTED",
        "producer": "rel:PRODUCED>Person", "producers": "rel:PRODUCED>Person", "produced": "rel:PRODUCED",
        "produce": "rel:PRODUCED",
        "writer": "rel:WROTE>Person", "writers": "rel:WROTE>Person", "wrote": "rel:WROTE", "written": "rel:WROTE",
        "write": "rel:WROTE", "screenwriter": "rel:WROTE>Person",
        "reviewer": "rel:REVIEWED>Person", "reviewers": "rel:REVIEWED>Person", "reviewed": "rel:REVIEWED",
        "review": "rel:REVIEWED", "reviews": "rel:REVIEWED", "rating": "REVIEWED.rating", "rated": "REVIEWED.rating",
        "follows": "rel:FOLLOWS", "follow": "rel:FOLLOWS", "followers": "rel:FOLLOWS>Person",
        "released": "Movie.released", "release": "Movie.released", "came out": "Movie.released",
        "tagline": "Movie.tagline", "born": "Person.born", "birth": "Person.born", "votes": "Movie.votes",
        "year": "Movie.released", "older": "Person.born", "oldest": "Person.born", "youngest": "Person.born",
    },
    "northwind": {
        "product": "Product", "products": "Product", "item": "Product", "items": "Product",
        "category": "Category", "categories": "Category",
        "supplier": "Supplier", "suppliers": "Supplier", "vendor": "Supplier", "vendors": "Supplier",
        "customer": "Customer", "customers": "Customer", "client": "Customer", "clients": "Customer",
        "order": "Order", "orders": "Order", "ordered": "rel:ORDERS", "purchased": "rel:PURCHASED",
        "bought": "rel:PURCHASED", "supplied": "rel:SUPPLIES", "supply": "rel:SUPPLIES", "supplies": "rel:SUPPLIES",
        "provide": "rel:SUPPLIES", "provides": "rel:SUPPLIES",
        "price": "Product.unitPrice", "expensive": "Product.unitPrice", "costly": "Product.unitPrice",
        "cheapest": "Product.unitPrice", "cheap": "Product.unitPrice", "cost": "Product.unitPrice",
        "stock": "Product.unitsInStock", "stocked": "Product.unitsInStock", "in stock": "Product.unitsInStock",
        "on order": "Product.unitsOnOrder", "reorder": "Product.reorderLevel", "reordered": "Product.reorderLevel",
        "discontinued": "Product.discontinued", "freight": "Order.freight",
        "ship city": "Order.shipCity", "shipped to": "Order.shipCountry", "ship country": "Order.shipCountry",
        "shipped": "Order.shippedDate", "quantity": "ORDERS.quantity", "discount": "ORDERS.discount",
        "city": "Customer.city", "country": "Customer.country", "region": "Customer.region",
        "placed": "Order.orderDate", "ordered on": "Order.orderDate", "order date": "Order.orderDate",
        "required": "Order.requiredDate", "required date": "Order.requiredDate",
        "phone": "Supplier.phone", "fax": "Supplier.fax", "contact title": "Customer.contactTitle",
    },
    "nobel": {
        "laureate": "Laureate", "laureates": "Laureate", "winner": "Laureate", "winners": "Laureate",
        "scientist": "Laureate", "scientists": "Laureate", "person": "Laureate", "people": "Laureate",
        "prize": "Prize", "prizes": "Prize", "award": "Prize", "awards": "Prize", "nobel": "Prize",
        "won": "rel:WON", "win": "rel:WON", "awarded": "rel:WON", "received": "rel:WON", "receive": "rel:WON",
        "motivation": "WON.motivation", "why": "WON.motivation", "share": "WON.portion", "portion": "WON.portion",
        "institution": "Institution", "institutions": "Institution", "university": "Institution",
        "universities": "Institution", "affiliated": "rel:AFFILIATED_WITH", "affiliation": "rel:AFFILIATED_WITH",
        "worked": "rel:AFFILIATED_WITH", "work": "rel:AFFILIATED_WITH",
        "born": "rel:BORN_IN", "birthplace": "rel:BORN_IN", "birth": "rel:BORN_IN",
        "city": "City", "cities": "City", "country": "Country", "countries": "Country",
        "continent": "Continent", "continents": "Continent",
        "category": "Prize.category", "year": "Prize.awardYear", "amount": "Prize.prizeAmount",
        "money": "Prize.prizeAmount", "gender": "Laureate.gender",
        # "Label.prop=value": the word names a value, and the condition comes with it
        "women": "Laureate.gender=female", "woman": "Laureate.gender=female", "female": "Laureate.gender=female",
        "men": "Laureate.gender=male", "man": "Laureate.gender=male", "male": "Laureate.gender=male",
        "died": "Laureate.deathYear", "death": "Laureate.deathYear",
    },
}

# Words for which label an unspecific "who" asks.
WHO_LABEL = {"movies": "Person", "northwind": "Customer", "nobel": "Laureate"}
