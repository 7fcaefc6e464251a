"""``kgqa cache inspect`` and ``kgqa cache purge``: an operator's view of the plan cache, and its removal.

``inspect`` lists the stored plans (id, domain, aspect, provenance, demoted, compiler code version, hits, the
question and its Cypher) with filters; ``purge`` deletes the plans matching its filters (at least one filter:
``--id``, ``--domain``, ``--provenance``, ``--demoted``, ``--stale`` for plans verified by other compiler code).
A purged plan can be learned again; to keep a plan from coming back, demote it (a thumbs down) instead.
"""

from __future__ import annotations

import argparse
import json

from kgqa.settings import Settings


def _open(settings: Settings):
    from kgqa.cache.store import open_plan_cache
    from kgqa.planner.version import compiler_version

    return open_plan_cache(settings, code_version=compiler_version())


def _filters(args) -> dict:
    return {"ids": args.id or None, "domain": args.domain, "provenance": args.provenance,
            "demoted": True if args.demoted else (False if args.live else None), "stale_code": args.stale}


def _matching(cache, f: dict) -> list:
    want = None if f["ids"] is None else set(f["ids"])
    return [e for e in cache.entries(f["domain"])
            if (want is None or e.id in want) and (f["provenance"] is None or e.provenance == f["provenance"])
            and (f["demoted"] is None or e.demoted == f["demoted"])
            and (not f["stale_code"] or e.code_version != cache.code_version)]


def cmd_inspect(args, settings: Settings) -> int:
    """Prints the matching plans (a table, or JSON lines with ``--json``); returns 0."""
    with _open(settings) as cache:
        found = sorted(_matching(cache, _filters(args)), key=lambda e: e.id)
        if args.limit:
            found = found[-args.limit:]
        if args.json:
            for e in found:
                print(json.dumps({k: v for k, v in e.to_dict().items() if k not in ("isr",)}, default=str))
            return 0
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"plan cache: {len(found)} plans (compiler {cache.code_version})")
        for col in ("id", "domain", "aspect", "provenance", "demoted", "code", "hits", "question", "cypher"):
            table.add_column(col, overflow="fold")
        for e in found:
            table.add_row(str(e.id), e.domain, e.aspect, e.provenance, "yes" if e.demoted else "",
                          e.code_version or "?", str(e.hits), e.question, e.cypher)
        Console().print(table)
    return 0


def cmd_purge(args, settings: Settings) -> int:
    """Deletes the matching plans and prints how many; returns 2 when no filter was given."""
    f = _filters(args)
    if f["ids"] is None and f["domain"] is None and f["provenance"] is None and f["demoted"] is None \
            and not f["stale_code"]:
        print("cache purge: give at least one filter (--id, --domain, --provenance, --demoted/--live, --stale)")
        return 2
    with _open(settings) as cache:
        gone = cache.purge(f["ids"], domain=f["domain"], provenance=f["provenance"], demoted=f["demoted"],
                           stale_code=f["stale_code"])
        print(f"cache purge: {len(gone)} plans deleted" + (f" (ids {', '.join(str(e.id) for e in gone[:20])}"
                                                         f"{' ...' if len(gone) > 20 else ''})" if gone else ""))
    return 0


def add_parser(sub) -> None:
    """Registers ``kgqa cache inspect|purge`` on the CLI's subparsers."""
    s = sub.add_parser("cache", help="inspect or purge the plan cache")
    actions = s.add_subparsers(dest="action", required=True)
    for name, fn, help_ in (("inspect", cmd_inspect, "list stored plans"),
                            ("purge", cmd_purge, "delete stored plans (at least one filter)")):
        a = actions.add_parser(name, help=help_)
        a.add_argument("--id", type=int, action="append", help="a plan id (repeatable)")
        a.add_argument("--domain")
        a.add_argument("--provenance", choices=["prewarm", "online", "user"])
        g = a.add_mutually_exclusive_group()
        g.add_argument("--demoted", action="store_true", help="only demoted plans")
        g.add_argument("--live", action="store_true", help="only plans that are not demoted")
        a.add_argument("--stale", action="store_true", help="only plans verified by other compiler code")
        if name == "inspect":
            a.add_argument("--limit", type=int, default=0, help="the last N matching plans")
            a.add_argument("--json", action="store_true", help="one JSON object per plan")
        a.set_defaults(func=fn)


def parse(argv: list[str]) -> argparse.Namespace:
    """Parses ``cache ...`` arguments alone (tests)."""
    p = argparse.ArgumentParser(prog="kgqa")
    add_parser(p.add_subparsers(dest="command", required=True))
    return p.parse_args(argv)
