"""The command line's handlers are thin: `recdiv recommend`, `rerank` and `meta` are `recdiv.recommend_files`,
`rerank_files` and `meta_files` (`recdiv.workflows`), so Python gets what the shell gets, byte for byte (`recdiv
compare` = `recdiv.compare_files`: tests/eval/test_compare_cli.py)."""
from __future__ import annotations

import pytest

import recdiv
from recdiv.cli import main
from recdiv.errors import ConfigError


@pytest.fixture
def rerank_inputs(tmp_path):
    run = tmp_path / "cands.run"
    run.write_text("".join(f"u Q0 c{j} {j} {s} base\n" for j, s in zip(range(1, 6), [.9, .8, .7, .6, .5]))
                   + "v Q0 c9 1 0.9 base\nv Q0 c2 2 0.8 base\n")  # c9: described by no file
    asp = tmp_path / "aspects.tsv"
    asp.write_text("c1\tA\nc2\tA\nc3\tC\nc4\tA\nc4\tC\nc5\tD\np1\tA\np2\tA\np2\tC\np3\tD\n")
    train = tmp_path / "train.tsv"
    train.write_text("u\tp1\t5\nu\tp2\t4\nu\tp3\t2\nv\tp1\t3\n")
    return run, asp, train


@pytest.mark.parametrize("method", ["xQuAD", "MMR"])
def test_rerank_files_is_the_command(rerank_inputs, tmp_path, capsys, method):
    run, asp, train = rerank_inputs
    cli = tmp_path / "cli.run"
    assert main(["rerank", str(run), "--method", method, "--aspects", str(asp), "--train", str(train), "-k", "3",
                 "-o", str(cli)]) == 0
    line = capsys.readouterr().err.strip().splitlines()[-1]
    done = recdiv.rerank_files(run, method, 3, aspects=asp, train=train)
    done.write(tmp_path / "py.run")
    assert (tmp_path / "py.run").read_text() == cli.read_text()
    assert done.n_users == 2 and done.depth == 5
    # the command's summary line is the library's, but for the elapsed time
    assert line.rsplit(";", 1)[0] == done.summary(3, "score", 0.0, cli).rsplit(";", 1)[0]
    assert "1 candidate item not in the aspect file, the training file" not in line
    assert "1 candidate item in none of the aspect file, the training file: without features" in line


def test_rerank_files_checks_its_inputs(rerank_inputs):
    run, asp, _ = rerank_inputs
    with pytest.raises(ConfigError, match="xQuAD needs --train"):
        recdiv.rerank_files(run, "xQuAD", 3, aspects=asp)
    with pytest.raises(ConfigError, match="--factors-from mf-als fits the model on --train"):
        recdiv.rerank_files(run, "MMR", 3, factors_from="mf-als")


def _graded(rng, users, n_items: int, per_user: int, low: int, line: str) -> str:
    """`line` (with {u}, {i}, {g}) for `per_user` random items i of each user u, each with a random grade g ≥ low."""
    return "".join(line.format(u=u, i=i, g=rng.integers(low, 6)) for u in users
                   for i in sorted(rng.choice(n_items, per_user, replace=False)))


@pytest.fixture
def split_files(tmp_path):
    """A small `recdiv data export`-like split: training ratings, test judgments, item aspects."""
    import numpy as np

    rng = np.random.default_rng(5)
    train = tmp_path / "train.tsv"
    train.write_text(_graded(rng, range(12), 30, 8, 1, "u{u}\ti{i}\t{g}\n"))
    qrels = tmp_path / "test.qrels"
    qrels.write_text(_graded(rng, range(0, 12, 2), 30, 3, 1, "u{u} 0 i{i} {g}\n"))
    aspects = tmp_path / "aspects.tsv"
    aspects.write_text("".join(f"i{i}\t{'ABC'[i % 3]}\n" for i in range(30)))
    return train, qrels, aspects


@pytest.mark.parametrize("algo, params", [("pop", {}), ("mf-als", {"factors": 4, "epochs": 3}),
                                          ("content", {})])
def test_recommend_files_is_the_command(split_files, tmp_path, capsys, algo, params):
    """`recdiv recommend` is `recdiv.recommend_files`: the same run and item factors, byte for byte."""
    train, qrels, aspects = split_files
    cli, cli_factors = tmp_path / "cli.run", tmp_path / "cli.tsv"
    factors = ["--factors-out", str(cli_factors)] if algo == "mf-als" else []
    argv = ["recommend", "--train", str(train), "--qrels", str(qrels), "--aspects", str(aspects), "--algo", algo,
            *[f"--param={k}={v}" for k, v in params.items()], "-n", "5", "--seed", "3", *factors, "-o", str(cli)]
    assert main(argv) == 0
    line = capsys.readouterr().err.strip().splitlines()[-1]
    done = recdiv.recommend_files(algo, 5, params=params, train=train, qrels=qrels, aspects=aspects, seed=3,
                                  item_factors=bool(factors))
    done.write(tmp_path / "py.run")
    assert (tmp_path / "py.run").read_bytes() == cli.read_bytes()
    assert len(done.users) == 6 and done.rankings.lengths.tolist() == [5] * 6
    if factors:
        done.write_factors(tmp_path / "py.tsv")
        assert (tmp_path / "py.tsv").read_bytes() == cli_factors.read_bytes()
    # the command's summary line is the library's, but for the elapsed time
    out = str(cli), str(cli_factors) if factors else None
    assert line.split(" in ")[0] == done.summary(0.0, *out).split(" in ")[0]
    assert line.split("s -> ")[1] == done.summary(0.0, *out).split("s -> ")[1]


def test_recommend_files_predictions_and_dataset_splits(split_files, tmp_path, capsys):
    """--predict and --dataset/--split go through the same function."""
    train, qrels, _ = split_files
    assert main(["recommend", "--train", str(train), "--qrels", str(qrels), "--algo", "avg-rating", "--predict",
                 "-o", str(tmp_path / "cli.tsv")]) == 0
    done = recdiv.recommend_files("avg-rating", train=train, qrels=qrels, predict=True)
    done.write(tmp_path / "py.tsv")
    assert (tmp_path / "py.tsv").read_bytes() == (tmp_path / "cli.tsv").read_bytes()
    assert done.rankings is None and done.n_pairs == 18 and 0 < len(done.predictions) <= 18
    assert done.summary(0.0, "x").startswith(f"avg-rating: {len(done.predictions)} of 18 test ratings predicted")
    assert main(["recommend", "--dataset", "synthetic:tiny", "--split", "holdout:0.2", "--seed", "4", "--algo",
                 "random", "-n", "7", "--tag", "R", "-o", str(tmp_path / "cli.run")]) == 0
    done = recdiv.recommend_files("random", 7, dataset="synthetic:tiny", split="holdout:0.2", seed=4)
    done.write(tmp_path / "py.run", "R")
    assert (tmp_path / "py.run").read_bytes() == (tmp_path / "cli.run").read_bytes()


def test_recommend_files_checks_its_inputs(split_files, tmp_path):
    train, qrels, _ = split_files
    with pytest.raises(ConfigError, match=r"^give the training data once: --dataset/--split or --train$"):
        recdiv.recommend_files("pop", train=train, dataset="synthetic:tiny")
    with pytest.raises(ConfigError, match=r"^--factors-out: pop has no item factors \(models with item factors: "):
        recdiv.recommend_files("pop", train=train, item_factors=True)
    with pytest.raises(ConfigError, match=r"needs item attributes: pass --aspects ASPECTS\.tsv"):
        recdiv.recommend_files("content", train=train, qrels=qrels)
    with pytest.raises(ConfigError, match=r"^--predict writes predictions of the test pairs: pass --qrels"):
        recdiv.recommend_files("pop", train=train, predict=True)
    from recdiv.data import lastfm

    plays = tmp_path / lastfm.LASTFM_360K_PLAYS  # artists without an id: 'name:band 0', which a TREC run cannot hold
    plays.write_text("".join(f"user{u}\t\tband {i}\t{u + i}\n" for u in range(6) for i in range(4)))
    with pytest.raises(recdiv.DataError, match=r"^.*x\.run: cannot write item id 'name:band 0'"):
        recdiv.recommend_files("pop", dataset=tmp_path, split="holdout:0.5", output=tmp_path / "x.run")


@pytest.fixture
def meta_inputs(tmp_path):
    import numpy as np

    rng = np.random.default_rng(2)
    qrels = tmp_path / "test.qrels"
    qrels.write_text(_graded(rng, range(20), 15, 4, 3, "u{u} 0 i{i} {g}\n"))
    runs = []
    for s in range(3):
        run = tmp_path / f"s{s}.run"
        run.write_text("".join(f"u{u} Q0 i{i} {r} {10 - r} s{s}\n" for u in range(20)
                               for r, i in enumerate(rng.permutation(15)[:8], start=1)))
        runs.append(run)
    return qrels, runs


def test_meta_files_is_the_command(meta_inputs, tmp_path, capsys):
    """`recdiv meta` is `recdiv.meta_files`: the same text, JSON (but the provenance) and plots, byte for byte."""
    import json

    qrels, runs = meta_inputs
    argv = ["meta", str(qrels), *map(str, runs), "-m", "nDCG@5", "-m", "P@5", "--samples", "200", "--asl-samples",
            "50", "--robustness-samples", "2", "--sparsity-levels", "1,0.5", "--popularity-levels", "0,10",
            "--seed", "1"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main([*argv, "--format", "json", "--plots", str(tmp_path / "cli")]) == 0
    out = json.loads(capsys.readouterr().out)
    report = recdiv.meta_files(qrels, runs, ["nDCG@5", "P@5"], dp_samples=200, asl_samples=50, robustness_samples=2,
                               sparsity_levels=[1, 0.5], popularity_levels=[0, 10], seed=1)
    assert report.text() == text
    assert json.loads(report.json()) == {**out, "provenance": None}
    report.write_plots(tmp_path / "py")
    cli_svgs = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert cli_svgs == sorted(p.name for p in (tmp_path / "py").iterdir()) and len(cli_svgs) >= 4
    assert all((tmp_path / "py" / n).read_bytes() == (tmp_path / "cli" / n).read_bytes() for n in cli_svgs)
    assert f"qrels {qrels}; 3 systems: s0, s1, s2; measures: nDCG@5, P@5; seed 1." in report.page()


def test_meta_files_checks_its_options(meta_inputs):
    qrels, runs = meta_inputs
    with pytest.raises(ConfigError, match=r"^--alpha must be in \(0, 1\)$"):
        recdiv.meta_files(qrels, runs, ["P@5"], alpha=1.5)
    with pytest.raises(ConfigError, match=r"^--sparsity-levels must be fractions in \(0, 1\]$"):
        recdiv.meta_files(qrels, runs, ["P@5"], sparsity_levels=[0])
    with pytest.raises(ConfigError, match=r"^--analysis perturbation needs --aspects FILE"):
        recdiv.meta_files(qrels, runs, ["P@5"], ["perturbation"])
    with pytest.raises(TypeError, match="unexpected options samples"):
        recdiv.meta_files(qrels, runs, ["P@5"], samples=3)
