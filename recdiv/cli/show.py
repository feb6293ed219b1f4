"""`recdiv show`: one user's list of a TREC run in the terminal, with titles and aspects (and what changed against a
baseline run).

    recdiv show RUN --user U [--dataset NAME | --items ITEMS.tsv] [--baseline RUN] [--qrels QRELS] [-k K]

Titles and aspects come from a dataset (its titles and first item attribute, genres or tags) or from the items file
`recdiv data export` writes (items.tsv: item, title, aspects). Item ids are matched as text, so the run's "50" is
MovieLens item 50.
"""

from __future__ import annotations

import argparse
import sys

from recdiv.cli.options import Paths, positive_int
from recdiv.errors import ConfigError


def configure_show(p: argparse.ArgumentParser) -> None:
    p.description = __doc__
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("run", help="run: TREC text (user Q0 item rank score tag) or a CSV, TSV, Parquet or Arrow table "
                               "(by extension)")
    p.add_argument("--user", required=True, help="the user whose list to show (id as in the run)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--dataset", help="dataset name or folder giving titles and aspects (ml-100k, ...)")
    src.add_argument("--items", metavar="TSV", help="items file of `recdiv data export` (item, title, aspects)")
    p.add_argument("--data-dir", metavar="DIR", help="folder holding datasets by name (with --dataset)")
    p.add_argument("--baseline", metavar="RUN", help="another run: mark the items that entered, moved or left")
    p.add_argument("--qrels", metavar="QRELS", help="test judgments: mark the relevant items (grade ≥ threshold)")
    p.add_argument("--rel-threshold", type=float, default=4.0, metavar="TAU", help="relevant ⇔ grade ≥ TAU (4)")
    p.add_argument("--order", choices=("score", "rank"), default="score",
                   help="list order: by score, ties by item id descending as trec_eval (default), or by rank")
    p.add_argument("-k", type=positive_int, default=None, help="show the top k only")
    p.set_defaults(func=run_show, paths=Paths(("run", "items", "baseline", "qrels")))


def _list(path: str, user: str, order: str) -> list[str]:
    from recdiv.data.formats import read_run
    from recdiv.data.tables import rankings_of, shared_vocab

    table = read_run(path)
    users, items = shared_vocab(table["user"]), shared_vocab(table["item"])
    if user not in users:
        sample = ", ".join(str(u) for u in users.ids[:5])
        raise ConfigError(f"{path}: no list for user {user!r} (users of this run: {sample}, …)")
    r = rankings_of(table, users, items, order=order)
    row = list(r.users).index(int(users.lookup([user])[0]))
    got = r.items[row]
    return [str(x) for x in items.id_of(got[got >= 0])]


def _items(args):
    from recdiv.data.items import Items, read_items_tsv

    if args.items:
        return read_items_tsv(args.items)
    if args.dataset:
        from recdiv.aspects.build import space_from_attribute
        from recdiv.data.load import load_dataset

        dataset = load_dataset(args.dataset, args.data_dir)
        attribute = next((a for a in ("genres", "tags") if a in dataset.attributes), None)
        return Items.of(dataset, space_from_attribute(dataset, attribute) if attribute else None)
    return None


def run_show(args) -> int:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from recdiv.data.items import clean

    user = clean(args.user)
    shown = _list(args.run, user, args.order)[: args.k]
    base = _list(args.baseline, user, args.order)[: args.k or None] if args.baseline else None
    items = _items(args)
    grades = {}
    if args.qrels:
        from recdiv.data.formats import read_qrels

        q = read_qrels(args.qrels).frame()
        mine = q[q["user"].astype(str) == user]
        grades = dict(zip(mine["item"].astype(str), mine["grade"].astype(float)))
    table = Table(title=Text(f"user {user}: {clean(args.run)}" + (f" against {clean(args.baseline)}" if base else "")),
                  show_header=True, header_style="bold")
    for col, justify in [("#", "right"), ("item", "right"), ("title", "left"), ("aspects", "left")]:
        table.add_column(col, justify=justify, overflow="fold")
    if grades or args.qrels:
        table.add_column("relevant", justify="center")
    if base is not None:
        table.add_column("baseline", justify="left")
    where = {item: r for r, item in enumerate(base or [])}
    for r, item in enumerate(shown, 1):
        title, aspects = items.describe(item) if items is not None else (item, ())
        row = [str(r), Text(clean(item)), Text(title), Text(", ".join(aspects))]
        if grades or args.qrels:
            g = grades.get(item)
            row.append("✓" if g is not None and g >= args.rel_threshold else "·" if g is not None else "")
        if base is not None:
            b = where.get(item)
            row.append("new" if b is None else "=" if b + 1 == r else f"was {b + 1}")
        table.add_row(*row)
    console = Console(highlight=False)
    console.print(table)
    if base is not None:
        kept = set(shown)
        left = [(r, item) for r, item in enumerate(base, 1) if item not in kept]
        if left:
            console.print(Text("left the list: " + "; ".join(
                f"{(items.describe(i)[0] if items is not None else i)} (was {r})" for r, i in left)))
    if not shown:
        print(f"recdiv show: user {user} has an empty list in {args.run}", file=sys.stderr)
    return 0
