"""`recdiv compare` end to end on small TREC files; values checked against SciPy on hand-computed P@2."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from recdiv.cli import main
from recdiv.eval.stats.corrections import holm

# 6 users; relevant (grade ≥ 4) items: u1 {a,b}, u2 {c}, u3 {a,d}, u4 {b}, u5 {e}, u6 {a,b,c}
QRELS = """u1 0 a 5\nu1 0 b 4\nu1 0 x 2\nu2 0 c 4\nu3 0 a 5\nu3 0 d 4\nu4 0 b 5\nu5 0 e 4\nu6 0 a 4\nu6 0 b 5
u6 0 c 5\n"""
# top-2 lists per run (score descending)
LISTS = {
    "good": {"u1": "ab", "u2": "cx", "u3": "ad", "u4": "bx", "u5": "ex", "u6": "ab"},
    "mid": {"u1": "ax", "u2": "cx", "u3": "xa", "u4": "xb", "u5": "xy", "u6": "ay"},
    "bad": {"u1": "xy", "u2": "xy", "u3": "xy", "u4": "xb", "u5": "xy", "u6": "cy"},
}
REL = {"u1": "ab", "u2": "c", "u3": "ad", "u4": "b", "u5": "e", "u6": "abc"}


def _p2(run):
    return np.array([sum(i in REL[u] for i in run[u]) / 2 for u in sorted(REL)])


@pytest.fixture
def files(tmp_path):
    q = tmp_path / "test.qrels"
    q.write_text(QRELS)
    paths = []
    for name, lists in LISTS.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"{u} Q0 {i} {r + 1} {10 - r} {name}\n" for u, its in lists.items()
                             for r, i in enumerate(its)))
        paths.append(str(p))
    return str(q), paths


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_json_all_pairs_t_holm(files, capsys):
    q, runs = files
    out = _json(capsys, ["compare", q, *runs, "-m", "P@2", "--format", "json"])
    assert out["measure"] == "P@2" and out["test"] == "t" and out["correction"] == "holm"
    vals = {n: _p2(LISTS[n]) for n in LISTS}
    assert out["means"] == pytest.approx({n: v.mean() for n, v in vals.items()})
    pairs = [("good", "mid"), ("good", "bad"), ("mid", "bad")]
    assert [(p["a"], p["b"]) for p in out["pairs"]] == pairs
    ps = [stats.ttest_rel(vals[a], vals[b]).pvalue for a, b in pairs]
    assert [p["p_value"] for p in out["pairs"]] == pytest.approx(ps)
    assert [p["p_adjusted"] for p in out["pairs"]] == pytest.approx(holm(ps))
    d = vals["good"] - vals["mid"]
    assert out["pairs"][0]["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
    assert set(out["pairs"][0]) >= {"a", "b", "mean_a", "mean_b", "p_value", "p_adjusted", "effect_size"}


def test_baseline_wilcoxon_and_formats(files, capsys):
    q, runs = files
    out = _json(capsys, ["compare", q, *runs, "-m", "P@2", "--test", "wilcoxon", "--correction", "bonferroni",
                         "--baseline", "bad", "--format", "json"])
    assert [(p["a"], p["b"]) for p in out["pairs"]] == [("good", "bad"), ("mid", "bad")]
    d = np.round(_p2(LISTS["good"]) - _p2(LISTS["bad"]), 12)
    ref = stats.wilcoxon(d[d != 0], correction=False, method="approx").pvalue  # tied |d| ⇒ approx
    assert out["pairs"][0]["p_value"] == pytest.approx(ref)
    assert out["pairs"][0]["p_adjusted"] == pytest.approx(min(1, 2 * ref))
    for fmt, needle in (("table", "System"), ("markdown", "| System |"), ("latex", r"\begin{tabular}")):
        assert main(["compare", q, *runs, "-m", "P@2", "--format", fmt, "--baseline", runs[2]]) == 0
        assert needle in capsys.readouterr().out


def test_permutation_seeded_and_output_file(files, capsys, tmp_path):
    q, runs = files
    argv = ["compare", q, *runs[:2], "-m", "P@2", "--test", "permutation", "--format", "json", "--seed", "3"]
    a = _json(capsys, argv)
    assert a["pairs"][0]["p_value"] == _json(capsys, argv)["pairs"][0]["p_value"]
    # 6 users ⇒ exact enumeration; brute force over the 2^6 sign flips
    d = np.round(_p2(LISTS["good"]) - _p2(LISTS["mid"]), 12)
    flips = np.array(np.meshgrid(*[[-1, 1]] * 6)).reshape(6, -1).T
    ref = np.mean(np.abs(flips @ d) >= abs(d.sum()) - 6e-12)
    assert a["pairs"][0]["p_value"] == pytest.approx(ref)
    out = tmp_path / "report.json"
    assert main([*argv, "-o", str(out)]) == 0
    assert json.loads(out.read_text())["pairs"][0]["p_value"] == a["pairs"][0]["p_value"]


def test_lexirecall_sign_test_per_user(files, capsys):
    q, runs = files
    out = _json(capsys, ["compare", q, *runs, "-m", "lexirecall", "--format", "json", "--per-user"])
    assert out["test"] == "sign"
    first = out["pairs"][0]
    assert (first["a"], first["b"]) == ("good", "mid")
    prefs = out["per_user"]["good>mid"]
    assert set(prefs) == set(REL) and set(prefs.values()) <= {-1, 0, 1}
    wins = sum(v > 0 for v in prefs.values())
    losses = sum(v < 0 for v in prefs.values())
    assert (first["wins"], first["losses"], first["ties"]) == (wins, losses, 6 - wins - losses)
    assert first["p_value"] == pytest.approx(stats.binomtest(wins, wins + losses, 0.5).pvalue)
    # "good" retrieves at least as many relevant items as "mid" for every user: never loses
    assert losses == 0 and wins >= 4


def test_errors(files, capsys):
    q, runs = files
    assert main(["compare", q, *runs, "-m", "P@2", "--baseline", "nope"]) == 2
    assert "not one of the runs" in capsys.readouterr().err
    assert main(["compare", q, runs[0], "-m", "P@2"]) == 2
    assert "at least two runs" in capsys.readouterr().err
    assert main(["compare", q, *runs, "-m", "lexirecall", "--test", "t"]) == 2
    assert "only --test sign" in capsys.readouterr().err
    assert main(["compare", q, *runs, "-m", "Nope@3"]) == 2


@pytest.mark.parametrize("fmt", ["json", "table", "markdown", "latex"])
def test_compare_files_is_the_command(files, capsys, fmt):
    """`recdiv compare` is `recdiv.compare_files` (`recdiv.workflows`): the same text, byte for byte."""
    import recdiv
    from recdiv.workflows.compare import tests_of

    q, runs = files
    measures = ["P@2", "lexirecall@2"]
    assert main(["compare", q, *runs, "-m", *measures, "--format", fmt, "--test", "sign"]) == 0
    cli = capsys.readouterr().out
    report = recdiv.compare_files(q, runs, measures, tests=tests_of("sign"))
    if fmt == "json":
        assert report.json(json.loads(cli)[0]["provenance"]) == cli
    else:  # the provenance comments name the command line: the rest is the same
        from recdiv.provenance import record

        text = report.text(fmt, record(None))
        keep = [line for line in text.splitlines() if not line.startswith(("%", "<!--", "#"))]
        assert keep == [line for line in cli.splitlines() if not line.startswith(("%", "<!--", "#"))]
        assert len(keep) > 8
    prefs = next(r for kind, r in report.reports if kind == "pref")
    assert [(p["a"], p["b"]) for p in prefs["pairs"]] == [("good", "mid"), ("good", "bad"), ("mid", "bad")]
    assert report.comparison.to_dict("P@2")["means"] == pytest.approx({s: _p2(LISTS[s]).mean() for s in LISTS})


def test_compare_files_checks_its_options(files):
    import recdiv
    from recdiv.errors import ConfigError
    from recdiv.workflows.compare import tests_of

    q, runs = files
    with pytest.raises(ConfigError, match="only --test sign applies"):
        recdiv.compare_files(q, runs, ["lexirecall@2"], tests=tests_of("t"))
    with pytest.raises(ConfigError, match="family-wise"):
        tests_of("tukey", "holm")
    with pytest.raises(ConfigError, match="at least two runs"):
        recdiv.compare_files(q, runs[:1], ["P@2"])
