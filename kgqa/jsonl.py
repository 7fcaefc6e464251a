"""JSON Lines files: one JSON value per line, blank lines skipped, read as UTF-8.

The one reader of the package: question sets, gold files, predictions, batch files and the answer cache's
saved entries all come through :func:`numbered_jsonl` (or :func:`read_jsonl`). A line that is not JSON
raises :class:`JsonlError`, whose message names the file and the line (``path:line: not JSON (...)``);
callers that must exit turn it into ``SystemExit`` themselves. What a line must hold (fields, types) is
the caller's business.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class JsonlError(ValueError):
    """A line of a JSONL file that cannot be used; the message starts with ``path:line:``."""

    def __init__(self, path: str | Path, line: int, problem: str):
        super().__init__(f"{path}:{line}: {problem}")
        self.path, self.line, self.problem = path, line, problem


def numbered_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yields ``(line number, value)`` for each non-blank line of ``path`` (line numbers count from 1 and
    include blank lines, so they point into the file). Raises :class:`JsonlError` at the first line that
    is not JSON, ``OSError`` when the file cannot be read."""
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as err:
                raise JsonlError(path, n, f"not JSON ({err.msg})") from err
            yield n, value


def read_jsonl(path: str | Path) -> list[Any]:
    """Returns the values of every non-blank line of ``path``, in order (see :func:`numbered_jsonl`)."""
    return [value for _, value in numbered_jsonl(path)]
