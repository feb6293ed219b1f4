"""Train/test(/validation) splits of interactions, seeded and vectorised over all users.

Spec strings (`make_split(data, spec, seed)`):

| spec | split |
|---|---|
| `u1`..`u5`, `ua`, `ub` (any name in `dataset.splits`) | the split provided with the dataset |
| `holdout:F` | per-user random holdout: round(F · n_u) of each user's n_u interactions are test |
| `kfold:K:J` | user-stratified K-fold: each user's interactions are dealt into K folds; fold J (1-based) is test |
| `temporal:F` | global temporal: the oldest round(F · N) interactions train, the rest test |
| `leave-last:N` | per-user temporal: each user's N newest interactions are test (at least one stays in train) |

A validation part is added with `:val=V`: for holdout/kfold, round(V · n_u) of each user's non-test
interactions (at random); for temporal, the newest round(V · N) interactions before the test part (so
`temporal:0.8:val=0.1` is 70/10/20); for leave-last, each user's V newest interactions before the test ones.

Rounding is half up, per user: n_test = ⌊F · n_u + 1/2⌋, and with validation the test+validation count is
⌊(F + V) · n_u + 1/2⌋, so every part is within one item of its share of each user's profile.
Ties in time are broken by (user, item) for `temporal` and at random (seeded) for `leave-last`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from recdiv.data.interactions import Dataset, Interactions, Split
from recdiv.errors import ConfigError

SPEC_HELP = "holdout:F, kfold:K:J, temporal:F, leave-last:N (each optionally :val=V), or a provided split name"


def _round(x: np.ndarray) -> np.ndarray:
    return np.floor(np.asarray(x, dtype=np.float64) + 0.5 + 1e-9).astype(np.int64)


def _rank_in_user(inter: Interactions, key: np.ndarray) -> np.ndarray:
    """0-based rank of every stored value within its user's row when ordered by `key` (ascending)."""
    u = inter.user_index
    order = np.lexsort((key, u))
    rank = np.empty(len(u), dtype=np.int64)
    rank[order] = np.arange(len(u)) - inter.matrix.indptr[u[order]]
    return rank


def _parts(inter: Interactions, test: np.ndarray, val: np.ndarray | None, name: str) -> Split:
    train = ~test if val is None else ~(test | val)
    return Split(inter.select(train), inter.select(test), None if val is None else inter.select(val), name=name)


def _check_fraction(x: float, what: str, lo_open: bool = True) -> None:
    if not (0 < x < 1 if lo_open else 0 <= x < 1):
        raise ConfigError(f"{what} must be between 0 and 1, got {x}")


def _check_holdout(test_fraction: float, validation: float) -> None:
    _check_fraction(test_fraction, "test fraction")
    _check_fraction(validation, "validation fraction", lo_open=False)
    if test_fraction + validation >= 1:
        raise ConfigError("test + validation fractions must be below 1")


def holdout_split(
    inter: Interactions, test_fraction: float = 0.2, *, validation: float = 0.0, seed: int = 0
) -> Split:
    """Per-user random holdout: ⌊F · n_u + 1/2⌋ random interactions of each user are test."""
    _check_holdout(test_fraction, validation)
    rng = np.random.default_rng(seed)
    rank = _rank_in_user(inter, rng.random(inter.nnz))
    n_u = inter.user_counts()[inter.user_index]
    n_test = _round(test_fraction * n_u)
    test = rank < n_test
    val = None
    if validation > 0:
        val = (rank >= n_test) & (rank < _round((test_fraction + validation) * n_u))
    name = f"holdout:{test_fraction:g}" + (f":val={validation:g}" if validation else "")
    return _parts(inter, test, val, name)


def _check_kfold(k: int, fold: int, validation: float) -> None:
    if k < 2 or not 1 <= fold <= k:
        raise ConfigError(f"kfold needs k ≥ 2 and 1 ≤ fold ≤ k, got k={k}, fold={fold}")
    _check_fraction(validation, "validation fraction", lo_open=False)


def kfold_split(
    inter: Interactions, k: int = 5, fold: int = 1, *, validation: float = 0.0, seed: int = 0
) -> Split:
    """User-stratified K-fold: each user's interactions, in a seeded random order, are dealt round-robin into
    K folds starting at a random fold per user (fold sizes differ by at most one); fold `fold` (1-based) is
    test. The K splits of one seed have disjoint test sets that cover all interactions."""
    _check_kfold(k, fold, validation)
    rng = np.random.default_rng(seed)
    rank = _rank_in_user(inter, rng.random(inter.nnz))
    offset = rng.integers(0, k, inter.n_users)
    u = inter.user_index
    test = (rank + offset[u]) % k == fold - 1
    val = None
    if validation > 0:
        # validation: the first round(V · n_u) non-test interactions in the user's random order
        nt = ~test
        order = np.lexsort((rank, u))
        c = np.cumsum(nt[order])
        start = inter.matrix.indptr[u[order]]
        before = np.concatenate([[0], c])[start]
        pos = np.empty(len(u), dtype=np.int64)
        pos[order] = c - before - 1
        val = nt & (pos < _round(validation * inter.user_counts()[u]))
    name = f"kfold:{k}:{fold}" + (f":val={validation:g}" if validation else "")
    return _parts(inter, test, val, name)


def kfold_splits(inter: Interactions, k: int = 5, *, validation: float = 0.0, seed: int = 0) -> list[Split]:
    """All K folds of `kfold_split` for one seed."""
    return [kfold_split(inter, k, j, validation=validation, seed=seed) for j in range(1, k + 1)]


def _need_time(inter: Interactions, what: str) -> np.ndarray:
    if inter.timestamps is None:
        raise ConfigError(f"{what} split needs timestamps, and these interactions have none")
    return inter.timestamps


def _check_temporal(train_fraction: float, validation: float) -> None:
    _check_fraction(train_fraction, "train fraction")
    _check_fraction(validation, "validation fraction", lo_open=False)
    if validation >= train_fraction:
        raise ConfigError("validation fraction must be below the train fraction")


def temporal_split(inter: Interactions, train_fraction: float = 0.8, *, validation: float = 0.0) -> Split:
    """Global temporal split: the oldest ⌊F · N + 1/2⌋ interactions (ties by user, item) are train (with
    validation: the newest ⌊V · N + 1/2⌋ of those are validation), the rest test."""
    _check_temporal(train_fraction, validation)
    ts = _need_time(inter, "a temporal")
    order = np.lexsort((inter.item_index, inter.user_index, ts))
    pos = np.empty(inter.nnz, dtype=np.int64)
    pos[order] = np.arange(inter.nnz)
    cut = int(_round(train_fraction * inter.nnz))
    test = pos >= cut
    val = None
    if validation > 0:
        val = (pos < cut) & (pos >= cut - int(_round(validation * inter.nnz)))
    name = f"temporal:{train_fraction:g}" + (f":val={validation:g}" if validation else "")
    return _parts(inter, test, val, name)


def _check_leave_last(n: int, validation: int) -> None:
    if n < 1 or validation < 0:
        raise ConfigError(f"leave-last needs n ≥ 1 and validation ≥ 0, got n={n}, validation={validation}")


def leave_last_split(inter: Interactions, n: int = 1, *, validation: int = 0, seed: int = 0) -> Split:
    """Per-user temporal split: each user's `n` newest interactions are test and the `validation` newest
    before them are validation; at least one interaction of every user stays in train (a user with n_u
    interactions gets min(n, n_u − 1) test ones). Time ties are broken at random (seeded)."""
    _check_leave_last(n, validation)
    ts = _need_time(inter, "a leave-last")
    rng = np.random.default_rng(seed)
    # newest first: rank by (-time, random)
    u = inter.user_index
    order = np.lexsort((rng.random(inter.nnz), -ts, u))
    rank = np.empty(inter.nnz, dtype=np.int64)
    rank[order] = np.arange(inter.nnz) - inter.matrix.indptr[u[order]]
    n_u = inter.user_counts()[u]
    n_test = np.minimum(n, n_u - 1)
    test = rank < n_test
    val = None
    if validation > 0:
        val = (rank >= n_test) & (rank < n_test + np.minimum(validation, n_u - 1 - n_test))
    name = f"leave-last:{n}" + (f":val={validation}" if validation else "")
    return _parts(inter, test, val, name)


def parse_spec(spec: str) -> tuple[str, list[str], str | None]:
    """'kind:arg:...:val=V' -> (kind, args, V or None)."""
    parts = spec.split(":")
    val = None
    if parts[-1].startswith("val="):
        val = parts.pop()[4:]
    return parts[0], parts[1:], val


@dataclass(frozen=True)
class SplitSpec:
    """A generic split spec with its numbers parsed and checked: `make(interactions, seed)` computes the split."""

    spec: str
    make: Callable[[Interactions, int], Split]
    needs_time: bool = False


GENERIC_KINDS = ("holdout", "kfold", "temporal", "leave-last")


def parse_split_spec(spec: str) -> SplitSpec | None:
    """The generic split `spec` (holdout, kfold, temporal, leave-last), checked without data; None when `spec` is
    not of a generic kind (it can then only name a split provided with a dataset). ConfigError for a generic spec
    with a bad number or value, so that a bad spec is found before any data is loaded."""
    kind, args, val = parse_spec(spec)
    try:
        if kind == "holdout" and len(args) == 1:
            f, v = float(args[0]), float(val or 0)
            _check_holdout(f, v)
            return SplitSpec(spec, lambda inter, seed: holdout_split(inter, f, validation=v, seed=seed))
        if kind == "kfold" and len(args) == 2:
            k, j, v = int(args[0]), int(args[1]), float(val or 0)
            _check_kfold(k, j, v)
            return SplitSpec(spec, lambda inter, seed: kfold_split(inter, k, j, validation=v, seed=seed))
        if kind == "temporal" and len(args) == 1:
            f, v = float(args[0]), float(val or 0)
            _check_temporal(f, v)
            return SplitSpec(spec, lambda inter, seed: temporal_split(inter, f, validation=v), needs_time=True)
        if kind == "leave-last" and len(args) <= 1:
            n, v = int(args[0]) if args else 1, int(val or 0)
            _check_leave_last(n, v)
            return SplitSpec(spec, lambda inter, seed: leave_last_split(inter, n, validation=v, seed=seed),
                             needs_time=True)
    except ValueError:
        raise ConfigError(f"bad number in split spec {spec!r}; use {SPEC_HELP}") from None
    if kind in GENERIC_KINDS:
        raise ConfigError(f"wrong number of fields in split spec {spec!r}; use {SPEC_HELP}")
    return None


def check_split(data: Dataset | Interactions, spec: str) -> None:
    """ConfigError unless `make_split(data, spec)` can compute the split (a provided split name, or a valid generic
    spec whose needs the data meet), without computing it."""
    if isinstance(data, Dataset) and spec in data.splits:
        return
    parsed = parse_split_spec(spec)
    if parsed is None:
        provided = f" (this dataset provides: {', '.join(data.splits)})" \
            if isinstance(data, Dataset) and data.splits else ""
        raise ConfigError(f"unknown split spec {spec!r}{provided}; use {SPEC_HELP}")
    if parsed.needs_time:
        _need_time(data.interactions if isinstance(data, Dataset) else data, f"a {spec.split(':')[0]}")


def make_split(data: Dataset | Interactions, spec: str, seed: int = 0) -> Split:
    """A Split from a spec string (see the module docstring); `seed` (≥ 0) drives the random ones."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"the split seed must be a non-negative integer, got {seed!r}")
    check_split(data, spec)
    if isinstance(data, Dataset) and spec in data.splits:
        return data.splits[spec]
    return parse_split_spec(spec).make(data.interactions if isinstance(data, Dataset) else data, int(seed))
