"""The teaching notebooks (notebooks/*.ipynb): up to date with their sources, and executed end to end.

Execution uses nbclient with a kernel named "python3" that is pinned to this interpreter: a temporary kernelspec
in a temporary JUPYTER_PATH entry (which takes precedence over user and system kernelspecs), so the notebooks run
in the project's virtual environment whatever kernels the machine has installed. A probe cell appended to each
notebook reports `sys.executable` and the notebook's key results as JSON; any cell error fails the test.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from recdiv.data.locate import REPO_ROOT

NOTEBOOKS = REPO_ROOT / "notebooks"
_spec = importlib.util.spec_from_file_location("recdiv_notebooks_build", NOTEBOOKS / "build.py")
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)

PROBE_PREFIX = "NOTEBOOK-PROBE "


def test_percent_parser():
    text = "'''doc'''\n# %% [markdown]\n# # Title\n#\n# text\n\n# %%\nx = 1\n\n\n# %%\n\n# %% [markdown]\n# *b*\n"
    assert build.parse_percent(text) == [("markdown", "# Title\n\ntext"), ("code", "x = 1"), ("markdown", "*b*")]


def test_notebooks_up_to_date():
    """Every source has a notebook, built from it and shipped executed (outputs committed, < 1 MB each):
    `make notebooks` regenerates them."""
    sources = build.targets()
    assert {nb.name for nb in sources.values()} == {p.name for p in NOTEBOOKS.glob("*.ipynb")}
    assert len(sources) == 3
    for src, nb in sources.items():
        assert build.problems(src, nb) == [], "run `make notebooks`"
        parsed = nbformat.reads(nb.read_text(encoding="utf-8"), as_version=4)
        assert sum(len(c.get("outputs", [])) for c in parsed.cells) > 5


_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def committed_outputs_match(name: str, fresh) -> None:
    """The committed notebook's tables (text of display and result outputs) carry the numbers a fresh execution
    gives (to the printed precision, ±1 in the last digit); timings (stream output) are not compared."""
    committed = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)

    def tables(nb):
        return [o["data"]["text/plain"] for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                if o.get("output_type") in ("display_data", "execute_result") and "text/plain" in o.get("data", {})
                and "Figure" not in o["data"]["text/plain"]]

    old, new = tables(committed), tables(fresh)
    assert len(old) == len(new), f"{name}: {len(old)} committed tables, {len(new)} fresh"
    for a, b in zip(old, new):
        xa, xb = _NUMBER.findall(a), _NUMBER.findall(b)
        assert len(xa) == len(xb), (a, b)
        for u, v in zip(xa, xb):
            step = 10.0 ** -len(u.split(".")[1].split("e")[0])
            assert abs(float(u) - float(v)) <= 1.01 * step * (10 ** int(u.split("e")[1]) if "e" in u else 1), (a, b)


@pytest.fixture
def pinned_kernel(tmp_path, monkeypatch, data_root):
    """A "python3" kernelspec running this interpreter, found first via JUPYTER_PATH; data via RECDIV_DATA."""
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "recdiv test kernel", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))
    monkeypatch.setenv("RECDIV_DATA", str(data_root))
    monkeypatch.setenv("RECDIV_THREADS", "2")
    return "python3"


def run_notebook(name: str, kernel: str, probe: str) -> tuple[dict, nbformat.NotebookNode, float]:
    """Execute notebooks/<name>.ipynb plus a probe cell printing json of `probe` (an expression); any error fails."""
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    code = ("import json as _json, sys as _sys\n"
            f"print({PROBE_PREFIX!r} + _json.dumps({{'executable': _sys.executable, 'prefix': _sys.prefix, "
            f"'data': {probe}}}))")
    nb.cells.append(nbformat.v4.new_code_cell(code))
    t = time.perf_counter()
    NotebookClient(nb, kernel_name=kernel, timeout=600, resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    elapsed = time.perf_counter() - t
    print(f"{name}: executed in {elapsed:.1f} s")
    out = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    line = next(x for x in out.splitlines() if x.startswith(PROBE_PREFIX))
    result = json.loads(line[len(PROBE_PREFIX):])
    assert Path(result["executable"]).resolve() == Path(sys.executable).resolve()
    assert Path(result["prefix"]).resolve() == Path(sys.prefix).resolve()
    return result["data"], nb, elapsed


def n_images(nb) -> int:
    return sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)


@pytest.mark.realdata
@pytest.mark.slow
def test_01_accuracy_is_not_enough(pinned_kernel):
    data, nb, _ = run_notebook("01-accuracy-is-not-enough", pinned_kernel,
                               "{'table': table.to_dict('index'), 'sweep': sweep.to_dict('index')}")
    committed_outputs_match("01-accuracy-is-not-enough", nb)
    t, sweep = data["table"], data["sweep"]
    assert set(t) == {"pop", "mf-als", "user-knn", "user-knn+MMR", "user-knn+IASelect", "user-knn+xQuAD"}
    knn = t["user-knn"]
    # recorded values (docs/algorithms.md: user-knn implicit nDCG@50 on u1 = 0.421 over all test users)
    assert knn["nDCG@50"] == pytest.approx(0.454, abs=0.01)
    assert knn["ILD@50"] == pytest.approx(0.748, abs=0.01)
    assert t["user-knn"]["nDCG@50"] > t["pop"]["nDCG@50"] > t["mf-als"]["nDCG@50"]
    assert t["mf-als"]["EPC@50"] > t["user-knn"]["EPC@50"] > t["pop"]["EPC@50"]
    # diversifiers: MMR and IA-Select raise ILD (and novelty) and cost accuracy; xQuAD raises alpha-nDCG
    for r in ("user-knn+MMR", "user-knn+IASelect"):
        assert t[r]["ILD@50"] > knn["ILD@50"] + 0.03
        assert t[r]["EPC@50"] > knn["EPC@50"]
        assert t[r]["nDCG@50"] < knn["nDCG@50"]
    assert t["user-knn+xQuAD"]["alpha-nDCG@50"] > knn["alpha-nDCG@50"]
    assert t["user-knn+IASelect"]["alpha-nDCG@50"] < knn["alpha-nDCG@50"]
    # the λ sweep: λ = 1 is the baseline; accuracy falls monotonically as λ falls
    assert sweep["λ=1.0"]["nDCG@50"] == pytest.approx(knn["nDCG@50"], abs=1e-12)
    ndcg = [sweep[f"λ={lam}"]["nDCG@50"] for lam in (1.0, 0.8, 0.6, 0.4, 0.2, 0.0)]
    assert all(a > b for a, b in itertools.pairwise(ndcg))
    assert sweep["λ=0.0"]["ILD@50"] > sweep["λ=1.0"]["ILD@50"] + 0.05
    assert n_images(nb) == 1


@pytest.mark.realdata
@pytest.mark.slow
def test_02_write_your_own_reranker(pinned_kernel):
    data, nb, _ = run_notebook("02-write-your-own-reranker", pinned_kernel,
                              "{'mismatches': int(mismatches), 'toy': [top3(x) for x in (0.5, 0.8, 0.0, 1.0)], "
                              "'table': table.to_dict('index')}")
    committed_outputs_match("02-write-your-own-reranker", nb)
    assert data["mismatches"] == 0
    # hand-computed in the notebook; λ = 1: step 1 all bonuses 1 → m1; then m3 (Comedy new), then m4 (Drama)
    assert data["toy"] == [["m1", "m3", "m2"], ["m1", "m3", "m4"], ["m1", "m2", "m3"], ["m1", "m3", "m4"]]
    t = data["table"]
    base, lo, hi = t["user-knn"], t["NewGenre(λ=0.3)"], t["NewGenre(λ=0.6)"]
    assert base["ILD@50"] < lo["ILD@50"] < hi["ILD@50"]
    assert base["nDCG@50"] > lo["nDCG@50"] > hi["nDCG@50"]


@pytest.mark.realdata
@pytest.mark.slow
def test_03_evaluating_the_evaluation(pinned_kernel):
    data, nb, _ = run_notebook("03-evaluating-the-evaluation", pinned_kernel,
                               "{'summary': summary.to_dict('index'), 'sparsity': sparsity_table.to_dict('list'), "
                               "'popularity': popularity_table.to_dict('list'), 'after': after.to_dict(), "
                               "'fractions': {m: r.fraction for m, r in sakai.items()}}")
    committed_outputs_match("03-evaluating-the-evaluation", nb)
    s = data["summary"]
    assert len(s) == 8
    dp = {m: v["DP (lower better)"] for m, v in s.items()}
    # Valcarce et al.: RR and bpref are the least discriminative; deep nDCG beats shallow nDCG
    assert min(dp["RR@100"], dp["bpref@100"]) > max(dp["nDCG@100"], dp["P@100"], dp["alpha-nDCG@100"])
    assert dp["nDCG@100"] < dp["nDCG@10"]
    assert s["nDCG@100"]["mean τ popularity"] > s["nDCG@10"]["mean τ popularity"]
    for m, taus in data["sparsity"].items():
        assert taus[0] == 1.0 and all(-1 <= x <= 1 for x in taus), m
        assert min(taus) > 0.7, m  # random removal never scrambles the ranking of these systems
    for m, taus in data["popularity"].items():
        assert taus[0] == 1.0 and min(taus) < 0.6, m  # removing popular items does
    after = data["after"]
    assert min(after, key=after.get) == "pop"  # without the top-10 % items pop falls below random
    assert all(0 <= f <= 1 for f in data["fractions"].values())
    assert n_images(nb) == 3
