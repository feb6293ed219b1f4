"""A table of bootstrap intervals draws the resampling counts once (`Results.compare` with ci="bootstrap"): each
interval is the one `confidence_interval` gives alone, with the same seed."""

from __future__ import annotations

import numpy as np

from recdiv.eval.results import Results
from recdiv.eval.stats.significance import confidence_interval, resample_counts


def test_compare_bootstrap_intervals_equal_single_intervals():
    rng = np.random.default_rng(1)
    values = {s: {m: rng.random(300) for m in ("x", "y", "z")} for s in ("a", "b", "c")}
    cmp = Results(values).compare(baseline="a", test="t", ci="bootstrap", seed=3, ci_samples=500)
    assert len(cmp.pairs) == 6
    for pc in cmp.pairs:
        alone = confidence_interval(values[pc.a][pc.measure], values[pc.b][pc.measure], method="bootstrap", seed=3,
                                    n_samples=500)
        assert (pc.ci_low, pc.ci_high) == alone
    for m, per_system in cmp.mean_ci.items():
        for s, interval in per_system.items():
            assert interval == confidence_interval(values[s][m], method="bootstrap", seed=3, n_samples=500)


def test_counts_of_another_shape_are_drawn_again():
    x = np.random.default_rng(2).random(50)
    wrong = resample_counts(1000, 40, 0)
    assert confidence_interval(x, method="bootstrap", counts=wrong) == confidence_interval(x, method="bootstrap")
    assert confidence_interval(x, method="bootstrap", counts=resample_counts(1000, 50, 0)) == \
        confidence_interval(x, method="bootstrap")
