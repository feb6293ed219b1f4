"""`recdiv explore`: a live, local web page to explore the accuracy–diversity trade-off (docs/teaching.md)."""

from __future__ import annotations

import argparse

DESCRIPTION = """Open a web page that shows, live, what a reranker does: a user's profile and lists (baseline and two
configurations side by side, with titles, aspects, test relevance, and the greedy objective's terms), the
population's accuracy, novelty, diversity and intent-aware measures with bootstrap intervals and paired tests, and
the trade-off curve over the reranker's parameter. Every control change recomputes with recdiv's own recommenders,
rerankers and measures; the page exports the view as an experiment TOML that `recdiv run` reproduces.

TARGET is a dataset name (ml-100k, ml-latest-small, hetrec2011-lastfm-2k, synthetic:small), a dataset folder
(also one written by `recdiv data export`), an experiment TOML file or an experiment's output folder; without it,
every dataset of the data folder is offered. The server listens on 127.0.0.1 only unless --host is given; any
other address needs the token printed at start (it is part of the printed link). Ctrl-C stops it."""


def configure_explore(p: argparse.ArgumentParser) -> None:
    from recdiv.explore.server import DEFAULT_PORT

    p.description = DESCRIPTION
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("target", nargs="?", metavar="TARGET", help="dataset, dataset folder, experiment TOML or "
                                                               "experiment output folder")
    p.add_argument("--split", metavar="SPEC", help="split to show first (default: the dataset's first, or "
                                                   "holdout:0.2)")
    p.add_argument("--data-dir", metavar="DIR", help="folder holding datasets by name (default: $RECDIV_DATA, "
                                                     "../shared/data, ~/.cache/recdiv/data)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this computer "
                                                       "only; any other address requires the printed token)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser (print the link only)")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE:CLASS",
                   help="a recommender or reranker of your own to offer (repeatable); requests cannot name others")
    p.set_defaults(func=run_explore)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is between 1 and 65535, got {port}")
    return port


def run_explore(args) -> int:
    import sys

    from recdiv.explore.server import check_port, plan, serve

    check_port(args.host, args.port)  # before any work: a port in use is said at once
    print("recdiv explore: loading …", file=sys.stderr)
    catalog, defaults = plan(args.target, split=args.split, data_dir=args.data_dir, plugins=tuple(args.plugin))
    serve(catalog, defaults, host=args.host, port=args.port, open_browser=not args.no_browser,
          log=lambda text: print(f"recdiv explore: {text}", file=sys.stderr))
    return 0
