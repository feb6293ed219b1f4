"""The vectorised rerankers equal straightforward per-user loops of the same objective (recdiv.diversifiers.reference)
on random instances: ragged candidate lists, items without aspects, users without a training profile.

λ stays above 0 for MSD, SSD and COVER: at λ = 0 only the diversity term is left, and candidates with different
features often have mathematically equal gains (aspect sets {0, 3, 4} and {2, 3, 4} cover the same amount) computed
in a different order (the compiled loops sum over distinct aspect sets, multiply 1/√|A| factors), so the last bit, not
the list order, decides such a tie — in both forms, differently (docs/diversifiers.md, "Ties are exact
floating-point ties"). PlackettLuce's and Random's loops draw from one generator seeded as the reranker, users in
ascending order."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.diversifiers import make_reranker
from recdiv.diversifiers.reference import reference_rerank
from recdiv.diversifiers.reference import user_environments as user_envs
from recdiv.testing.instances import random_instance

CONFIGS = [
    ("MMR", {"lambda": 0.5}), ("MMR", {"lambda": 0.8}), ("MMR", {"lambda": 0.3, "variant": "ranksys"}),
    ("MMR", {"lambda": 0.7, "variant": "ranksys"}),
    ("Ziegler", {"theta_F": 0.5}), ("Ziegler", {"theta_F": 0.3}),
    ("IASelect", {}),
    ("xQuAD", {"lambda": 0.5}), ("xQuAD", {"lambda": 0.9, "alpha": 0.5}), ("xQuAD", {"lambda": 0.5, "norm": "zscore"}),
    ("NGD", {"lambda": 0.5}), ("NGD", {"lambda": 0.8}),
    ("PM2", {"lambda": 0.5}), ("PM2", {"lambda": 0.9}),
    ("DPP", {"theta": None}), ("DPP", {"theta": 0.5}), ("DPP", {"theta": 0.9}),
    ("Calibrated", {"lambda": 0.5}), ("Calibrated", {"lambda": 0.9}),
    ("Random", {"seed": 7}),
    ("MSD", {"lambda": 0.5}), ("MSD", {"lambda": 0.2, "norm": "zscore"}),
    ("SSD", {"lambda": 0.5}), ("SSD", {"lambda": 0.3, "window": 3, "gamma": 2.0}),
    ("SSD", {"lambda": 0.4, "bias": False}),
    ("COVER", {"lambda": 0.2}), ("COVER", {"lambda": 0.3, "coverage": "max", "gamma": 1.0}),
    ("Swap", {"threshold": 0.5}), ("Swap", {"threshold": 0.2, "norm": "rank"}),
    ("FAIR", {"p": 0.5}), ("FAIR", {"p": 0.7, "alpha": 0.05}), ("FAIR", {"p": 0.3, "adjust": False}),
    ("PlackettLuce", {"seed": 3}),
    ("PlackettLuce", {"seed": 4, "norm": "minmax", "transform": "linear", "scale": 2.0}),
    ("PlackettLuce", {"seed": 5, "norm": "minmax", "transform": "none"}),
]


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[f"{c[0]}{c[1]}" for c in CONFIGS])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_equals_per_user_loop(name, params, seed):
    cands, ctx = random_instance(seed)
    k = 8
    out = make_reranker(name, **params).rerank(cands, k, ctx)
    envs = user_envs(cands, ctx, seed=params.get("seed", 0))
    for r in np.argsort(cands.users):  # ascending dense user index: the order of the random stream
        env = envs[r]
        v = cands.items[r] >= 0
        pos = reference_rerank(name, params, cands.items[r][v].tolist(), cands.scores[r][v].tolist(), k, env)
        got = out.items[r][out.items[r] >= 0].tolist()
        assert got == cands.items[r][pos].tolist(), f"user row {r}"


def test_random_reference_stream_order():
    """Random: one generator, users in ascending dense index (rows are stored in descending order here)."""
    cands, ctx = random_instance(3, ragged=False)
    out = make_reranker("Random", seed=11).rerank(cands, 5, ctx)
    rng = np.random.default_rng(11)
    for u in sorted(cands.users):
        r = int(np.flatnonzero(cands.users == u)[0])
        assert out.items[r].tolist() == cands.items[r][rng.permutation(cands.k)[:5]].tolist()
