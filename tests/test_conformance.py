"""The conformance suites of recdiv.testing.conformance, generated from the registries: every registered measure,
reranker, recommender and dataset format is checked against the contract of its kind (a new built-in is checked
without a line of test here)."""

from __future__ import annotations

import pytest

from recdiv.testing import conformance

MEASURES = list(conformance.registered("measure"))
RERANKERS = list(conformance.registered("reranker"))
RECOMMENDERS = list(conformance.registered("recommender"))
FORMATS = list(conformance.registered("dataset format"))


@pytest.mark.parametrize(("name", "cls"), MEASURES, ids=[n for n, _ in MEASURES])
def test_measure(name, cls):
    conformance.check_measure(cls)


@pytest.mark.parametrize(("name", "cls"), RERANKERS, ids=[n for n, _ in RERANKERS])
def test_reranker(name, cls):
    conformance.check_reranker_class(cls)


@pytest.mark.parametrize(("name", "cls"), RECOMMENDERS, ids=[n for n, _ in RECOMMENDERS])
def test_recommender(name, cls):
    conformance.check_recommender(cls)


@pytest.mark.parametrize(("name", "fmt"), FORMATS, ids=[n for n, _ in FORMATS])
def test_dataset_format(name, fmt):
    conformance.check_dataset_format(fmt)


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["ml-100k", "hetrec2011-lastfm-2k", "ml-latest-small"])
def test_named_dataset(name, data_root):
    from recdiv.data.datasets import DATASETS, FORMATS

    dataset = DATASETS.get(name)
    conformance.check_dataset_format(FORMATS.get(dataset.format), data_root / dataset.folder)


def test_the_suites_catch_a_broken_component():
    """Each suite fails on a component that breaks its contract."""
    import numpy as np

    from recdiv.algorithms.popularity import Popularity
    from recdiv.diversifiers.mmr import MMR
    from recdiv.eval.metrics.accuracy import Precision

    class Unstable(Precision):
        def compute(self, view):
            return np.random.default_rng().random(len(view.users))

    class Seen(Popularity):
        def recommend(self, users, n, exclude=None):
            return super().recommend(users, n, exclude=None)

    class Repeats(MMR):
        def _rerank_block(self, block, k):
            out = super()._rerank_block(block, k)
            out[:, 1:] = np.where(out[:, 1:] >= 0, out[:, :1], out[:, 1:])
            return out

    with pytest.raises(AssertionError, match="different values"):
        conformance.check_measure(Unstable)
    with pytest.raises(AssertionError, match="training items"):
        conformance.check_recommender(Seen)
    with pytest.raises(AssertionError, match="repeats an item"):
        conformance.check_reranker_class(Repeats)

    class Shifted(Precision):  # P + 1.5: outside its declared range [0, 1]
        def compute(self, view):
            return super().compute(view) + 1.5

    class Falling(Precision):  # P@K is not monotone in K: declared so, the suite refutes it
        MONOTONE_IN_CUTOFF = True

    class NotPure(MMR):  # declares a pure-relevance setting that is not one
        PURE_RELEVANCE = ({"lambda": 0.0},)

    with pytest.raises(AssertionError, match="outside the declared RANGE"):
        conformance.check_measure(Shifted)
    with pytest.raises(AssertionError, match="a value falls"):
        conformance.check_measure(Falling)
    with pytest.raises(AssertionError, match="differ from the baseline's top"):
        conformance.check_reranker_class(NotPure)


def test_degenerate_runs():
    """Every list empty, and every list cut to its first item, for the measure suite."""
    run = conformance.measure_instance(0)[0]
    runs = conformance.degenerate_runs(run)
    assert (runs["every list empty"].items == -1).all()
    one = runs["one item each"]
    assert (one.items[:, 1:] == -1).all() and (one.items[:, 0] == run.items[:, 0]).all()


@pytest.mark.parametrize(("name", "cls"), RERANKERS, ids=[n for n, _ in RERANKERS])
def test_every_built_in_reranker_brings_its_oracle(name, cls):
    """The suite compares a reranker with its readable per-user loop when the class defines `reference` itself:
    every built-in does, so none is skipped."""
    assert "reference" in vars(cls), f"{name} has no readable per-user loop (`reference`) of its own"


def test_the_oracle_check_catches_a_broken_reranker():
    """A reranker whose vectorised form departs from its readable loop fails the oracle check, deterministic or
    stochastic: each broken class below passes the other checks and brings its parent's loop as its own."""
    import numpy as np

    from recdiv.diversifiers.fair import FAIR
    from recdiv.diversifiers.msd import MSD
    from recdiv.diversifiers.plackett_luce import PlackettLuce

    class Nearest(MSD):  # adds the similarities to S, not the distances
        def update(self, st, block, picked, t):
            s = st["slice"](picked)
            st["dist"] += np.where(np.isnan(s), 0.0, s)

        @staticmethod
        def reference(params, cands, scores, k, env):
            return MSD.reference(params, cands, scores, k, env)

    class Lenient(FAIR):  # counts every pick as protected
        def update(self, st, block, picked, t):
            st["count"] += picked >= 0

        @staticmethod
        def reference(params, cands, scores, k, env):
            return FAIR.reference(params, cands, scores, k, env)

    class Descending(PlackettLuce):  # draws the users' uniforms in descending user order
        def _rerank_block(self, block, k):
            return self._positions(block.scores, block.valid, -block.ids, k, block.context, None)

        @staticmethod
        def reference(params, cands, scores, k, env):
            return PlackettLuce.reference(params, cands, scores, k, env)

    for broken in (Nearest, Lenient, Descending):
        with pytest.raises(AssertionError, match="its readable loop"):
            conformance.check_reranker_class(broken)
