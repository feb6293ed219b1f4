"""What recdiv's adapters (issue 27) cost: each tool's own measure, the same measure through recdiv's adapter in that
tool, and recdiv called directly, side by side on the same files, each in a fresh process.

Files: the ML-1M-shaped TREC run (top-100 per user) and qrels (grades 1-5) of bench/_files.py, and its genres
(`--users` scales the users; 6,040 by default). Settings shared by every route: relevant ⇔ grade ≥ 1, the mean over
every user of the qrels (the convention of ir_measures, ranx and LensKit).

Per route, in a fresh Python process: wall time of the whole process (imports, reading, measuring twice), peak
resident memory (`os.wait4`'s ru_maxrss of that process), and, printed by the process itself, the seconds spent
importing, reading the files into the tool's objects, measuring (first call: includes one-time work such as numba
compilation or loading recdiv's compiled kernels) and measuring again (the same call on the same objects: the
per-call cost; the two values must be equal). Routes (nDCG@10 everywhere; α-nDCG@10 over the genres only in recdiv):

- ir_measures: `calc_aggregate` with ir_measures' nDCG@10 (pytrec_eval) / with recdiv's (`recdiv.ir_measures`);
- PyTerrier: `pt.Experiment` on a result frame with ir_measures' nDCG@10 / recdiv's (no Java);
- ranx: `evaluate(qrels, run, "ndcg@10")` / `recdiv.evaluate_files` on the same ranx objects (the door converts
  them through `to_dict()`) / the same through `to_dataframe()`, the door before (paired: old and new side by side);
- LensKit: `MeasurementCollector` with LensKit's NDCG / `RecdivMetric` (binary gains, LensKit's discount: the same
  measure) / `recdiv.evaluate_files` on the same `ItemListCollection`s;
- recdiv: `recdiv.evaluate_files` on the TREC files (the command line's route).

    .venv/bin/python bench/bench_interop.py [--users 6040] [--only ir_measures,ranx,...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _files import make_files

# Each route: (group, label, code). The code defines read() -> data and measure(data) -> mean; the harness around it
# times both and prints them with the value as JSON.
_TREC_FRAMES = """
import pandas as pd
def trec_frames():
    run = pd.read_csv(RUN, sep=" ", header=None, names=["qid", "Q0", "docno", "rank", "score", "tag"],
                      dtype={"qid": str, "docno": str})
    qrels = pd.read_csv(QRELS, sep=" ", header=None, names=["qid", "iteration", "docno", "label"],
                        dtype={"qid": str, "docno": str})
    return run, qrels
"""
_ILC = _TREC_FRAMES + """
from lenskit.data import ItemListCollection
def read():
    run, qrels = trec_frames()
    recs = ItemListCollection.from_df(run.rename(columns={"qid": "user_id", "docno": "item_id"})
                                      [["user_id", "item_id", "rank", "score"]], ["user_id"])
    test = ItemListCollection.from_df(qrels.rename(columns={"qid": "user_id", "docno": "item_id", "label": "rating"})
                                      [["user_id", "item_id", "rating"]], ["user_id"])
    return recs, test
def collect(metric, label):
    from lenskit.metrics import MeasurementCollector
    def measure(data):
        recs, test = data
        collector = MeasurementCollector()
        collector.add_metric(metric)
        for key, items in recs:
            collector.measure_list(items, test.lookup(key), user_id=key.user_id)
        return float(collector.list_metrics()[label].astype(float).mean())
    return measure
"""
ROUTES = [
    ("ir_measures", "ir_measures nDCG@10 (pytrec_eval)", """
import ir_measures
def read():
    return list(ir_measures.read_trec_qrels(QRELS)), list(ir_measures.read_trec_run(RUN))
def measure(data):
    return ir_measures.calc_aggregate([ir_measures.nDCG@10], *data)[ir_measures.nDCG@10]
"""),
    ("ir_measures", "recdiv.ir_measures nDCG@10", """
import ir_measures
import recdiv.ir_measures as rd
def read():
    return list(ir_measures.read_trec_qrels(QRELS)), list(ir_measures.read_trec_run(RUN))
def measure(data):
    return ir_measures.calc_aggregate([rd.nDCG@10], *data)[rd.nDCG@10]
"""),
    ("ir_measures", "recdiv.ir_measures alpha-nDCG@10 (genres)", """
import ir_measures
import recdiv.ir_measures as rd
def read():
    return list(ir_measures.read_trec_qrels(QRELS)), list(ir_measures.read_trec_run(RUN))
def measure(data):
    m = rd.alpha_nDCG(data=rd.Data(aspects=ASPECTS))@10
    return ir_measures.calc_aggregate([m], *data)[m]
"""),
    ("pyterrier", "pt.Experiment, ir_measures nDCG@10", _TREC_FRAMES + """
import ir_measures
import pyterrier as pt
def read():
    run, qrels = trec_frames()
    return run[["qid", "docno", "score"]], qrels, pd.DataFrame({"qid": qrels["qid"].unique(), "query": ""})
def measure(data):
    run, qrels, topics = data
    return float(pt.Experiment([run], topics, qrels, eval_metrics=[ir_measures.nDCG@10]).iloc[0, 1])
"""),
    ("pyterrier", "pt.Experiment, recdiv.ir_measures nDCG@10", _TREC_FRAMES + """
import pyterrier as pt
import recdiv.ir_measures as rd
def read():
    run, qrels = trec_frames()
    return run[["qid", "docno", "score"]], qrels, pd.DataFrame({"qid": qrels["qid"].unique(), "query": ""})
def measure(data):
    run, qrels, topics = data
    return float(pt.Experiment([run], topics, qrels, eval_metrics=[rd.nDCG@10]).iloc[0, 1])
"""),
    ("ranx", "ranx evaluate ndcg@10", """
from ranx import Qrels, Run, evaluate
def read():
    return Qrels.from_file(QRELS, kind="trec"), Run.from_file(RUN, kind="trec")
def measure(data):
    return float(evaluate(*data, "ndcg@10"))
"""),
    ("ranx", "recdiv.evaluate_files on ranx objects nDCG@10", """
from ranx import Qrels, Run
import recdiv
def read():
    return Qrels.from_file(QRELS, kind="trec"), Run.from_file(RUN, kind="trec")
def measure(data):
    ev = recdiv.evaluate_files(data[0], {"run": data[1]}, ["nDCG@10"], threshold=1, population="judged")
    return ev.value("run", "nDCG@10")
"""),
    ("ranx", "recdiv.evaluate_files on ranx objects nDCG@10, the door before (to_dataframe)", """
from ranx import Qrels, Run
import recdiv
import recdiv.data.doors
recdiv.data.doors.ranx_frame = lambda obj: obj.to_dataframe()   # the conversion of the door before issue 27 item 4
def read():
    return Qrels.from_file(QRELS, kind="trec"), Run.from_file(RUN, kind="trec")
def measure(data):
    ev = recdiv.evaluate_files(data[0], {"run": data[1]}, ["nDCG@10"], threshold=1, population="judged")
    return ev.value("run", "nDCG@10")
"""),
    ("lenskit", "MeasurementCollector, LensKit NDCG@10", _ILC + """
from lenskit.metrics import NDCG
measure = collect(NDCG(n=10), "NDCG@10")
"""),
    ("lenskit", "MeasurementCollector, RecdivMetric nDCG@10", _ILC + """
from recdiv.lenskit import RecdivMetric
measure = collect(RecdivMetric("nDCG(gain=binary,disc=jk)@10"), "nDCG(gain=binary,disc=jk)@10")
"""),
    ("lenskit", "recdiv.evaluate_files on ItemListCollections nDCG@10", _ILC + """
import recdiv
def measure(data):
    ev = recdiv.evaluate_files(data[1], {"run": data[0]}, ["nDCG(gain=binary,disc=jk)@10"], threshold=1,
                               population="judged")
    return ev.value("run", "nDCG(gain=binary,disc=jk)@10")
"""),
    ("recdiv", "recdiv.evaluate_files on TREC files nDCG@10", """
import recdiv
def read():
    return None
def measure(data):
    return recdiv.evaluate_files(QRELS, [RUN], ["nDCG@10"], threshold=1, population="judged").value("run", "nDCG@10")
"""),
    ("recdiv", "recdiv.evaluate_files on TREC files alpha-nDCG@10 (genres)", """
import recdiv
def read():
    return None
def measure(data):
    ev = recdiv.evaluate_files(QRELS, [RUN], ["alpha-nDCG@10"], aspects=ASPECTS, threshold=1, population="judged")
    return ev.value("run", "alpha-nDCG@10")
"""),
]

_HARNESS = """
import json, time
t0 = time.perf_counter()
{code}
t1 = time.perf_counter()
data = read()
t2 = time.perf_counter()
value = measure(data)
t3 = time.perf_counter()
again = measure(data)
t4 = time.perf_counter()
assert again == value, (value, again)
print(json.dumps({{"setup": t1 - t0, "read": t2 - t1, "measure": t3 - t2, "again": t4 - t3, "value": float(value)}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=6040)
    ap.add_argument("--only", default="", help="comma-separated groups (ir_measures, pyterrier, ranx, lenskit, recdiv)")
    args = ap.parse_args()
    if args.users < 1:
        ap.error("--users must be at least 1")
    groups = set(filter(None, args.only.split(",")))
    paths = make_files(n_users=args.users)
    print(f"files: {paths['run.txt'].parent} ({args.users:,} users, top-100 lists); load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("| tool | route | wall s (process) | peak MB | imports s | read s | measure s | again s | mean |")
    print("|---|---|---|---|---|---|---|---|---|")
    for group, label, code in ROUTES:
        if groups and group not in groups:
            continue
        r = measure_process(code, paths)
        if "error" in r:
            print(f"| {group} | {label} | error: {r['error']} | | | | | | |")
        else:
            print(f"| {group} | {label} | {r['wall']:.2f} | {r['peak_mb']:.0f} | {r['setup']:.2f} | {r['read']:.2f} "
                  f"| {r['measure']:.2f} | {r['again']:.2f} | {r['value']:.6f} |", flush=True)
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def measure_process(code: str, paths: dict[str, Path]) -> dict:
    """Run one route in a fresh process: its own figures, the whole-process wall time and peak RSS."""
    consts = "".join(f"{k} = {str(v)!r}\n" for k, v in (("RUN", paths["run.txt"]), ("QRELS", paths["qrels.txt"]),
                                                          ("ASPECTS", paths["aspects.tsv"])))
    with tempfile.TemporaryFile("w+") as errors:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _HARNESS.format(code=consts + code)], stdout=subprocess.PIPE,
                                stderr=errors, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            errors.seek(0)
            lines = errors.read().strip().splitlines()
            return {"error": lines[-1] if lines else f"exit {proc.returncode}"}
    got = json.loads(out.strip().splitlines()[-1])
    got.update(wall=wall, peak_mb=usage.ru_maxrss / 1024)
    return got


if __name__ == "__main__":
    main()
