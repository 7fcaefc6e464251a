"""Small helpers shared by the benchmarks: scratch KGQA homes, summary statistics, Markdown tables, paths and
commands as reports write them, and the ``name key=value ...`` last line that ``kgqa bench all`` collects."""

from __future__ import annotations

import math
import os
import re
import shutil
import statistics
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kgqa.settings import REPO_ROOT

_PAIR = re.compile(r"([A-Za-z_][\w.\-]*)=(\S*)")
_NUMERIC = re.compile(r"^([+-]?\d[\d,]*(\.\d+)?%?|na)$")


ARTIFACTS = ("vector_memory",)  # read-only state built by `kgqa load`, copied into scratch homes


def scratch_home(graphs_dir: Path, prefix: str = "kgqa-bench-", state_from: Path | None = None,
                 artifacts_from: Path | None = None) -> Path:
    """A fresh temporary KGQA home whose ``graphs`` is a symlink to ``graphs_dir`` (read-only use) and whose
    ``state`` is empty, or a copy of ``state_from``; the load-time artifacts (:data:`ARTIFACTS`, e.g. the
    vector memory) of the state folder ``artifacts_from`` are copied in, so the service runs as configured
    while its plan cache and other learned state start from scratch."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    (home / "graphs").symlink_to(Path(graphs_dir).resolve(), target_is_directory=True)
    state = home / "state"
    if state_from is not None and Path(state_from).is_dir():
        shutil.copytree(state_from, state)
    else:
        state.mkdir()
    for name in ARTIFACTS if artifacts_from is not None else ():
        src = Path(artifacts_from) / name
        if src.is_dir() and not (state / name).exists():
            shutil.copytree(src, state / name)
    return home


def artifacts_note(state_dir: Path) -> str:
    """Which load-time artifacts a state folder holds, for the reports."""
    have = [name for name in ARTIFACTS if (Path(state_dir) / name).is_dir()]
    missing = [name for name in ARTIFACTS if name not in have]
    return (f"with {', '.join(have)}" if have else "") + (" " if have and missing else "") + \
        (f"without {', '.join(missing)} (not built under $KGQA_HOME/state)" if missing else "")


def remove_home(home: Path) -> None:
    """Delete a scratch home made by :func:`scratch_home` (the graphs symlink, never its target)."""
    link = home / "graphs"
    if link.is_symlink():
        link.unlink()
    shutil.rmtree(home, ignore_errors=True)


def percentile(values: Iterable[float], q: float, *, empty: float = 0.0) -> float:
    """The ``q``-th percentile (0 < q <= 100) of some values, in any order, by the **nearest-rank** rule:
    the smallest value with at least ``q`` % of the values at or below it, i.e. the ``ceil(q/100 * n)``-th
    smallest. It is always one of the values (no interpolation between neighbours, unlike
    ``numpy.percentile``'s default). ``empty`` is returned when there are no values.

    The one percentile of the benchmarks and the scorer (p95, p99). Their p50 figures are
    ``statistics.median`` (the mean of the two middle values for an even count), not this function."""
    xs = sorted(float(v) for v in values)
    if not xs:
        return empty
    rank = max(1, math.ceil(q / 100 * len(xs)))
    return xs[min(rank, len(xs)) - 1]


def summarize(values: Iterable[float]) -> dict[str, float]:
    """n, mean, p50 (median), p99 (:func:`percentile`, nearest rank) and max of some values."""
    xs = sorted(float(v) for v in values)
    if not xs:
        return {"n": 0, "mean": 0.0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    return {"n": len(xs), "mean": statistics.fmean(xs), "p50": statistics.median(xs),
            "p99": percentile(xs, 99), "max": xs[-1]}


def repo_path(path: str | Path, root: Path = REPO_ROOT) -> str:
    """``path`` as reports and ``evals/RESULTS.md`` name it: relative to the repository ``root`` when it lies
    inside it (``var/reports/20250102-030405/report.md``), else as given. Never a machine's absolute path to
    the checkout. A relative ``path`` is taken from the current directory."""
    absolute = Path(os.path.abspath(path))
    for candidate in (absolute, absolute.resolve()):
        try:
            return candidate.relative_to(Path(root).resolve()).as_posix()
        except ValueError:
            continue
    return str(path)


def command_line(prefix: str, argv: Iterable[str] | None, root: Path = REPO_ROOT) -> str:
    """A benchmark's command as its report shows it: ``prefix`` and the arguments, each absolute path argument
    (``/.../var/reports/x``, or ``--out=/...``) inside the repository written by :func:`repo_path`."""
    def shown(arg: str) -> str:
        if arg.startswith("--") and "=" in arg:
            flag, value = arg.split("=", 1)
            return f"{flag}={shown(value)}"
        return repo_path(arg, root) if os.path.isabs(arg) else arg

    return " ".join([prefix, *(shown(a) for a in argv or [])]).strip()


def fmt(value: Any, digits: int = 3) -> str:
    """A number for tables and key=value lines: fixed decimals, ``na`` for None/NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "na"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return re.sub(r"\s+", "_", str(value))


def key_value_line(name: str, pairs: Mapping[str, Any], digits: int = 3) -> str:
    """``name k1=v1 k2=v2`` (the last stdout line of every benchmark)."""
    return " ".join([name, *(f"{k}={fmt(v, digits)}" for k, v in pairs.items())])


def parse_key_value_line(line: str) -> tuple[str, dict[str, str]]:
    """Inverse of :func:`key_value_line`: (name, {key: raw value}); name is the first token without ``=``."""
    tokens = line.strip().split()
    name = tokens[0] if tokens and "=" not in tokens[0] else ""
    return name, {m.group(1): m.group(2) for m in _PAIR.finditer(line)}


def md_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], digits: int = 3) -> str:
    """A GitHub Markdown table; numbers right-aligned and formatted with :func:`fmt`."""
    rows = [list(r) for r in rows]
    align = ["---:" if rows and all(_numeric(r[i]) for r in rows) else ":---" for i in range(len(headers))]

    def cell(v: Any) -> str:
        return fmt(v, digits) if isinstance(v, (int, float)) else str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def _numeric(v: Any) -> bool:
    """A number, or text that reads as one (``12.5%``, ``+0.250``, ``1,280,000``, ``na``)."""
    if isinstance(v, bool):
        return False
    return isinstance(v, (int, float)) or bool(_NUMERIC.match(str(v)))


def as_percent(x: float) -> str:
    """A fraction as a percentage with one decimal for tables: ``0.1234`` -> ``12.3%``."""
    return f"{100 * x:.1f}%"
