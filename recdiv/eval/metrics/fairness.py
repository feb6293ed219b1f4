"""Exposure and fairness of rankings: expected exposure (EE-L, EE-D, EE-R; Diaz et al. 2020) over stochastic
rankings, attention-weighted rank fairness (AWRF; Sapiezynski et al. 2019) and the exposure share of an item
group (a provider group, a protected attribute).

Exposure. A user scanning a list reaches position k with probability disc(k) (a position discount of
`recdiv.models.discount`, zero beyond the cutoff K), so item i gets the exposure disc(rank(i)) from one ranking and
the expected exposure ε_i = (1/S) Σ_s disc(rank_s(i)) from S rankings sampled from a stochastic policy: the samples
of a `RankingSamples` (several sampled run files), rankings sampled here from the run's scores by Plackett–Luce
(`samples=S`, `recdiv.models.stochastic`), or the run's one ranking (a deterministic policy, S = 1).

Expected exposure (per user; relevant ⇔ grade ≥ τ, m = |Rel_u|, n = |I| the item vocabulary, w_j = disc(j)):
the target ε* is the exposure under the ideal stochastic policy that ranks every relevant item above every other
item and shuffles items within each level, so relevant items share the attention of positions 1..m and the other
n − m items that of positions m+1..K: ε*_i = (Σ_{j≤min(m,K)} w_j)/m for relevant i, (Σ_{m<j≤K} w_j)/(n − m) otherwise.
EE-L = ‖ε − ε*‖² (lower is better), EE-D = ‖ε‖² (disparity, lower is better), EE-R = ε·ε* (relevance, higher is
better); EE-L = EE-D − 2·EE-R + ‖ε*‖² (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020, eq. 7–9; their
browsing model is RBP's, disc = exp0.5 by default).

Groups (`Context.item_groups`, an items × groups space read like an aspect file: item<TAB>group[<TAB>weight]): the
exposure of group g in u's list is G_g = Σ_k disc(k)·x_{i_k,g} (x the membership weight; an item in several groups
counts for each, as TREC Fair Ranking's alignment vectors), expected over the samples; items without a group form
one more group, "ungrouped".
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from recdiv.arrays.concentration import jensen_shannon
from recdiv.data.rankings import PAD
from recdiv.data.samples import samples_of
from recdiv.errors import ConfigError
from recdiv.eval.context import RunView
from recdiv.eval.measure import Param, PerUserMeasure
from recdiv.eval.params import POSITION_DISC
from recdiv.models.discount import parse_discount
from recdiv.models.stochastic import TRANSFORMS, plackett_luce, plackett_luce_weights

if TYPE_CHECKING:
    from recdiv.data.qrels import Qrels
    from recdiv.data.rankings import Rankings
    from recdiv.eval.context import EvalContext

__all__ = ["AWRF", "EED", "EEL", "EER", "GroupExposure", "expected_exposure"]

#: the most Plackett–Luce samples a measure draws per user (a limit checked before any work)
MAX_SAMPLES = 100_000
UNGROUPED = "ungrouped"

SAMPLES = Param("samples", int, 0, "rankings sampled per user by Plackett–Luce from a deterministic run's scores; "
                "0 = the run's own ranking (a stochastic run is always evaluated on its own samples)", low=0,
                high=MAX_SAMPLES)
SEED = Param("seed", int, 0, "seed of the Plackett–Luce samples", low=0)
TRANSFORM = Param("transform", str, "softmax", "scores → Plackett–Luce weights (recdiv.models.stochastic)",
                  choices=TRANSFORMS)
SCALE = Param("scale", float, 1.0, "inverse temperature β: weights of β·score", low=0.0, low_open=True)


def expected_exposure(measure, rankings: Rankings, qrels: Qrels, context: EvalContext, disc: str,
                      samples: int = 0, seed: int = 0, transform: str = "softmax",
                      scale: float = 1.0) -> tuple[RunView, np.ndarray, np.ndarray, np.ndarray]:
    """(view, rows, items, ε): the expected exposure ε > 0 of every item that some ranking of user `rows` (an
    index into `view.users`, the evaluated population) shows within the measure's cutoff, one entry per (user,
    item). From `RankingSamples`, every sample (`samples` does not apply); from one run, its ranking (`samples` = 0)
    or `samples` Plackett–Luce rankings drawn from its scores (one generator seeded `seed`, users in evaluation
    order)."""
    K = measure.cutoff
    runs = samples_of(rankings) or (rankings,)
    views = [RunView.of(context, r, qrels) for r in runs]
    n = len(views[0].users)
    if samples > 0 and samples_of(rankings) is None:
        key = ("expected exposure", K, str(parse_discount(disc)), samples, seed, transform, float(scale))
        return views[0], *views[0].memo(key, lambda: _sampled_exposure(views[0], K, disc, samples, seed, transform,
                                                                         scale))
    n_items = len(views[0].rankings.item_vocab)
    parts_r, parts_i, parts_w = [], [], []
    for view in views:
        items = view.items if K is None else view.at(view.items, K, fill=PAD)
        w = parse_discount(disc).positions(items.shape[1])
        ok = items != PAD
        parts_r.append(np.broadcast_to(np.arange(n)[:, None], items.shape)[ok])
        parts_i.append(items[ok])
        parts_w.append(np.broadcast_to(w, items.shape)[ok])
    key = np.concatenate(parts_r).astype(np.int64) * n_items + np.concatenate(parts_i)
    uniq, inv = np.unique(key, return_inverse=True)
    eps = np.bincount(inv, weights=np.concatenate(parts_w), minlength=len(uniq)) / len(views)
    keep = eps > 0
    return views[0], uniq[keep] // n_items, uniq[keep] % n_items, eps[keep]


def _sampled_exposure(view: RunView, K: int | None, disc: str, samples: int, seed: int, transform: str,
                      scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, items, ε) of `samples` Plackett–Luce rankings per user drawn from the run's scores (kept in the view's
    cache: EE-L, EE-D and EE-R with the same parameters share one draw)."""
    n = len(view.users)
    items, scores = view.items, view.aligned.scores
    valid = items != PAD
    depth = items.shape[1] if K is None else min(K, items.shape[1])
    w = parse_discount(disc).positions(depth)
    weights = plackett_luce_weights(scores, valid, transform, scale)
    rng = np.random.default_rng(seed)
    eps = np.zeros(n * items.shape[1])
    step = max(1, 2_000_000 // max(1, samples * items.shape[1]))  # users per block: bounded memory
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        pos = plackett_luce(weights[lo:hi], valid[lo:hi], depth, rng, samples)  # (b, S, depth)
        flat = (np.arange(lo, hi)[:, None, None] * items.shape[1] + pos)[pos >= 0]
        eps += np.bincount(flat, weights=np.broadcast_to(w, pos.shape)[pos >= 0], minlength=eps.size)
    keep = valid.ravel() & (eps > 0)
    rows = np.repeat(np.arange(n), items.shape[1])[keep]
    return rows, items.ravel()[keep], eps[keep] / samples


class _ExpectedExposure(PerUserMeasure):
    FAMILY = "fairness"
    SECTION = ""
    CUTOFF = "required"
    STOCHASTIC = True
    PARAMS = (Param("disc", str, "exp0.5", "browsing model: the position discount (RBP's patience 0.5 by default)",
                    spec=POSITION_DISC.spec), SAMPLES, SEED, TRANSFORM, SCALE)
    CITATION = "Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020"

    def run_view(self, rankings, qrels, context):
        return RunView.of(context, (samples_of(rankings) or (rankings,))[0], qrels)

    def per_user(self, rankings, qrels, context=None):
        from recdiv.eval.context import EvalContext

        context = context or EvalContext()
        self._check_context(context)
        p = self.params
        view, rows, items, eps = expected_exposure(self, rankings, qrels, context, p["disc"], p["samples"],
                                                   p["seed"], p["transform"], p["scale"])
        n, K = len(view.users), self.cutoff
        cum = np.cumsum(parse_discount(p["disc"]).positions(K))
        m = view.n_rel.astype(np.int64)
        n_all = len(view.rankings.item_vocab)
        top = np.where(m > 0, cum[np.clip(np.minimum(m, K), 1, K) - 1], 0.0)  # attention of positions 1..min(m, K)
        with np.errstate(invalid="ignore", divide="ignore"):
            e_rel = np.where(m > 0, top / np.maximum(m, 1), 0.0)
            e_non = np.where(n_all > m, (cum[-1] - top) / np.maximum(n_all - m, 1), 0.0)
        rel = self.relevant(view, rows, items)
        target = np.where(rel, e_rel[rows], e_non[rows])
        disparity = np.bincount(rows, weights=eps * eps, minlength=n)
        relevance = np.bincount(rows, weights=eps * target, minlength=n)
        if self.TERM == "D":
            return disparity
        if self.TERM == "R":
            return relevance
        shown_rel = np.bincount(rows, weights=rel, minlength=n)
        shown_non = np.bincount(rows, weights=~rel, minlength=n)
        diff = eps - target
        return (np.bincount(rows, weights=diff * diff, minlength=n) + (m - shown_rel) * e_rel ** 2
                + np.maximum(n_all - m - shown_non, 0) * e_non ** 2)

    @staticmethod
    def relevant(view: RunView, rows: np.ndarray, items: np.ndarray) -> np.ndarray:
        from recdiv.data.qrels import is_relevant

        return is_relevant(view.qrels.lookup(view.users[rows], items[:, None])[:, 0], view.threshold)

    def compute(self, view):  # pragma: no cover - per_user reads every sample itself
        raise NotImplementedError


class EEL(_ExpectedExposure):
    """Expected exposure loss: EE-L = ‖ε − ε*‖² = Σ_i (ε_i − ε*_i)² over every item of the catalogue, ε the expected
    exposure of the (stochastic) ranking policy, ε* the ideal policy's (module docstring). Lower is better; 0 for
    the ideal policy, e.g. a Plackett–Luce ranker that shuffles exactly the relevant items on top."""

    NAME = "EE-L"
    ALIASES = ("expected-exposure-loss",)
    TERM = "L"
    HIGHER_IS_BETTER = False
    FORMULA = "‖ε − ε*‖² = EE-D − 2·EE-R + ‖ε*‖², ε_i = E_π[disc(rank_π(i))]"


class EED(_ExpectedExposure):
    """Expected exposure disparity: EE-D = ‖ε‖² = Σ_i ε_i², the inequality of the exposure the policy gives
    (lowest when exposure is spread evenly: stochastic rankings lower it). Lower is better."""

    NAME = "EE-D"
    RANGE = (0.0, math.inf)
    ALIASES = ("expected-exposure-disparity",)
    TERM = "D"
    HIGHER_IS_BETTER = False
    FORMULA = "‖ε‖² = Σ_i ε_i²"


class EER(_ExpectedExposure):
    """Expected exposure relevance: EE-R = ε·ε* = Σ_i ε_i·ε*_i, the exposure the policy gives the items the ideal
    policy exposes (relevant items weigh most). Higher is better."""

    NAME = "EE-R"
    ALIASES = ("expected-exposure-relevance",)
    TERM = "R"
    FORMULA = "ε·ε* = Σ_i ε_i·ε*_i"


# item groups -----------------------------------------------------------------------------------------------------
GROUP_DISC = Param("disc", str, "jk", "attention model: the position discount (jk = 1/log2(max(k, 2)), TREC Fair "
                   "Ranking's)", spec=POSITION_DISC.spec)


def group_matrix(measure, view: RunView):
    """(items × (groups + 1) CSR of membership weights — the last column is "ungrouped", 1 for items without a
    group —, group names) of `Context.item_groups` over the run's items, computed once per context."""
    space = view.context.item_groups
    if space.items != view.rankings.item_vocab:
        raise ConfigError(f"{measure}: the item groups and the run use different item vocabularies")
    if UNGROUPED in map(str, space.names.ids.tolist()):
        raise ConfigError(f"{measure}: {UNGROUPED!r} names the items without a group; rename that group of the "
                          "item-groups file")

    def build():
        import scipy.sparse as sp

        m = sp.csr_matrix(space.membership, dtype=np.float64)
        none = (np.diff(m.indptr) == 0).astype(np.float64)
        names = [str(x) for x in space.names.id_of(np.arange(space.n_aspects)).tolist()]
        return sp.hstack([m, sp.csr_matrix(none[:, None])], format="csr"), [*names, UNGROUPED]

    return view.context.cache.get(("item groups", space), build)


def group_exposure(measure, rankings, qrels, context) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(G (users × groups+1) expected group exposure of every evaluated user's list, attention Σ_k disc(k) of the
    list (expected over the samples), group names)."""
    import scipy.sparse as sp

    view, rows, items, eps = expected_exposure(measure, rankings, qrels, context, measure.params["disc"])
    x, names = group_matrix(measure, view)
    n = len(view.users)
    shown = sp.csr_matrix((eps, (rows, items)), shape=(n, x.shape[0]))
    return np.asarray((shown @ x).todense()), np.bincount(rows, weights=eps, minlength=n), names


class _GroupMeasure(PerUserMeasure):
    FAMILY = "fairness"
    SECTION = ""
    STOCHASTIC = True
    NEEDS = ("item_groups",)

    def run_view(self, rankings, qrels, context):
        return RunView.of(context, (samples_of(rankings) or (rankings,))[0], qrels)

    def compute(self, view):  # pragma: no cover - per_user reads every sample itself
        raise NotImplementedError


class AWRF(_GroupMeasure):
    """Attention-weighted rank fairness: AWRF = 1 − JS(E ‖ T), the Jensen–Shannon divergence between the share of
    the list's attention each item group receives, E_g = G_g / Σ_g' G_g', and a target distribution T over the
    groups: the groups' shares of the catalogue (Σ_i x_{i,g} / Σ_{i,g'} x_{i,g'}; `target=catalog`) or uniform.
    1 = exposure in the target proportions; base 2 bounds JS by 1, base e (TREC Fair Ranking 2021–22, SciPy's
    default) by ln 2. A user without a list scores 0. Sapiezynski, Zeng, Robertson, Mislove & Wilson, WWW 2019
    companion; in this form TREC Fair Ranking 2021–22 (Ekstrand et al.)."""

    NAME = "AWRF"
    RANGE = (0.0, 1.0)
    ALIASES = ("attention-weighted-rank-fairness",)
    PARAMS = (GROUP_DISC,
              Param("target", str, "catalog", "target distribution over the groups: their catalogue shares, or "
                    "uniform", choices=("catalog", "uniform")),
              Param("base", str, "2", "logarithm of the Jensen–Shannon divergence (2: in [0, 1]; e: TREC's)",
                    choices=("2", "e")))
    FORMULA = "1 − JS(E ‖ T), E_g = Σ_k disc(k)·x_{i_k,g} / Σ_g' Σ_k disc(k)·x_{i_k,g'}"
    CITATION = "Sapiezynski et al., WWW 2019 companion; TREC Fair Ranking 2021–22"

    def per_user(self, rankings, qrels, context=None):
        from recdiv.eval.context import EvalContext

        context = context or EvalContext()
        self._check_context(context)
        G, _, _ = group_exposure(self, rankings, qrels, context)
        view = self.run_view(rankings, qrels, context)
        x, _ = group_matrix(self, view)
        if self.params["target"] == "uniform":
            target = np.full(x.shape[1], 1.0 / x.shape[1])
        else:
            size = np.asarray(x.sum(axis=0)).ravel()
            target = size / size.sum()
        tot = G.sum(axis=1)
        base = 2.0 if self.params["base"] == "2" else np.e
        out = np.zeros(len(G))
        has = tot > 0
        out[has] = 1.0 - jensen_shannon(G[has] / tot[has, None], target[None, :], base)
        return out


class GroupExposure(_GroupMeasure):
    """Exposure share of one item group (a provider group, a protected attribute) in each list: G_g / Σ_k disc(k),
    the share of the list's attention that goes to items of group g (with items in several groups the shares of
    all groups add up to more than 1); 0 for a user without a list. Singh & Joachims, KDD 2018 (exposure of a
    group); Ekstrand et al., Fairness in Information Access Systems, 2022 (provider groups)."""

    NAME = "GroupExposure"
    RANGE = (0.0, 1.0)
    ALIASES = ("group-exposure", "provider-exposure")
    PARAMS = (Param("group", str, None, f"the item group (a name of the item-groups file; {UNGROUPED} for the items "
                    "without one)"), GROUP_DISC)
    FORMULA = "Σ_k disc(k)·x_{i_k,g} / Σ_k disc(k)"
    CITATION = "Singh & Joachims, KDD 2018; Ekstrand et al., FnTIR 2022"

    def validate(self):
        if not self.params["group"]:
            raise ConfigError(f"{self.NAME} needs the group whose exposure it measures, e.g. "
                              f"{self.NAME}(group=indie)@10")

    def per_user(self, rankings, qrels, context=None):
        from recdiv.eval.context import EvalContext

        context = context or EvalContext()
        self._check_context(context)
        G, attention, names = group_exposure(self, rankings, qrels, context)
        group = self.params["group"]
        if group not in names:
            shown = ", ".join(names[:8]) + (", …" if len(names) > 8 else "")
            raise ConfigError(f"{self}: no item group {group!r} (groups: {shown})")
        g = names.index(group)
        return np.divide(G[:, g], attention, out=np.zeros(len(G)), where=attention > 0)
