"""The `recdiv` command. Each area defines its subcommands in its own `cli` module (a `register`
function adding parsers to the subparsers); this module only assembles them and turns recdiv's errors
into one clear line on stderr and exit status 2."""

from __future__ import annotations

import argparse
import importlib
import sys

from recdiv.errors import RecdivError

# (module, what it adds) — every module exposes `register(subparsers)`.
COMMAND_MODULES = [
    "recdiv.data.cli",  # data info, data fetch
    "recdiv.algorithms.cli",  # recommend
    "recdiv.diversifiers.cli",  # rerank
    "recdiv.eval.cli",  # eval
    "recdiv.eval.compare_cli",  # compare
    "recdiv.eval.axioms_cli",  # axioms
    "recdiv.experiment.cli",  # run, report, demo
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="recdiv", description="recdiv: recommender baselines, diversifiers and evaluation"
    )
    version = importlib.import_module("recdiv").__version__
    parser.add_argument("--version", action="version", version=f"recdiv {version}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        rc = args.func(args)
    except RecdivError as e:
        print(f"recdiv: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("recdiv: interrupted", file=sys.stderr)
        return 130
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())
