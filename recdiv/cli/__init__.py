"""The `recdiv` command: a lazy table of subcommands, and recdiv's errors as one line on stderr, exit status 2.

Every command lives in one module of this package, which defines `configure_<command>(parser)` (arguments and
`func`). Only the module of the command being run is imported, and modules import the heavy libraries (numpy,
pandas, scipy, numba, torch) inside their handlers, so that `recdiv --help` and `recdiv COMMAND --help` start
at once. `recdiv --help` lists the commands from `COMMANDS` without importing any of them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NamedTuple

from recdiv import __version__
from recdiv.errors import ConfigError, RecdivError


class Command(NamedTuple):
    module: str  # the module in recdiv.cli that defines configure_<name>
    help: str  # one line for `recdiv --help`


COMMANDS: dict[str, Command] = {
    "data": Command("recdiv.cli.data", "dataset information and downloads"),
    "recommend": Command("recdiv.cli.recommend", "fit a baseline recommender and write a TREC run for the test users"),
    "rerank": Command("recdiv.cli.rerank", "rerank a run's candidates with a diversifier (MMR, xQuAD, ...)"),
    "eval": Command("recdiv.cli.eval", "evaluate run files against qrels"),
    "compare": Command("recdiv.cli.compare", "paired significance tests between runs"),
    "convert": Command("recdiv.cli.convert", "convert runs and qrels between TREC text, CSV/TSV, Parquet and Arrow"),
    "axioms": Command("recdiv.cli.axioms", "check Parapar & Radlinski's axioms (Table 1) for metrics"),
    "meta": Command("recdiv.cli.meta", "meta-evaluation: discriminative power and robustness of measures over runs"),
    "run": Command("recdiv.cli.experiment", "run (or resume) an experiment described by a TOML file"),
    "report": Command("recdiv.cli.experiment", "rebuild summary tables and report.html from an output folder"),
    "demo": Command("recdiv.cli.experiment", "a complete experiment on the embedded synthetic dataset (offline)"),
    "show": Command("recdiv.cli.show", "a user's list of a run with titles and aspects (and changes against another)"),
    "explore": Command("recdiv.cli.explore", "a live web page: move a diversity weight, see lists and measures change"),
}


class UsageError(ConfigError):
    """A command-line usage error found by argparse (a missing argument, `--seed -1`, ...)."""


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised as recdiv's (one line on stderr, exit status 2) instead of usage + exit."""

    def error(self, message: str):
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; `command` (or every command when None) gets its full arguments, the others only their name."""
    parser = Parser(prog="recdiv", description="recdiv: recommender baselines, diversifiers and evaluation")
    parser.add_argument("--version", action="version", version=f"recdiv {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in COMMANDS.items():
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        if command is None or name == command:
            getattr(importlib.import_module(cmd.module), f"configure_{name}")(p)
    return parser


def _command(argv: list[str]) -> str | None:
    """The subcommand named in argv (the first word that is not an option), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


class Terminated(BaseException):
    """SIGTERM arrived (`kill`, a batch scheduler's time limit): raised in the main thread so that every `finally`
    runs — temporary partitions removed, half-written outputs discarded (recdiv.outputs.atomic_write). A
    BaseException like KeyboardInterrupt, so that no `except Exception` on the way swallows it."""


def _terminate(signum, frame) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    from recdiv.console import streams

    with streams():  # escaped for the terminal, any encoding, clean write errors (recdiv.console)
        return _main(sys.argv[1:] if argv is None else list(argv), console_script=argv is None)


def _main(argv: list[str], console_script: bool = False) -> int:
    from recdiv.console import PipeClosed

    command = _command(argv)
    if command is not None and command not in COMMANDS:
        import difflib  # deferred: only a mistyped command needs it (difflib pulls heapq; --help starts faster)

        close = difflib.get_close_matches(command, COMMANDS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else f"; commands: {', '.join(COMMANDS)}"
        print(f"recdiv: error: unknown command {command!r}{hint}", file=sys.stderr)
        return 2
    parser = build_parser(command or "")
    try:
        args = parser.parse_args(argv)
        if console_script:  # a SIGTERM ends the command as cleanly as Ctrl-C (not when called from Python); set
            import signal  # once the arguments are parsed, before any work: `--help` need not import signal

            signal.signal(signal.SIGTERM, _terminate)
        args.command_line = ["recdiv", *argv]  # recorded in the outputs (recdiv.provenance)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        paths = getattr(args, "paths", None)
        if paths is not None:  # the one output guard, before any work (recdiv.cli.options.Paths)
            paths.check(args)
        rc = args.func(args)
        sys.stdout.flush()  # a full disk under `> file` fails here, while the error can still be reported
    except RecdivError as e:
        _say(f"recdiv: error: {e}")
        return 2
    except PipeClosed:  # the reader of the pipe went away (`| head`): nothing to report
        return 141
    except KeyboardInterrupt:
        _say("recdiv: interrupted")
        return 130
    except Terminated:
        _say("recdiv: terminated")
        return 143
    return int(rc or 0)


def _say(text: str) -> None:
    """A line on stderr; nothing when stderr itself cannot be written."""
    from recdiv.console import PipeClosed

    try:
        print(text, file=sys.stderr)
        sys.stderr.flush()
    except (RecdivError, PipeClosed):
        pass


if __name__ == "__main__":
    sys.exit(main())
