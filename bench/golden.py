"""Golden check of the `recdiv` command line: run it over fixed inputs into a folder, compare two such folders.

    python bench/golden.py run OUT --recdiv TREE/.venv/bin/recdiv [--data DIR] [--force] [--keep-work]
    python bench/golden.py compare BASE NEW [--ignore-json-key KEY] [--ignore-line REGEX] [--ignore-file GLOB]
                                            [--strict] [--lines N]
    python bench/golden.py commands          # print the command lines a run executes

`run` executes 113 commands (bench/golden_steps.py) of the `recdiv` executable given (the venv of the tree under test)
with the working folder in a fresh temporary folder and absolute input paths: `data export` of ML-100K u1, the embedded
synthetic dataset and HetRec Last.fm 2K (data from --data, default $RECDIV_DATA or the first `shared/data` above this
file or the executable), `data info`, every baseline recommender, every reranker over genres/tags and over latent
factors, `eval` (117 measures of every family, per-user values, trec_eval -q text, `--subtopics`, `--predictions`,
groups), `compare` in every format with every test and correction, `meta`, `axioms`, help texts, a few error cases, and
the demo experiment (`recdiv run examples/demo.toml`, its `--resume` and `recdiv report`). Every file the commands write
and every stdout that is an output is stored under OUT; every command's line, exit code, stdout and stderr under
OUT/log/NAME.txt (errors are outputs). Stored text has the temporary folder, the data folder and the tree replaced by
<WORK>, <DATA> and <TREE>, and the elapsed times that `recommend`, `rerank` and `run` print ("in 0.4s", "1.2 s")
replaced by <T>. Binary results are stored as text, by the venv's Python: Parquet files as TSV (floats as repr; the
demo's per-user scores in demo/scores.parquet.tsv), and the experiment cache (named by keys that include recdiv's
version) as one sorted list of content digests per stage (demo/cache/STAGE.digests). Of demo-report/ (a copy of demo/
that `recdiv report` rebuilds) only the files the report writes are kept.

`compare` lists the missing, new and differing files; for a differing text file the number of differing lines and
values (numeric ones with the largest difference) and the first --lines lines of a diff; for JSON the differing
values by path. Exit 1 if anything differs, else 0. Not compared unless --strict (and always listed): the outputs in
KNOWN_NONDETERMINISTIC, and SOURCE_DEPENDENT JSON values (fingerprints of recdiv's source, which differ between
any two trees with different code).
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from golden_steps import steps

#: outputs that differ between two runs of one tree today: (file glob, JSON key path or None = the whole file, why).
#: A key path is a tuple of globs, one per level.
KNOWN_NONDETERMINISTIC: list[tuple[str, tuple[str, ...] | None, str]] = [
    # issue 24: matplotlib writes a creation date and random element ids into every SVG
    ("demo*/plots/*.svg", None, "SVG creation date and random element ids (issue 24)"),
    ("meta/plots/*.svg", None, "SVG creation date and random element ids (issue 24)"),
    # ... and the experiment manifest records the sha256 of those SVGs
    ("demo*/manifest.json", ("report", "files", "plots/*.svg"), "sha256 of the SVG plots (issue 24)"),
]
#: JSON values that are fingerprints of recdiv's source code or version: the same for two runs of one tree, different
#: for two trees whose code differs (even by a comment), whatever the outputs.
SOURCE_DEPENDENT: list[tuple[str, tuple[str, ...], str]] = [
    ("demo*/manifest.json", ("inputs", "key"), "inputs stamp: hashes recdiv's source"),
    ("demo*/manifest.json", ("report", "key"), "report stamp: hashes recdiv's source"),
    ("demo*/manifest.json", ("inputs", "artefacts"), "cache keys: include recdiv's version"),
]

# Binary outputs as text, by the Python of the venv under test (pyarrow, numpy) -----------------------------------
DUMP = r'''
import hashlib, json, sys
from pathlib import Path
import numpy as np, pyarrow.parquet as pq

def cell(v):
    return "NA" if v is None else repr(v) if isinstance(v, float) else str(v).replace("\t", "\\t").replace("\n", "\\n")

def lines(table):
    """Schema metadata (but pandas'), the columns with one value as `# name = value`, then the others as TSV."""
    meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items() if k != b"pandas"}
    head = [f"# {k}: {v}" for k, v in sorted(meta.items())]
    cols, names = [], []
    for f, col in zip(table.schema, table.columns):
        values = col.to_pylist()
        if table.num_rows > 1 and all(v == values[0] for v in values):
            head.append(f"# {f.name}:{f.type} = {cell(values[0])}")
        else:
            cols.append(values)
            names.append(f"{f.name}:{f.type}")
    head.append("\t".join(names))
    return head + ["\t".join(cell(c[r]) for c in cols) for r in range(table.num_rows)]

def digest(path):
    h = hashlib.sha256()
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            parts = []
            for k in sorted(z.files):
                a = np.ascontiguousarray(z[k])
                h.update(f"{k}\0{a.dtype.str}\0{a.shape}\0".encode())
                h.update(a.tobytes())
                parts.append(f"{k}{list(a.shape)}:{a.dtype}")
        return h.hexdigest(), " ".join(parts)
    if path.suffix == ".parquet":
        table = pq.read_table(path)
        h.update("\n".join(lines(table)).encode())
        return h.hexdigest(), f"{table.num_rows} rows: " + " ".join(table.column_names)
    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest(), f"{len(data)} bytes"

jobs = json.loads(sys.stdin.read())
for kind, src, dst in jobs:
    if kind == "table":
        Path(dst).write_text("\n".join(lines(pq.read_table(src))) + "\n")
    else:  # a cache folder: one sorted digest list per stage
        Path(dst).mkdir(parents=True, exist_ok=True)
        for stage in sorted(p for p in Path(src).iterdir() if p.is_dir()):
            rows = sorted(" ".join(digest(p)) for p in stage.rglob("*") if p.is_file() and p.suffix != ".sha256")
            (Path(dst) / f"{stage.name}.digests").write_text("".join(r + "\n" for r in rows))
'''
#: folders that are copies of another, rewritten by a command: only the files it writes are kept
REWRITTEN = {"demo-report": ("summary.*", "report.*", "manifest.json", "plots/*")}
TIME = re.compile(r"(?<![\w.])\d+\.\d(?= ?s\b)")  # the elapsed times of recommend, rerank and run


class Normaliser:
    """Replaces the run's own folders in text by placeholders, longest first."""

    def __init__(self, **places: Path):
        pairs = {}
        for tag, p in places.items():
            for variant in {str(p), os.path.realpath(p)}:
                pairs[variant] = f"<{tag}>"
        self.pairs = sorted(pairs.items(), key=lambda kv: -len(kv[0]))

    def __call__(self, text: str) -> str:
        for old, new in self.pairs:
            text = text.replace(old, new)
        return text


def find_data(*starts: Path) -> Path | None:
    if os.environ.get("RECDIV_DATA"):
        return Path(os.environ["RECDIV_DATA"])
    for start in starts:
        for parent in start.absolute().parents:
            if (parent / "shared" / "data" / "ml-100k").is_dir():
                return parent / "shared" / "data"
    return None


def run(args: argparse.Namespace) -> int:
    exe = Path(args.recdiv).absolute()
    tree = Path(args.tree).absolute() if args.tree else exe.parent.parent.parent
    data = Path(args.data).absolute() if args.data else find_data(Path(__file__), exe)
    out = Path(args.out).absolute()
    for what, ok in ((f"--recdiv {exe}: not an executable", os.access(exe, os.X_OK)),
                     (f"{tree}/examples/demo.toml not found (give the tree with --tree)",
                      (tree / "examples" / "demo.toml").is_file()),
                     (f"data folder {data} without ml-100k (give it with --data)",
                      data is not None and (data / "ml-100k").is_dir()),
                     (f"{out} exists (--force replaces it)", args.force or not out.exists())):
        if not ok:
            print(f"golden: {what}", file=sys.stderr)
            return 2
    work = Path(tempfile.mkdtemp(prefix="recdiv-golden-"))
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    t0, load = time.perf_counter(), f"{os.getloadavg()[0]:.1f}"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `timeout`, kill: clean up as after Ctrl-C
    try:
        norm = Normaliser(WORK=work, DATA=data, TREE=tree)
        surprises = execute(work, stage, norm, exe, data, tree)
        store(work, stage, norm, exe.parent / "python")
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        if not args.keep_work:
            shutil.rmtree(work, ignore_errors=True)
        raise
    if out.exists():
        shutil.rmtree(out)
    stage.rename(out)
    if args.keep_work:
        print(f"golden: work folder kept: {work}", file=sys.stderr)
    else:
        shutil.rmtree(work)
    files = sum(1 for p in out.rglob("*") if p.is_file())
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"golden: {len(steps())} commands, {files} files in {out}; wall {time.perf_counter() - t0:.0f} s, CPU "
          f"{cpu.ru_utime + cpu.ru_stime:.0f} s, load average {load} before, {os.getloadavg()[0]:.1f} after",
          file=sys.stderr)
    for s in surprises:
        print(f"golden: unexpected exit code: {s}", file=sys.stderr)
    return 0


def execute(work: Path, stage: Path, norm: Normaliser, exe: Path, data: Path, tree: Path) -> list[str]:
    """Run every step in `work`, its log into stage/log; the steps whose exit code was not the expected one."""
    env = {**os.environ, "RECDIV_DATA": str(data), "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    (stage / "log").mkdir()
    surprises = []
    for step in steps():
        t = time.perf_counter()
        if step.action is not None:
            step.action(work)
            (stage / "log" / f"{step.name}.txt").write_text(f"# {step.action.__doc__.split(chr(10))[0]}\n")
            continue
        argv = [a.format(W=work, D=data, T=tree) for a in step.args]
        for a in argv:  # the folders of the outputs
            if a.startswith(str(work)) and "." in Path(a).name:
                Path(a).parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run([str(exe), *argv], cwd=work, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, errors="backslashreplace")
        stdout, stderr = norm(proc.stdout), TIME.sub("<T>", norm(proc.stderr))
        if step.stdout:
            (work / step.stdout).parent.mkdir(parents=True, exist_ok=True)
            (work / step.stdout).write_text(proc.stdout)
        log = [f"$ recdiv {' '.join(norm(a) for a in argv)}", f"exit {proc.returncode}"]
        if not step.stdout:
            log += ["--- stdout", TIME.sub("<T>", stdout).rstrip("\n")]
        log += ["--- stderr", stderr.rstrip("\n")]
        (stage / "log" / f"{step.name}.txt").write_text("\n".join(log) + "\n")
        if proc.returncode != step.expect:
            surprises.append(f"{step.name}: exit {proc.returncode} (expected {step.expect})")
        print(f"{step.name:32} exit {proc.returncode}  {time.perf_counter() - t:5.1f} s", file=sys.stderr)
    return surprises


def store(work: Path, stage: Path, norm: Normaliser, python: Path) -> None:
    """Copy the work folder's files into the stage folder: text normalised, Parquet and the cache as text."""
    jobs = []
    for src in sorted(work.rglob("*")):
        rel = src.relative_to(work)
        if not src.is_file() or "cache" in rel.parts[:-1]:
            continue
        inner = "/".join(rel.parts[1:])
        if rel.parts[0] in REWRITTEN and not any(fnmatch.fnmatch(inner, g) for g in REWRITTEN[rel.parts[0]]):
            continue
        dst = stage / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix == ".parquet":
            jobs.append(("table", str(src), str(dst.with_name(dst.name + ".tsv"))))
            continue
        data = src.read_bytes()
        try:
            dst.write_text(norm(data.decode("utf-8")))
        except UnicodeDecodeError:
            dst.write_bytes(data)
    for cache in sorted(p for p in work.rglob("cache") if p.is_dir() and p.relative_to(work).parts[0] not in REWRITTEN):
        jobs.append(("cache", str(cache), str(stage / cache.relative_to(work))))
    subprocess.run([str(python), "-c", DUMP], input=json.dumps(jobs), text=True, check=True)


# compare ------------------------------------------------------------------------------------------------------------
def _match(path: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return len(path) == len(pattern) and all(fnmatch.fnmatchcase(p, q) for p, q in zip(path, pattern))


def _prune(obj, keys: list[str], paths: list[tuple[str, ...]], at: tuple[str, ...] = ()):
    """`obj` without the dict keys in `keys` (any depth) and the values at `paths`."""
    if isinstance(obj, dict):
        return {k: _prune(v, keys, paths, (*at, k)) for k, v in obj.items()
                if k not in keys and not any(_match((*at, k), p) for p in paths)}
    if isinstance(obj, list):
        return [_prune(v, keys, paths, at) for v in obj]
    return obj


def _leaves(obj, at: str = ""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, f"{at}.{k}" if at else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, f"{at}[{i}]")
    else:
        yield at, obj


def _number(x) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int | float):
        return float(x)
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


class Tally:
    """Differing values: how many, how many numeric, the largest numeric difference."""

    def __init__(self):
        self.values = self.numeric = 0
        self.largest = 0.0

    def add(self, a, b) -> None:
        self.values += 1
        x, y = _number(a), _number(b)
        if x is not None and y is not None:
            self.numeric += 1
            d = abs(x - y) if math.isfinite(x) and math.isfinite(y) else math.inf
            self.largest = max(self.largest, d)

    def __str__(self) -> str:
        s = f"{self.values} value{'s differ' if self.values != 1 else ' differs'}"
        return s + (f" ({self.numeric} numeric, largest |Δ| {self.largest:.3g})" if self.numeric else "")


TOKEN = re.compile(r"[\t ,|&]+")


def _only(lines: list[str], other: list[str]) -> list[str]:
    """The lines of `lines` not matched by an equal line of `other` (multiset difference), in file order."""
    extra = Counter(lines) - Counter(other)
    out = []
    for line in lines:
        if extra[line] > 0:
            extra[line] -= 1
            out.append(line)
    return out


def compare_text(a: str, b: str, drop: list[re.Pattern], lines: int) -> list[str] | None:
    """None if equal (after --ignore-line), else a summary line and the first `lines` lines of a diff. Equal line
    counts: line i against line i. Otherwise a diff (difflib up to 5,000 lines; beyond, the lines of each side that
    the other does not hold, paired in order, so that no file makes it slow)."""
    la = [s for s in a.splitlines() if not any(r.search(s) for r in drop)]
    lb = [s for s in b.splitlines() if not any(r.search(s) for r in drop)]
    if la == lb:
        return None
    if len(la) == len(lb):
        pairs = [(i, x, y) for i, (x, y) in enumerate(zip(la, lb)) if x != y]
        shown = [d for i, x, y in pairs[:lines] for d in (f"@@ line {i + 1}", f"-{x}", f"+{y}")]
    elif max(len(la), len(lb)) <= 5000:
        ops = difflib.SequenceMatcher(None, la, lb).get_opcodes()
        pairs = [(i, x, y) for op, i1, i2, j1, j2 in ops if op != "equal"
                 for i, x, y in zip(range(i1, i2), la[i1:i2], lb[j1:j2])]
        shown = list(difflib.unified_diff(la, lb, n=0, lineterm=""))[2:]  # without the ---/+++ header
    else:
        gone, came = _only(la, lb), _only(lb, la)
        pairs = [(0, x, y) for x, y in zip(gone, came)]
        half = max(1, lines // 2)
        shown = [f"-{x}" for x in gone[:half]] + [f"+{y}" for y in came[:half]]
    tally = Tally()
    for _, x, y in pairs:
        ta, tb = TOKEN.split(x), TOKEN.split(y)
        for u, v in zip(ta, tb):
            if u != v:
                tally.add(u, v)
        tally.values += abs(len(ta) - len(tb))
    head = f"{len(pairs)} of {len(la)} lines changed ({tally})"
    head += f"; {len(lb)} lines in NEW" if len(la) != len(lb) else ""
    return [head, *(f"    {d[:200]}" for d in shown[:lines])]


def compare_json(a: str, b: str, keys: list[str], paths: list[tuple[str, ...]], lines: int) -> list[str] | None:
    ja, jb = _prune(json.loads(a), keys, paths), _prune(json.loads(b), keys, paths)
    if ja == jb:
        return None
    da, db = dict(_leaves(ja)), dict(_leaves(jb))
    tally, shown = Tally(), []
    for k in [*da, *(k for k in db if k not in da)]:
        x, y = da.get(k, "<absent>"), db.get(k, "<absent>")
        if x != y or type(x) is not type(y):
            tally.add(x, y)
            if len(shown) < lines:
                shown.append(f"    {k}: {json.dumps(x)[:90]} -> {json.dumps(y)[:90]}")
    return [f"{tally} (of {len(da)})", *shown]


def compare(args: argparse.Namespace) -> int:
    base, new = Path(args.base), Path(args.new)
    for d in (base, new):
        if not d.is_dir():
            print(f"golden: {d}: not a folder", file=sys.stderr)
            return 2
    try:
        drop = [re.compile(r) for r in args.ignore_line]
    except re.error as e:
        print(f"golden: --ignore-line: {e}", file=sys.stderr)
        return 2
    defaults = [] if args.strict else [(g, p, why) for g, p, why in KNOWN_NONDETERMINISTIC + SOURCE_DEPENDENT]
    files_a = {p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()}
    files_b = {p.relative_to(new).as_posix() for p in new.rglob("*") if p.is_file()}
    skipped, ignored, same, report, absent = [], 0, 0, [], {"missing": 0, "new": 0}
    for rel in sorted(files_a | files_b):
        if any(fnmatch.fnmatch(rel, g) for g in args.ignore_file):
            ignored += 1
            continue
        if any(fnmatch.fnmatch(rel, g) and p is None for g, p, _ in defaults):
            skipped.append(rel)
            continue
        if rel not in files_b or rel not in files_a:
            which = "missing" if rel not in files_b else "new"
            absent[which] += 1
            report.append((rel, ["missing in NEW" if which == "missing" else "new in NEW (not in BASE)"]))
            continue
        a, b = (base / rel).read_bytes(), (new / rel).read_bytes()
        paths = [p for g, p, _ in defaults if p is not None and fnmatch.fnmatch(rel, g)]
        if a == b:
            same += 1
            continue
        try:
            ta, tb = a.decode("utf-8"), b.decode("utf-8")
        except UnicodeDecodeError:
            report.append((rel, ["binary files differ"]))
            continue
        if rel.endswith(".json"):
            try:
                result = compare_json(ta, tb, args.ignore_json_key, paths, args.lines)
            except json.JSONDecodeError:
                result = compare_text(ta, tb, drop, args.lines)
        else:
            result = compare_text(ta, tb, drop, args.lines)
        if result is None:
            same += 1
        else:
            report.append((rel, result))
    for rel, text in report:
        print(f"{rel}: {text[0]}")
        for line in text[1:]:
            print(line)
    differ = len(report) - absent["missing"] - absent["new"]
    print(f"golden compare: {len(files_a | files_b)} files: {same} equal, {differ} differ, {absent['missing']} missing "
          f"in NEW, {absent['new']} new in NEW, {ignored} ignored (--ignore-file)")
    if defaults:
        print(f"not compared by default (--strict compares them): {len(skipped)} files known nondeterministic, "
              "and these JSON values:")
        for g, p, why in defaults:
            print(f"    {g}{' ' + '.'.join(p) if p else ''}: {why}")
    return 1 if report else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="golden.py", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the golden commands into a new folder")
    r.add_argument("out", help="folder to create")
    r.add_argument("--recdiv", required=True, help="the recdiv executable of the tree under test (.venv/bin/recdiv)")
    r.add_argument("--tree", help="the tree (for examples/demo.toml; default: three levels above --recdiv)")
    r.add_argument("--data", help="folder of ml-100k, hetrec2011-lastfm-2k, ml-latest-small")
    r.add_argument("--force", action="store_true", help="replace OUT if it exists")
    r.add_argument("--keep-work", action="store_true", help="keep the temporary work folder")
    c = sub.add_parser("compare", help="compare two golden folders (exit 1 if anything differs)",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=COMPARE_EPILOG)
    c.add_argument("base")
    c.add_argument("new")
    c.add_argument("--ignore-json-key", action="append", default=[], metavar="KEY",
                   help="drop this key at any depth of every JSON file before comparing (repeatable)")
    c.add_argument("--ignore-line", action="append", default=[], metavar="REGEX",
                   help="drop the lines of text files that match (re.search; repeatable)")
    c.add_argument("--ignore-file", action="append", default=[], metavar="GLOB",
                   help="do not compare files whose path (relative to the folder) matches (repeatable)")
    c.add_argument("--strict", action="store_true",
                   help="also compare KNOWN_NONDETERMINISTIC files and SOURCE_DEPENDENT JSON values")
    c.add_argument("--lines", type=int, default=12, help="diff lines / differing values shown per file (12)")
    sub.add_parser("commands", help="print the command lines of a run")
    args = parser.parse_args(argv)
    if args.command == "run":
        try:
            return run(args)
        except KeyboardInterrupt:
            print("golden: interrupted (temporary folders removed)", file=sys.stderr)
            return 130
    if args.command == "compare":
        return compare(args)
    for s in steps():
        print(f"{s.name}: " + (f"recdiv {' '.join(s.args)}" if s.args else f"(python) {s.action.__doc__.split('.')[0]}")
              + (f" > {s.stdout}" if s.stdout else ""))
    return 0


COMPARE_EPILOG = """Intended, value-free changes:
  --ignore-json-key KEY     e.g. a provenance record in JSON outputs (issue 25): --ignore-json-key provenance
  --ignore-line REGEX       e.g. provenance header lines of text, Markdown, LaTeX, CSV and HTML outputs and of the
                            Parquet metadata dumps ("# KEY: VALUE" lines):
                            --ignore-line '^[#%] ?(recdiv|provenance|version|commit|command|python)\\b'
                            --ignore-line '<meta name="(generator|provenance)'
  --ignore-file GLOB        e.g. --ignore-file 'help/*' when a help text changes on purpose
Once provenance lands, a check reads:
  python bench/golden.py compare /work/golden/base NEW --ignore-json-key provenance --ignore-line 'REGEX'
with the key and the line pattern that issue 25 chose (and `recdiv --version` in help/version.txt differs when the
version does: --ignore-file help/version.txt).
"""

if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `compare ... | head` ends quietly
    sys.exit(main())
