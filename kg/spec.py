"""What the layers need to know about a graph: :class:`DomainSpec`, its naming and the words people use.

A spec is derived from the graph itself (:mod:`kgqa.kg.derive`) and completed by an optional annotations
file (:mod:`kgqa.kg.annotations`) through :func:`annotate`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

SPEC_FILE = "spec.json"  # the derived spec, written beside the graph when it is built


@dataclass(frozen=True)
class DomainSpec:
    """A graph's naming: keys, display and name properties per label, the router's description, the words
    people use for its schema (word -> ``Label``, ``Label.prop``, ``rel:TYPE[>Label]`` or
    ``Label.prop=value``), the label a bare "who" asks for and the properties a key without a name is
    composed of."""

    name: str
    description: str
    primary_keys: dict[str, str]  # label -> primary-key property
    display: dict[str, str]  # label -> property that renders a node in rows/answers
    name_props: dict[str, list[str]] = field(default_factory=dict)  # label -> props for entity linking
    words: dict[str, str] = field(default_factory=dict)
    who: str | None = None
    phrases: dict[str, Any] = field(default_factory=dict)  # how questions are phrased (pre-warm synthesis)
    key_parts: dict[str, list[str]] = field(default_factory=dict)  # label -> props its text key is made of
    measures: dict[str, str] = field(default_factory=dict)  # "Owner.name" -> arithmetic over Owner's properties
    complete: bool = False  # the graph holds every fact of the kinds it records (the annotations say so)

    def display_prop(self, label: str) -> str:
        """Returns the property that renders a node of ``label`` (its key when none is set)."""
        return self.display.get(label) or self.primary_keys[label]

    def to_dict(self) -> dict[str, Any]:
        """Returns the spec as plain JSON-able data."""
        return asdict(self)

    @classmethod
    def read(cls, path: str | Path) -> DomainSpec:
        """Returns the spec saved at ``path``."""
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))

    def write(self, path: str | Path) -> None:
        """Saves the spec at ``path`` as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False), encoding="utf-8")


def annotate(spec: DomainSpec, annotations: dict[str, Any]) -> DomainSpec:
    """Returns ``spec`` with what the (validated) annotations set: their values replace the derived ones
    label by label; words are added."""
    return replace(spec, description=annotations.get("description") or spec.description,
                   display=spec.display | annotations.get("display", {}),
                   name_props=spec.name_props | annotations.get("names", {}),
                   words=spec.words | annotations.get("words", {}),
                   who=annotations.get("who", spec.who), phrases=annotations.get("phrases", spec.phrases),
                   measures=spec.measures | annotations.get("measures", {}),
                   complete=annotations.get("complete", spec.complete))
