"""`recdiv run`, `recdiv report` and `recdiv demo`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from recdiv.cli.options import positive_int


def configure_run(p: argparse.ArgumentParser) -> None:
    p.description = ("Run an experiment file: datasets × splits × recommenders × diversifiers → per-user scores, "
                     "summary tables and report.html.")
    p.add_argument("experiment", type=Path, metavar="EXPERIMENT.toml")
    p.add_argument("--resume", action="store_true", help="reuse finished artefacts in the output folder")
    p.add_argument("--force", action="store_true",
                   help="write into an output folder that holds another experiment's (or damaged) results or "
                        "files that are not recdiv's")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="N", help="parallel worker processes (default 1)")
    p.add_argument("--backend", choices=["local", "ray"], default="local",
                   help="local processes (default) or Ray (needs the optional `ray` package)")
    p.add_argument("--out", type=Path, metavar="DIR", help="output folder (default: the file's `output`)")
    p.add_argument("--quiet", action="store_true", help="no progress bars and no summary on stdout")
    p.set_defaults(func=_run)


def configure_report(r: argparse.ArgumentParser) -> None:
    r.description = ("Rebuild summary.csv/.md/.tex, plots and report.html from the cached per-user scores of a "
                     "finished run.")
    r.add_argument("results", type=Path, metavar="RESULTS_DIR")
    r.set_defaults(func=_report)


def configure_demo(d: argparse.ArgumentParser) -> None:
    d.description = ("Run examples/demo.toml's experiment on synthetic:small: two baselines, IA-Select, xQuAD and "
                     "MMR over genres and latent factors, accuracy, novelty, diversity and unified metrics with "
                     "significance tests.")
    d.add_argument("--out", type=Path, metavar="DIR", default=Path("results/demo"),
                   help="output folder (default results/demo)")
    d.add_argument("--resume", action="store_true", help="reuse finished artefacts in the output folder")
    d.add_argument("--force", action="store_true", help="write into a folder that holds other results or files")
    d.add_argument("--jobs", type=positive_int, default=1, metavar="N", help="parallel worker processes (default 1)")
    d.add_argument("--quiet", action="store_true", help="no progress bars")
    d.set_defaults(func=_demo)


def _print_outcome(result, quiet: bool) -> None:
    rep = result.report
    if not quiet and rep is not None:
        print(rep.text or rep.markdown)
    for what in result.damaged:
        print(f"recdiv: warning: damaged cache artefact {what}: recomputed", file=sys.stderr)
    done = ", ".join(f"{k} {v}" for k, v in sorted(result.computed.items())) or "nothing"
    reused = sum(result.cached.values())
    print(f"computed: {done}; reused {reused} cached artefacts; {result.seconds:.1f} s", file=sys.stderr)
    if rep is not None:
        if rep.up_to_date:
            print(f"report up to date: its inputs are unchanged (`recdiv report {rep.out}` rebuilds it)",
                  file=sys.stderr)
        print(f"report: {rep.html}")


def _interrupted(command: str, out) -> int:
    """Ctrl-C: finished artefacts are kept in the cache; say how to continue."""
    where = f" (finished work is cached in {out}/cache)" if out is not None else ""
    print(f"recdiv: interrupted{where}; continue with: {command} --resume", file=sys.stderr)
    return 130


def _run(args: argparse.Namespace) -> int:
    from recdiv.experiment.run.runner import run_experiment
    from recdiv.experiment.spec.experiment import load_experiment

    config = load_experiment(args.experiment)
    guard_experiment(config, args.experiment, args.out)
    try:
        result = run_experiment(config, args.out, resume=args.resume, force=args.force, jobs=args.jobs,
                                backend=args.backend, progress=not args.quiet and sys.stderr.isatty())
    except KeyboardInterrupt:
        out = f" --out {args.out}" if args.out else ""
        return _interrupted(f"recdiv run {args.experiment}{out}", config.output_dir(args.out))
    _print_outcome(result, args.quiet)
    return 0


def guard_experiment(config, source, out) -> None:
    """The one output guard for an experiment: its output folder (the names recdiv writes there) must not hold the
    experiment file, a dataset it reads or a group file."""
    from recdiv.cli.options import dataset_folder
    from recdiv.experiment.storage.folder import OWN_ENTRIES
    from recdiv.outputs import guard_outputs

    inputs = [source, *(f for d in config.datasets for f in dataset_folder(d.name, d.data_dir)),
              *config.report.groups]
    patterns = (*OWN_ENTRIES, *(f"{name}/*" for name in OWN_ENTRIES))
    guard_outputs(inputs, folders={"--out": (config.output_dir(out), patterns)}, stdout=False)


def _report(args: argparse.Namespace) -> int:
    from recdiv.experiment.report.build import build_report

    rep = build_report(args.results)
    print(rep.text or rep.markdown)
    print(f"report: {rep.html}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from recdiv.experiment.run.demo import run_demo

    try:
        result = run_demo(args.out, resume=args.resume, force=args.force, jobs=args.jobs,
                          progress=not args.quiet and sys.stderr.isatty())
    except KeyboardInterrupt:
        return _interrupted(f"recdiv demo --out {args.out}", args.out)
    _print_outcome(result, False)
    return 0
