"""Cypher text: identifiers and literals as they must be written, and parameters written into a query."""

from __future__ import annotations

import re
from typing import Any

_PARAM = re.compile(r"\$(\w+)")


def literal(value: Any) -> str:
    """Returns ``value`` as a Cypher literal: quoted and escaped strings, ``true``/``false``, numbers."""
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def inline_params(cypher: str, params: dict[str, Any]) -> str:
    """Returns the query with each ``$name`` replaced by its value as a literal, for display and eval output.

    One pass over the query text: a value already written in is never scanned again, so a string value
    that contains ``$name`` stays as it is. Names without a value are left as they are."""
    return _PARAM.sub(lambda m: literal(params[m.group(1)]) if m.group(1) in params else m.group(0), cypher)
