"""`recdiv rerank`'s options (issue #16.2): what a reranker reads follows from its declared needs; item
similarities; latent aspects from a factor file or a model fitted on --train; the run's rank order; the tag; the
summary line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recdiv.aspects.latent import factor_space
from recdiv.aspects.similarity import Jaccard, LatentCosine, RatingPearson
from recdiv.aspects.space import AspectSpace
from recdiv.cli import main
from recdiv.data.factors import read_item_factors_tsv, write_item_factors_tsv
from recdiv.data.interactions import Interactions
from recdiv.data.rankings import Rankings
from recdiv.data.textio import read_interactions_tsv, read_trec_run, write_interactions_tsv, write_trec_run
from recdiv.data.vocab import Vocab
from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.errors import DataError


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """30 users × 40 items: ratings, a genre-like aspect file, factors, and a 15-candidate run per user."""
    d = tmp_path_factory.mktemp("rr")
    rng = np.random.default_rng(5)
    users, items = Vocab([f"u{j:02d}" for j in range(30)]), Vocab([f"i{j:02d}" for j in range(40)])
    u = np.repeat(np.arange(30), 10)
    i = np.concatenate([rng.choice(40, 10, replace=False) for _ in range(30)])
    train = Interactions.from_arrays(u, i, rng.integers(1, 6, len(u)).astype(float), users, items)
    write_interactions_tsv(train.to_frame(), d / "train.tsv")
    asp = pd.DataFrame([(it, f"g{a}") for it in items.ids for a in rng.choice(5, rng.integers(1, 3), replace=False)],
                       columns=["item", "aspect"])
    asp.to_csv(d / "aspects.tsv", sep="\t", header=False, index=False)
    q = rng.normal(size=(40, 6))
    write_item_factors_tsv(items, q, d / "f.tsv")
    rows = []
    for uu in users.ids:
        cand = rng.choice(40, 15, replace=False)
        rows += [(uu, items.ids[c], r + 1, float(15 - r) + rng.random() * 0.5) for r, c in enumerate(cand)]
    frame = pd.DataFrame(rows, columns=["user", "item", "rank", "score"])
    write_trec_run(frame, d / "run.txt")
    space = AspectSpace.from_frame(asp, items)
    cands = Rankings.from_frame(frame, users, items)
    return d, train, space, q, cands


def _rerank(setup, capsys, *args, out="out.run"):
    d = setup[0]
    rc = main(["rerank", str(d / "run.txt"), *map(str, args), "-k", "5", "-o", str(d / out)])
    err = capsys.readouterr().err
    assert rc == 0, err
    return read_trec_run(d / out), err


def _lists(run: pd.DataFrame) -> dict:
    return run.groupby("user")["item"].apply(list).to_dict()


def _expected(cands, k, reranker, **ctx) -> dict:
    out = reranker.rerank(cands, k, RerankContext(**ctx))
    return {str(u): list(out.item_vocab.id_of(row[row >= 0]))
            for u, row in zip(out.user_vocab.id_of(out.users), out.items)}


@pytest.mark.parametrize("sim", ["jaccard", "latent-cosine", "pearson"])
def test_similarity_choice_gives_the_library_lists(setup, capsys, sim):
    d, train, space, q, cands = setup
    extra = {"jaccard": ["--aspects", d / "aspects.tsv"], "latent-cosine": ["--factors", d / "f.tsv"],
             "pearson": ["--train", d / "train.tsv"]}[sim]
    run, err = _rerank(setup, capsys, "--method", "MMR", "--similarity", sim, *extra)
    similarity = {"jaccard": lambda: Jaccard(space), "latent-cosine": lambda: LatentCosine(q),
                  "pearson": lambda: RatingPearson(train)}[sim]()
    ctx = {"aspects": space} if sim == "jaccard" else {"train": train} if sim == "pearson" else {}
    assert _lists(run) == _expected(cands, 5, make_reranker("MMR"), similarity=similarity, **ctx)
    assert f"similarity {sim}" in err and err.count("\n") == 1  # one summary line


def test_latent_aspects_from_a_factor_file_or_a_fitted_model(setup, capsys):
    d, train, _, q, cands = setup
    run, err = _rerank(setup, capsys, "--method", "xQuAD", "--factors", d / "f.tsv", "--dominant", "2", "--train",
                       d / "train.tsv")
    assert _lists(run) == _expected(cands, 5, make_reranker("xQuAD"), train=train,
                                    aspects=factor_space(q, 2, train.items))
    assert "latent aspects: 2 dominant of 6 factors" in err
    run, _ = _rerank(setup, capsys, "--method", "IA-Select", "--factors-from", "pure-svd", "--factors-param",
                     "factors=4", "--dominant", "1", "--train", d / "train.tsv")
    from recdiv.algorithms.registry import make_recommender

    fitted = make_recommender("pure-svd", factors=4).fit(
        Interactions.from_frame(read_interactions_tsv(d / "train.tsv"), users=train.users, items=train.items))
    assert _lists(run) == _expected(cands, 5, make_reranker("IASelect"), train=train,
                                    aspects=factor_space(fitted.item_factors, 1, train.items))


def test_order_rank_and_tag(setup, capsys):
    d, train, _, _, cands = setup
    shuffled = read_trec_run(d / "run.txt")
    shuffled["rank"] = shuffled.groupby("user")["rank"].transform(lambda r: r.to_numpy()[::-1])  # reverse order
    write_trec_run(shuffled, d / "rev.txt")
    rc = main(["rerank", str(d / "rev.txt"), "--method", "NGD", "--train", str(d / "train.tsv"), "--order", "rank",
               "--tag", "ngd-rank", "-k", "5", "-o", str(d / "o.run")])
    assert rc == 0 and "(by rank)" in capsys.readouterr().err
    by_rank = Rankings.from_frame(shuffled, cands.user_vocab, cands.item_vocab, order="rank")
    assert _lists(read_trec_run(d / "o.run")) == _expected(by_rank, 5, make_reranker("NGD"), train=train)
    assert {line.split()[-1] for line in open(d / "o.run")} == {"ngd-rank"}
    # Random permutes candidate positions, so its lists show the order the candidates were read in
    rc = main(["rerank", str(d / "rev.txt"), "--method", "Random", "--order", "rank", "-k", "5", "-o",
               str(d / "r.run")])
    assert rc == 0
    by_score, _ = _rerank(setup, capsys, "--method", "Random", out="s.run")
    assert _lists(by_score) != _lists(read_trec_run(d / "r.run"))  # the rank column is not ignored


def test_needs_decide_the_required_files(setup, capsys):
    d = setup[0]
    _rerank(setup, capsys, "--method", "Random")  # needs nothing
    _rerank(setup, capsys, "--method", "NGD", "--train", d / "train.tsv")  # profiles only, no aspects
    cases = [
        (["--method", "xQuAD", "--aspects", d / "aspects.tsv"], "xQuAD needs --train"),
        (["--method", "xQuAD", "--train", d / "train.tsv"], "xQuAD needs aspects: --aspects"),
        (["--method", "xQuAD", "--train", d / "train.tsv", "--factors", d / "f.tsv"], "add --dominant L"),
        (["--method", "MMR"], "MMR needs an item similarity"),
        (["--method", "MMR", "--similarity", "jaccard"], "--similarity jaccard compares aspect sets"),
        (["--method", "MMR", "--similarity", "pearson"], "--similarity pearson correlates training ratings"),
        (["--method", "MMR", "--factors-from", "wrmf"], "fits the model on --train"),
        (["--method", "MMR", "--factors-from", "pop", "--train", d / "train.tsv"], "pop has no item factors"),
        (["--method", "MMR", "--dominant", "2", "--aspects", d / "aspects.tsv"], "pass --factors or --factors-from"),
    ]
    for args, message in cases:
        assert main(["rerank", str(d / "run.txt"), *map(str, args), "-o", str(d / "x.run")]) == 2, args
        assert message in capsys.readouterr().err, args


def test_factor_file_round_trip_and_errors(tmp_path):
    items = Vocab(["a", "b", "c"])
    q = np.array([[0.1, -2.0], [1 / 3, 7e-300], [0.0, 0.0]])
    write_item_factors_tsv(items, q, tmp_path / "f.tsv")
    ids, got = read_item_factors_tsv(tmp_path / "f.tsv")
    assert list(ids) == ["a", "b", "c"] and np.array_equal(got, q)
    rng = np.random.default_rng(0)  # bit for bit, also where pandas' fast parser is one unit off in the last place
    many = np.vstack([rng.normal(size=(200, 10)), rng.normal(size=(200, 10)).astype(np.float32)])
    write_item_factors_tsv(Vocab([f"i{j}" for j in range(400)]), many, tmp_path / "many.tsv")
    assert np.array_equal(read_item_factors_tsv(tmp_path / "many.tsv")[1], many)
    (tmp_path / "bad.tsv").write_text("a\t1\t2\nb\t1\tx\n")
    with pytest.raises(DataError, match=r"bad\.tsv:2: factor 2 must be a finite number"):
        read_item_factors_tsv(tmp_path / "bad.tsv")
    (tmp_path / "dup.tsv").write_text("# factors\na\t1\na\t2\n")
    with pytest.raises(DataError, match=r"dup\.tsv:3: item 'a' is given twice"):
        read_item_factors_tsv(tmp_path / "dup.tsv")


@pytest.mark.parametrize(("method", "param"), [("MMR", "norm=none"), ("MSD", "norm=none"), ("DPP", "norm=zscore")])
def test_norm_none_and_zscore_from_the_command_line(setup, capsys, method, param):
    """`--param norm=none` reads as a null value (`none` is also JSON's null in params), and a choice that includes
    the name "none" takes it as that name; DPP also weighs z-scores (Pyversity's DPP convention)."""
    d, _, space, _, cands = setup
    run, err = _rerank(setup, capsys, "--method", method, "--aspects", d / "aspects.tsv", "--param", param)
    value = param.split("=")[1]
    assert f"norm={value}" in err
    assert _lists(run) == _expected(cands, 5, make_reranker(method, norm=value), aspects=space)
    assert _lists(run) != _expected(cands, 5, make_reranker(method), aspects=space)  # the option moved the lists


def test_factors_from_equals_recommend_factors_out(setup, capsys):
    """`rerank --factors-from wrmf` fits the same model as `recommend --factors-out` on the same training file with
    the same parameters (the seed included): the factor file reads back bit for bit and the reranked lists are
    the same (MMR over the latent cosine, which sees the last bits of the vectors; xQuAD over dominant factors)."""
    d, train, _, _, _ = setup
    params = ["factors=5", "iterations=3", "seed=7"]
    assert main(["recommend", "--train", str(d / "train.tsv"), "--aspects", str(d / "aspects.tsv"), "--algo", "wrmf",
                 *[a for p in params for a in ("--param", p)], "-n", "15", "-o", str(d / "wrmf.run"),
                 "--factors-out", str(d / "wrmf.factors")]) == 0
    capsys.readouterr()
    from recdiv.algorithms.registry import make_recommender

    fitted = make_recommender("wrmf", factors=5, iterations=3, seed=7).fit(train)
    ids, written = read_item_factors_tsv(d / "wrmf.factors")
    assert list(ids) == list(train.items.ids) and np.array_equal(written, fitted.item_factors)
    by_param = [a for p in params for a in ("--factors-param", p)]
    for method in (["--method", "MMR", "--similarity", "latent-cosine"],
                   ["--method", "xQuAD", "--dominant", "2"]):
        method = [*method, "--train", d / "train.tsv"]
        from_file, _ = _rerank(setup, capsys, *method, "--factors", d / "wrmf.factors", out="a.run")
        fitted_here, err = _rerank(setup, capsys, *method, "--factors-from", "wrmf", *by_param, out="b.run")
        assert "factors of wrmf fitted on" in err
        assert _lists(fitted_here) == _lists(from_file)
        assert np.array_equal(fitted_here["score"].to_numpy(), from_file["score"].to_numpy())
