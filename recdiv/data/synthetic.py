"""Synthetic ratings with genres: a seeded generator from toy size to ML-20M scale in bounded memory.

The model (all randomness from `numpy.random.SeedSequence(seed)`):

- genres: skewed popularity w_a ∝ (a + 1)^-0.9; every item has 1–3 genres (probabilities .45/.35/.20) drawn
  without replacement in proportion to w (Gumbel top-k);
- items: long-tail popularity pop_i ∝ rank_i^-1 (Zipf over a random permutation) and a quality
  q_i ~ N(0, 0.45) that grows a little with popularity;
- users: genre preferences θ_u ~ Dirichlet(3 · w / Σw) (a few favourite genres each), a bias b_u ~ N(0, 0.35),
  and an activity n_u (log-normal, at least min(20, mean/2) ratings, at most max(0.3 |I|, 2 · mean));
- observation, missing not at random: a user picks a genre a ~ 0.9 θ_u + 0.1 w, then an item of that genre in
  proportion to pop_i (popular items are seen more), rates it, and keeps the rating with a probability that
  grows with the rating (.4, .45, .6, .8, 1 for 1..5: liked items are observed more);
- rating: r = clip(round(3.4 + b_u + q_i + 1.6 (aff_ui − 0.5) + N(0, 0.9)), 1, 5), where aff_ui =
  mean_{a ∈ G_i} θ_ua / max_a θ_ua is 1 for an item of the user's favourite genre.

So an accuracy-only ranking concentrates on each user's top genres, which is what diversifiers counter.
Users are generated in blocks of `block_users` with their own random streams, each block vectorised; the
memory beyond the output is one block's draws, so ML-20M scale (138K × 27K × 20M) fits in well under 8 GB.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.data.interactions import Attribute, Dataset, Interactions
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError

PRESETS: dict[str, tuple[int, int, int]] = {
    "tiny": (40, 120, 1_200),
    "small": (1_000, 1_500, 60_000),
    "ml-100k": (943, 1_682, 100_000),
    "ml-1m": (6_040, 3_706, 1_000_209),
    "ml-20m": (138_493, 26_744, 20_000_263),
}
DEFAULT_PRESET = "small"
GENRES = ["Drama", "Comedy", "Action", "Thriller", "Romance", "Adventure", "Crime", "Sci-Fi", "Horror",
          "Children's", "War", "Mystery", "Fantasy", "Musical", "Animation", "Western", "Film-Noir", "Documentary"]
BLOCK_USERS = 4096
KEEP_PROB = np.array([0.4, 0.45, 0.6, 0.8, 1.0])  # P(rating observed | rating 1..5)
EXPLORE = 0.1
T0 = 946_684_800  # 2000-01-01 UTC


def generate(
    preset: str | None = None,
    *,
    n_users: int | None = None,
    n_items: int | None = None,
    n_ratings: int | None = None,
    n_genres: int = 18,
    seed: int = 0,
    block_users: int = BLOCK_USERS,
) -> Dataset:
    """A synthetic explicit dataset (ratings 1–5, timestamps, item attribute "genres").

    `preset` ("tiny", "small", "ml-100k", "ml-1m", "ml-20m"; default "small") gives the sizes; explicit
    n_users / n_items / n_ratings override them. The same arguments give the same dataset. Exactly n_ratings
    ratings are generated. extras: "user_genre_pref" (θ, users × genres), "item_quality", "item_popularity".
    """
    name = preset or DEFAULT_PRESET
    if name not in PRESETS:
        raise ConfigError(f"unknown synthetic preset {name!r}; choose one of {', '.join(PRESETS)}")
    pu, pi, pr = PRESETS[name]
    n_users, n_items, n_ratings = n_users or pu, n_items or pi, n_ratings or pr
    if min(n_users, n_items, n_ratings, n_genres, block_users) < 1:
        raise ConfigError("synthetic sizes must be positive")
    if n_ratings > 0.5 * n_users * n_items:
        raise ConfigError(f"{n_ratings} ratings are too dense for {n_users} users × {n_items} items (max 50%)")
    n_blocks = math.ceil(n_users / block_users)
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2 + n_blocks)]

    genre_w, item_genres, pop, quality = _items(streams[0], n_items, n_genres)
    theta, bias, activity, start = _users(streams[1], n_users, n_items, n_ratings, genre_w)
    model = _Model(theta, bias, activity, start, genre_w, item_genres, quality, pop,
                   _GenreSampler(item_genres, pop, n_genres))

    indptr = np.zeros(n_users + 1, dtype=np.int64)
    parts_i, parts_r, parts_t = [], [], []
    for b in range(n_blocks):
        lo, hi = b * block_users, min(n_users, (b + 1) * block_users)
        u, i, r, t = _block(streams[2 + b], lo, hi, model)
        np.cumsum(np.bincount(u, minlength=hi - lo), out=indptr[lo + 1 : hi + 1])
        indptr[lo + 1 : hi + 1] += indptr[lo]
        parts_i.append(i.astype(np.int32))
        parts_r.append(r)
        parts_t.append(t)
    indices = np.concatenate(parts_i)
    parts_i.clear()
    data = np.concatenate(parts_r).astype(np.float64)
    parts_r.clear()
    ts = np.concatenate(parts_t)
    parts_t.clear()
    m = sp.csr_matrix((data, indices, indptr), shape=(n_users, n_items))
    m.has_sorted_indices = True
    users = Vocab(pd.RangeIndex(1, n_users + 1))
    items = Vocab(pd.RangeIndex(1, n_items + 1))
    inter = Interactions(users, items, m, kind="explicit", scale=(1.0, 5.0), timestamps=ts)

    names = GENRES[:n_genres] + [f"Genre-{j + 1}" for j in range(len(GENRES), n_genres)]
    rows = np.repeat(np.arange(n_items), (item_genres >= 0).sum(axis=1))
    g = sp.csr_matrix((np.ones(len(rows)), (rows, item_genres[item_genres >= 0])), shape=(n_items, n_genres))
    label = name if (n_users, n_items, n_ratings) == PRESETS[name] else f"{n_users}x{n_items}x{n_ratings}"
    return Dataset(
        f"synthetic:{label}:seed={seed}", inter, {"genres": Attribute(g, Vocab(names))},
        extras={"user_genre_pref": theta, "item_quality": quality, "item_popularity": pop, "seed": seed},
    )


def _items(rng: np.random.Generator, n_items: int, n_genres: int):
    genre_w = (np.arange(n_genres) + 1.0) ** -0.9
    genre_w /= genre_w.sum()
    k = rng.choice(3, size=n_items, p=[0.45, 0.35, 0.20]) + 1
    keys = np.log(genre_w)[None, :] + rng.gumbel(size=(n_items, n_genres))
    top = np.argsort(-keys, axis=1)[:, : min(3, n_genres)]
    item_genres = np.where(np.arange(top.shape[1])[None, :] < k[:, None], top, -1)
    rank = rng.permutation(n_items) + 1.0
    pop = rank**-1.0
    pop /= pop.sum()
    z = np.log(pop)
    quality = rng.normal(0, 0.45, n_items) + 0.15 * (z - z.mean()) / (z.std() or 1.0)
    return genre_w, item_genres, pop, quality


def _users(rng: np.random.Generator, n_users: int, n_items: int, n_ratings: int, genre_w: np.ndarray):
    theta = rng.dirichlet(3.0 * genre_w, size=n_users)
    theta = np.maximum(theta, 1e-12)
    theta /= theta.sum(axis=1, keepdims=True)
    bias = rng.normal(0, 0.35, n_users)
    mean = n_ratings / n_users
    low = max(1, min(20, int(mean // 2)))
    cap = min(n_items, max(int(0.3 * n_items), math.ceil(2 * mean)))
    activity = _allocate(rng.lognormal(0, 1.0, n_users), n_ratings, low, cap)
    start = T0 + rng.integers(0, 3 * 365 * 86400, n_users)
    return theta.astype(np.float32), bias, activity, start


def _allocate(weights: np.ndarray, total: int, low: int, cap: int) -> np.ndarray:
    """Integers in [low, cap] summing to `total`, proportional to `weights` above `low` (water-filling)."""
    n = len(weights)
    x = np.full(n, float(low))
    free = np.ones(n, dtype=bool)
    rest = total - low * n
    for _ in range(100):
        if rest <= 1e-9 or not free.any():
            break
        x[free] += rest * weights[free] / weights[free].sum()
        over = x > cap
        rest = float((x[over] - cap).sum())
        x[over] = cap
        free &= ~over
    out = np.floor(x).astype(np.int64)
    short = total - int(out.sum())
    frac = np.where(out < cap, x - out, -1.0)
    out[np.argsort(-frac, kind="stable")[:short]] += 1
    return out


class _GenreSampler:
    """Draw items of given genres in proportion to popularity (one global searchsorted)."""

    def __init__(self, item_genres: np.ndarray, pop: np.ndarray, n_genres: int):
        rows, slot = np.nonzero(item_genres >= 0)
        g = item_genres[rows, slot]
        order = np.lexsort((rows, g))
        self.item = rows[order]
        w = pop[self.item]
        self.cum = np.cumsum(w)
        counts = np.bincount(g, minlength=n_genres)
        self.end = np.cumsum(counts)
        self.begin = self.end - counts
        seg = np.concatenate([[0.0], self.cum])
        self.lo = seg[self.begin]
        self.mass = seg[self.end] - self.lo

    def draw(self, rng: np.random.Generator, genre: np.ndarray) -> np.ndarray:
        target = self.lo[genre] + rng.random(len(genre)) * self.mass[genre]
        pos = np.searchsorted(self.cum, target, side="right")
        pos = np.clip(pos, self.begin[genre], self.end[genre] - 1)
        return self.item[pos]


def _ratings(rng, users, items, theta_flat, theta_max, n_g, bias, quality, item_genres) -> np.ndarray:
    ig = item_genres[items]
    has = ig >= 0
    th = theta_flat[users[:, None] * n_g + np.maximum(ig, 0)]
    aff = np.where(has, th, 0).sum(axis=1) / has.sum(axis=1) / theta_max[users]
    raw = 3.4 + bias[users] + quality[items] + 1.6 * (aff - 0.5) + rng.normal(0, 0.9, len(users))
    return np.clip(np.rint(raw), 1, 5).astype(np.int8)


class _Model:
    """Everything the per-block sampler reads (global arrays, shared by all blocks)."""

    def __init__(self, theta, bias, activity, start, genre_w, item_genres, quality, pop, sampler):
        self.theta, self.bias, self.activity, self.start = theta, bias, activity, start
        self.genre_w, self.item_genres, self.quality, self.pop, self.sampler = (
            genre_w, item_genres, quality, pop, sampler)
        self.n_g = theta.shape[1]
        self.theta_flat = theta.ravel()
        self.theta_max = theta.max(axis=1)

    def rate(self, rng, users, items):
        return _ratings(rng, users, items, self.theta_flat, self.theta_max, self.n_g, self.bias, self.quality,
                        self.item_genres)


ROUNDS = 6


def _block(rng, lo, hi, model: _Model):
    """Ratings of users lo..hi-1: (local user, item, rating, timestamp), sorted by (user, item).

    Rounds of draws for the users still short of their activity (draws scaled by each user's observed yield
    of new kept items), then a popularity-weighted draw without replacement (Gumbel top-k) for the rest.
    """
    n_items = len(model.pop)
    nb = hi - lo
    need = model.activity[lo:hi]
    pi = (1 - EXPLORE) * model.theta[lo:hi].astype(np.float64) + EXPLORE * model.genre_w[None, :]
    cum = np.cumsum(pi, axis=1)
    cum /= cum[:, -1:]
    n_g = model.n_g
    flat = (cum + np.arange(nb)[:, None]).ravel()
    done_k, done_v = [], []
    keys = np.zeros(0, dtype=np.int64)
    vals = np.zeros(0, dtype=np.int8)
    factor = np.full(nb, 2.0)
    have = np.zeros(nb, dtype=np.int64)
    for _ in range(ROUNDS):
        deficit = need - have
        if not (deficit > 0).any():
            break
        draws = np.where(deficit > 0, np.ceil(deficit * factor + 2).astype(np.int64), 0)
        u = np.repeat(np.arange(nb), draws)
        g = np.searchsorted(flat, u + rng.random(len(u)), side="right") - u * n_g
        item = model.sampler.draw(rng, np.clip(g, 0, n_g - 1))
        r = model.rate(rng, lo + u, item)
        keep = rng.random(len(u)) < KEEP_PROB[r - 1]
        keys, vals = _take_first(np.concatenate([keys, u[keep] * n_items + item[keep]]),
                                 np.concatenate([vals, r[keep]]), need, n_items)
        now = np.bincount(keys // n_items, minlength=nb)  # finished users have no keys left here
        gained = np.where(draws > 0, now - have, 0)
        factor = np.where(draws > 0, np.clip(1.2 * draws / np.maximum(gained, 1), 1.5, 50.0), factor)
        have = np.where(draws > 0, now, have)
        finished = (have >= need)[keys // n_items]
        done_k.append(keys[finished])
        done_v.append(vals[finished])
        keys, vals = keys[~finished], vals[~finished]
    deficit = need - have
    if (deficit > 0).any():  # heavy users of narrow tastes: draw the rest without replacement by popularity
        ek, ev = _fill(rng, lo, np.flatnonzero(deficit > 0), deficit, keys, model)
        keys, vals = np.concatenate([keys, ek]), np.concatenate([vals, ev])
    keys = np.concatenate([*done_k, keys])
    vals = np.concatenate([*done_v, vals])
    order = np.argsort(keys, kind="stable")
    keys, vals = keys[order], vals[order]
    u = keys // n_items
    t = model.start[lo + u] + rng.exponential(120 * 86400.0, len(u)).astype(np.int64)
    return u, keys % n_items, vals, t


def _fill(rng, lo, users, deficit, keys, model: _Model, chunk: int = 128):
    """deficit[u] more unseen items for each local user u (Gumbel top-k over log popularity), rated."""
    n_items = len(model.pop)
    logp = np.log(model.pop)
    out_k, out_v = [], []
    for c in range(0, len(users), chunk):
        us = users[c : c + chunk]
        score = logp[None, :] + rng.gumbel(size=(len(us), n_items))
        ku = keys // n_items
        sel = np.isin(ku, us)
        row = np.searchsorted(us, ku[sel])
        score[row, keys[sel] % n_items] = -np.inf
        kmax = int(deficit[us].max())
        top = np.argpartition(-score, kmax - 1, axis=1)[:, :kmax]
        top = np.take_along_axis(top, np.argsort(-np.take_along_axis(score, top, axis=1), axis=1), axis=1)
        take = np.arange(kmax)[None, :] < deficit[us][:, None]
        uu = np.repeat(us, take.sum(axis=1))
        it = top[take]
        out_k.append(uu * n_items + it)
        out_v.append(model.rate(rng, lo + uu, it))
    return np.concatenate(out_k), np.concatenate(out_v)


def _take_first(keys: np.ndarray, vals: np.ndarray, need: np.ndarray, n_items: int):
    """Distinct keys (first occurrence wins), at most need[u] per user in draw order; sorted by key."""
    _, first = np.unique(keys, return_index=True)
    order = np.sort(first)  # draw order of the distinct keys
    u = keys[order] // n_items
    o2 = np.argsort(u, kind="stable")
    us = u[o2]
    starts = np.searchsorted(us, np.arange(len(need)))
    rank = np.empty(len(order), dtype=np.int64)
    rank[o2] = np.arange(len(order)) - starts[us]
    sel = order[rank < need[u]]
    k, v = keys[sel], vals[sel]
    o = np.argsort(k, kind="stable")
    return k[o], v[o]
