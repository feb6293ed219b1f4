"""Paired significance tests, effect sizes and confidence intervals on per-user metric values (METRICS.md §F.1).

Every test takes the per-user values x, y of two systems over the **same** users and works on the rounded
differences d_u = round(x_u − y_u, 12) (§0.7), so that 0.6 − 0.3 and 0.8 − 0.5 are tied:

- `paired_t`: t = mean(d) / (sd(d)/√n), df = n − 1 (= `scipy.stats.ttest_rel`).
- `wilcoxon`: signed-rank test, zeros dropped; exact null distribution when n_nonzero ≤ 50 and no tied |d|,
  otherwise the normal approximation with tie-corrected variance and no continuity correction.
- `sign_test`: binomial test of n⁺ among n⁺ + n⁻ with p = ½.
- `permutation_test`: Fisher's randomisation test with the difference in means (exact enumeration of all sign
  flips for small n, Monte Carlo with B = 100,000 seeded sign vectors otherwise; Smucker et al., CIKM 2007;
  Valcarce et al., RecSys 2018). `permutation_pvalues` runs it for many pairs at once as chunked
  sign-matrix × difference-matrix products.
- `bootstrap_test`: Sakai's (SIGIR 2006) paired bootstrap with the studentised, null-shifted statistic.

One-sided alternatives: ``alternative="greater"`` tests H1: x > y. All randomness comes from
``numpy.random.default_rng(seed)``; the same seed gives the same p-values.
"""

from __future__ import annotations

import math
import sys
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
from scipy import stats

from recdiv.errors import ConfigError
from recdiv.progress import tick
from recdiv.registry import Registry

Alternative = Literal["two-sided", "greater", "less"]
#: the tests by name (spelling rule of `recdiv.registry`: ``T-test`` = ``ttest``; aliases)
TEST_NAMES: Registry[str] = Registry("test")
for _name, _aliases in [("t", ("ttest", "student")), ("wilcoxon", ("signed-rank",)), ("sign", ("binomial",)),
                        ("permutation", ("randomisation", "randomization", "fisher")), ("bootstrap", ()),
                        ("tukey", ("tukey-hsd", "randomised-tukey", "randomized-tukey")),
                        ("tukey-anova", ("anova-tukey",))]:
    TEST_NAMES.add(_name, _name, aliases=_aliases)
TESTS = tuple(TEST_NAMES.names())
#: tests of all systems at once (family-wise adjusted p-values of every pair; `recdiv.eval.stats.tukey`)
MULTI_SYSTEM_TESTS = ("tukey", "tukey-anova")
#: paired tests of two systems
PAIRED_TESTS = tuple(t for t in TESTS if t not in MULTI_SYSTEM_TESTS)

#: default Monte Carlo sizes (METRICS.md §G.4)
PERMUTATION_SAMPLES = 100_000
BOOTSTRAP_SAMPLES = 1000
#: tolerance of the permutation comparison |mean(s∘d)| ≥ T − 1e−12 (§F.1)
_PERM_TOL = 1e-12
#: relative tolerance of the bootstrap comparison |t*| ≥ |t_obs|: a resample equal to the data up to order gives
#: t* = t_obs in exact arithmetic, and float rounding must not decide that tie differently at another scale
_BOOT_RTOL = 1e-9
#: Wilcoxon: exact null distribution up to this many non-zero differences (without ties)
WILCOXON_EXACT_MAX = 50


@dataclass(frozen=True)
class TestResult:
    """Outcome of one paired test of x against y.

    statistic: t for `t` and `bootstrap`, W⁺ (sum of ranks of positive d) for `wilcoxon`, n⁺ for `sign`,
    mean(d) for `permutation`. method: how the p-value was obtained ("exact", "approx", "monte-carlo", ...).
    effect_size: Cohen's d_z = mean(d)/sd(d). mean_difference: mean(d).
    """

    test: str
    statistic: float
    p_value: float
    alternative: str
    n: int
    method: str
    mean_difference: float
    effect_size: float

    def to_dict(self) -> dict:
        return asdict(self)


def canonical_test(name: str) -> str:
    """Canonical test name (`t`, `wilcoxon`, `sign`, `permutation`, `bootstrap`, `tukey`, `tukey-anova`) of a name
    or alias."""
    return TEST_NAMES.canonical(name)


def _check_alternative(alternative: str) -> str:
    if alternative not in ("two-sided", "greater", "less"):
        raise ConfigError(f"alternative must be two-sided, greater or less, got {alternative!r}")
    return alternative


def paired_differences(x, y) -> np.ndarray:
    """d = round(x − y, 12) of two paired per-user vectors; raises ConfigError unless they are paired."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1:
        raise ConfigError("paired tests need two 1-d arrays of per-user values")
    if len(x) != len(y):
        raise ConfigError(f"paired tests need values for the same users: got {len(x)} and {len(y)} users")
    d = np.round(x - y, 12)
    if not np.isfinite(d).all():
        raise ConfigError("per-user values must be finite (found NaN or infinity)")
    return d


def _as_diff(x, y) -> np.ndarray:
    return paired_differences(x, y) if y is not None else paired_differences(x, np.zeros(len(np.asarray(x))))


def cohens_dz(d: np.ndarray) -> float:
    """Cohen's d_z = mean(d)/sd(d) (sd with ddof = 1); 0 when d ≡ 0, ±inf when d is a non-zero constant."""
    d = np.asarray(d, dtype=np.float64)
    if len(d) < 2:
        return 0.0 if len(d) == 0 or d[0] == 0 else math.copysign(math.inf, d[0])
    m, s = float(d.mean()), float(d.std(ddof=1))
    if s <= 1e-15 * max(1.0, abs(m)):
        return 0.0 if abs(m) <= _PERM_TOL else math.copysign(math.inf, m)
    return m / s


def _result(test, statistic, p, alternative, d, method) -> TestResult:
    p = float(min(1.0, max(0.0, p)))
    return TestResult(test, float(statistic), p, alternative, len(d), method,
                      float(d.mean()) if len(d) else 0.0, cohens_dz(d))


# ------------------------------------------------------------------------------------------------- classic tests
def _t_statistic(d: np.ndarray) -> float:
    n = len(d)
    m = float(d.mean())
    s = float(d.std(ddof=1)) if n > 1 else 0.0
    if s <= 1e-15 * max(1.0, abs(m)):
        return 0.0 if abs(m) <= _PERM_TOL else math.copysign(math.inf, m)
    return m / (s / math.sqrt(n))


def paired_t(x, y=None, alternative: Alternative = "two-sided") -> TestResult:
    """Paired t-test: t = mean(d)/(sd(d)/√n), df = n − 1 (`scipy.stats.ttest_rel`; §F.1).

    Degenerate cases: d ≡ 0 ⇒ t = 0, p = 1; d constant non-zero ⇒ t = ±∞ (p = 0 in its direction).
    """
    d = _as_diff(x, y)
    _check_alternative(alternative)
    if len(d) < 2:
        raise ConfigError("the paired t-test needs at least 2 users")
    t = _t_statistic(d)
    if math.isinf(t) or (t == 0.0 and not d.any()):
        p = _p_from_infinite(t, alternative)
    else:
        p = float(stats.ttest_1samp(d, 0.0, alternative=alternative).pvalue)
    return _result("t", t, p, alternative, d, "t")


def _p_from_infinite(t: float, alternative: str) -> float:
    if t == 0.0:  # d ≡ 0: no evidence either way
        return 1.0
    if alternative == "two-sided":
        return 0.0
    return 0.0 if (t > 0) == (alternative == "greater") else 1.0


def wilcoxon(x, y=None, alternative: Alternative = "two-sided", method: str = "auto") -> TestResult:
    """Wilcoxon signed-rank test on d (zeros dropped, average ranks for tied |d|; §F.1).

    method="auto": exact null distribution if n_nonzero ≤ 50 and no tied |d|, else the normal approximation
    with tie-corrected variance n(n+1)(2n+1)/24 − Σ(t³ − t)/48 and no continuity correction. "exact" or
    "approx" force one. statistic = W⁺ (sum of the ranks of the positive differences).
    """
    d = _as_diff(x, y)
    _check_alternative(alternative)
    nz = d[d != 0]
    if method not in ("auto", "exact", "approx"):
        raise ConfigError(f"wilcoxon method must be auto, exact or approx, got {method!r}")
    if len(nz) == 0:
        return _result("wilcoxon", 0.0, 1.0, alternative, d, "no non-zero differences")
    ranks = stats.rankdata(np.abs(nz))
    w_plus = float(ranks[nz > 0].sum())
    if method == "auto":
        ties = len(np.unique(np.abs(nz))) < len(nz)
        method = "exact" if len(nz) <= WILCOXON_EXACT_MAX and not ties else "approx"
    p = stats.wilcoxon(nz, zero_method="wilcox", correction=False, method=method, alternative=alternative).pvalue
    return _result("wilcoxon", w_plus, float(p), alternative, d, method)


def sign_test(x, y=None, alternative: Alternative = "two-sided") -> TestResult:
    """Sign (binomial) test: n⁺ = #(d > 0) among n⁺ + n⁻ non-tied users, Binomial(n⁺ + n⁻, ½) (§F.1, §D.5)."""
    d = _as_diff(x, y)
    _check_alternative(alternative)
    n_pos, n_neg = int((d > 0).sum()), int((d < 0).sum())
    if n_pos + n_neg == 0:
        return _result("sign", 0.0, 1.0, alternative, d, "no non-zero differences")
    p = stats.binomtest(n_pos, n_pos + n_neg, 0.5, alternative=alternative).pvalue
    return _result("sign", n_pos, float(p), alternative, d, "exact")


# ------------------------------------------------------------------------------------------------- randomisation
def _sign_chunks(rng: np.random.Generator, n_samples: int, n: int, chunk: int):
    """Yield 0/1 float64 matrices (rows × n), together B × n, drawn as ``rng.integers(0, 2, (rows, n))``.

    Rows per chunk are even, so the stream equals one ``rng.integers(0, 2, size=(B, n))`` call (the sign
    of sample b at user u is 2·bit − 1, i.e. ``rng.choice([-1, 1], size=(B, n))``) whatever the chunk size.
    """
    chunk = max(2, chunk - chunk % 2)
    done = 0
    while done < n_samples:
        rows = min(chunk, n_samples - done)
        yield _bits(rng, rows, n)
        done += rows


def _bits(rng: np.random.Generator, rows: int, n: int) -> np.ndarray:
    """``rng.integers(0, 2, size=(rows, n))`` as float64, 3× faster when rows·n is even.

    NumPy draws each bounded 32-bit value from one half of a 64-bit output (low half first) and, for the
    range {0, 1}, Lemire's method returns the top bit of that half; so the same bits are the top bits of the
    32-bit halves of ``rng.integers(0, 2**64, dtype=uint64)`` (one raw draw per two users). Checked
    against the plain call in the tests; big-endian machines take the plain call.
    """
    m = rows * n
    if m % 2 == 0 and sys.byteorder == "little":
        raw = rng.integers(0, 2**64, size=m // 2, dtype=np.uint64).view(np.uint32)
        return (raw >> 31).astype(np.float64).reshape(rows, n)
    return rng.integers(0, 2, size=(rows, n)).astype(np.float64)


def _exact_bits(n: int) -> np.ndarray:
    """All 2^n 0/1 vectors of length n as rows (float64)."""
    codes = np.arange(2**n, dtype=np.int64)[:, None]
    return ((codes >> np.arange(n, dtype=np.int64)) & 1).astype(np.float64)


def _count_extreme(sums: np.ndarray, total: np.ndarray, n: int, alternative: str) -> np.ndarray:
    """Counts of samples at least as extreme; `sums` (rows × P) are Σ s∘d, `total` (P,) the observed Σ d."""
    tol = n * _PERM_TOL
    if alternative == "two-sided":
        return (np.abs(sums) >= np.abs(total) - tol).sum(axis=0)
    if alternative == "greater":
        return (sums >= total - tol).sum(axis=0)
    return (sums <= total + tol).sum(axis=0)


def permutation_pvalues(
    diffs: np.ndarray,
    alternative: Alternative = "two-sided",
    *,
    n_samples: int = PERMUTATION_SAMPLES,
    seed: int | None = 0,
    method: str = "auto",
    plus_one: bool = False,
    chunk: int = 2000,
) -> tuple[np.ndarray, str]:
    """Fisher randomisation p-values of many paired comparisons at once (columns of `diffs`, n users × P).

    Statistic: the mean difference, T = |mean(d)| two-sided (one-sided: mean(d) in the matching
    direction); p = #{samples with |mean(s∘d)| ≥ T − 1e−12} / B (§F.1).

    method="exact" enumerates all 2^m sign flips of the m users with a non-zero difference in any column
    (flipping a zero changes nothing, so p is the same as over all 2^n flips); "mc" draws B sign vectors
    from ``default_rng(seed)`` — the same B vectors for every column — and multiplies the chunked 0/1
    sign-bit matrix with the difference matrix (Σ s∘d = 2·bits·d − Σd); "auto" is exact when 2^m ≤ B.
    plus_one: (c + 1)/(B + 1) instead of c/B (Monte Carlo only). Returns (p-values (P,), method used).
    """
    _check_alternative(alternative)
    D = np.round(np.asarray(diffs, dtype=np.float64), 12)
    if D.ndim == 1:
        D = D[:, None]
    if not np.isfinite(D).all():
        raise ConfigError("per-user differences must be finite")
    n, _ = D.shape
    total = D.sum(axis=0)
    if method not in ("auto", "exact", "mc"):
        raise ConfigError(f"permutation method must be auto, exact or mc, got {method!r}")
    if n_samples < 1:
        raise ConfigError("n_samples must be positive")
    nonzero = np.flatnonzero((D != 0).any(axis=1))
    m = len(nonzero)
    if method == "auto":
        method = "exact" if 2**min(m, 62) <= n_samples else "mc"
    if method == "exact":
        if m > 24:
            raise ConfigError(f"exact enumeration of 2^{m} sign flips is too large; use method='mc'")
        Dn = D[nonzero]
        count = np.zeros(D.shape[1], dtype=np.int64)
        n_flips = 2**m
        step = max(2, 2**20 // max(m, 1))
        for lo in range(0, n_flips, step):
            codes = np.arange(lo, min(lo + step, n_flips), dtype=np.int64)[:, None]
            bits = ((codes >> np.arange(m, dtype=np.int64)) & 1).astype(np.float64)
            count += _count_extreme(2.0 * (bits @ Dn) - total, total, n, alternative)
        return count / n_flips, "exact"
    rng = np.random.default_rng(seed)
    count = np.zeros(D.shape[1], dtype=np.int64)
    for bits in _sign_chunks(rng, n_samples, n, chunk):
        count += _count_extreme(2.0 * (bits @ D) - total, total, n, alternative)
        tick(len(bits))
    p = (count + 1) / (n_samples + 1) if plus_one else count / n_samples
    return p, "monte-carlo"


def system_pair_permutation_pvalues(
    values: np.ndarray,
    pairs: list[tuple[int, int]],
    alternative: Alternative = "two-sided",
    *,
    n_samples: int = PERMUTATION_SAMPLES,
    seed: int | None = 0,
    method: str = "auto",
    plus_one: bool = False,
    chunk: int = 2000,
) -> tuple[np.ndarray, str]:
    """`permutation_pvalues` of the differences values[i] − values[j] for pairs (i, j) of systems (S × n).

    Monte Carlo: Σ_u s_u (y_iu − y_ju) = Σ s∘y_i − Σ s∘y_j, so one product bits (rows × n) @ values.T (n × S)
    serves all S(S − 1)/2 pairs (S columns instead of one per pair). Same sign vectors and the same counts as
    `permutation_pvalues` on the rounded differences, except for sums that differ from the observed one by
    less than float64 rounding of n terms (≈1e−12; ties are decided with tolerance n·1e−12 either way).
    """
    Y = np.asarray(values, dtype=np.float64)
    if Y.ndim != 2:
        raise ConfigError("values must be a systems × users matrix")
    I = np.array([i for i, _ in pairs], dtype=np.int64)
    J = np.array([j for _, j in pairs], dtype=np.int64)
    D = np.round(Y[I] - Y[J], 12).T  # n × P
    m = int((D != 0).any(axis=1).sum()) if D.size else 0
    if method == "exact" or (method == "auto" and 2**min(m, 62) <= n_samples) or len(pairs) == 0:
        return permutation_pvalues(D, alternative, n_samples=n_samples, seed=seed, method=method,
                                   plus_one=plus_one, chunk=chunk)
    _check_alternative(alternative)
    if method not in ("auto", "mc"):
        raise ConfigError(f"permutation method must be auto, exact or mc, got {method!r}")
    if not np.isfinite(Y).all():
        raise ConfigError("per-user values must be finite")
    n = Y.shape[1]
    total = D.sum(axis=0)
    rng = np.random.default_rng(seed)
    count = np.zeros(len(pairs), dtype=np.int64)
    Yt = np.ascontiguousarray(Y.T)
    for bits in _sign_chunks(rng, n_samples, n, chunk):
        by = bits @ Yt
        count += _count_extreme(2.0 * (by[:, I] - by[:, J]) - total, total, n, alternative)
        tick(len(bits))
    p = (count + 1) / (n_samples + 1) if plus_one else count / n_samples
    return p, "monte-carlo"


def permutation_test(
    x,
    y=None,
    alternative: Alternative = "two-sided",
    *,
    n_samples: int = PERMUTATION_SAMPLES,
    seed: int | None = 0,
    method: str = "auto",
    plus_one: bool = False,
) -> TestResult:
    """Fisher's randomisation (sign-flip permutation) test with the difference in means (§F.1).

    See `permutation_pvalues` for the methods; statistic = mean(d).
    """
    d = _as_diff(x, y)
    p, used = permutation_pvalues(d, alternative, n_samples=n_samples, seed=seed, method=method, plus_one=plus_one)
    return _result("permutation", d.mean() if len(d) else 0.0, p[0], alternative, d, used)


# ------------------------------------------------------------------------------------------------- bootstrap
def _resample_counts(rng: np.random.Generator, n_samples: int, n: int) -> np.ndarray:
    """B × n matrix of how often each user is drawn in each bootstrap sample (``rng.integers(0, n, (B, n))``)."""
    idx = rng.integers(0, n, size=(n_samples, n))
    flat = idx + (np.arange(n_samples, dtype=np.int64) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=n_samples * n).reshape(n_samples, n).astype(np.float64)


def resample_counts(n_samples: int, n: int, seed: int | None = 0) -> np.ndarray:
    """The B × n resampling counts of a bootstrap interval with `seed` (`confidence_interval`)."""
    return _resample_counts(np.random.default_rng(seed), n_samples, n)


def _studentised(counts: np.ndarray, W: np.ndarray) -> np.ndarray:
    """t* = mean(w*)/(sd(w*)/√n) of every bootstrap sample (rows of counts) for every column of W."""
    n = W.shape[0]
    s1 = counts @ W
    s2 = counts @ (W * W)
    mean = s1 / n
    var = np.maximum(s2 - n * mean * mean, 0.0) / (n - 1)
    scale = np.maximum(np.abs(W).max(axis=0), 1e-300)
    degenerate = var <= (1e-12 * scale) ** 2
    mean = np.where(np.abs(mean) <= 1e-12 * scale, 0.0, mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    return np.where(degenerate, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)), t)


def bootstrap_pvalues(
    diffs: np.ndarray, *, n_samples: int = BOOTSTRAP_SAMPLES, seed: int | None = 0, chunk: int = 500
) -> np.ndarray:
    """Sakai's paired-bootstrap ASL of every column of `diffs` (n users × P), two-sided (§F.1, §F.5).

    t_obs = mean(d)/(sd(d)/√n); w = d − mean(d); B samples of n users drawn with replacement
    (``default_rng(seed).integers(0, n, (B, n))``, the same samples for every column);
    ASL = #{|t*_b| ≥ |t_obs|}/B with t*_b the studentised mean of the resampled w; ties are decided with a
    relative tolerance of 1e−9, so that the ASL does not depend on the scale of d.
    """
    D = np.round(np.asarray(diffs, dtype=np.float64), 12)
    if D.ndim == 1:
        D = D[:, None]
    n = D.shape[0]
    if n < 2:
        raise ConfigError("the bootstrap test needs at least 2 users")
    t_obs = np.array([_t_statistic(D[:, j]) for j in range(D.shape[1])])
    W = D - D.mean(axis=0)
    rng = np.random.default_rng(seed)
    count = np.zeros(D.shape[1], dtype=np.int64)
    done = 0
    while done < n_samples:
        rows = min(chunk, n_samples - done)
        t_star = _studentised(_resample_counts(rng, rows, n), W)
        count += (np.abs(t_star) >= np.abs(t_obs) * (1 - _BOOT_RTOL)).sum(axis=0)
        done += rows
        tick(rows)
    return count / n_samples


def bootstrap_test(x, y=None, *, n_samples: int = BOOTSTRAP_SAMPLES, seed: int | None = 0) -> TestResult:
    """Paired bootstrap test, studentised shift method (Sakai, SIGIR 2006; §F.1). Two-sided only."""
    d = _as_diff(x, y)
    p = bootstrap_pvalues(d, n_samples=n_samples, seed=seed)[0]
    return _result("bootstrap", _t_statistic(d), p, "two-sided", d, "bootstrap")


# ------------------------------------------------------------------------------------------------- dispatch, CIs
def paired_test(x, y=None, test: str = "t", alternative: Alternative = "two-sided", *, seed: int | None = 0,
                n_samples: int | None = None, **options) -> TestResult:
    """Run the named paired test (`t`, `wilcoxon`, `sign`, `permutation`, `bootstrap`) on x against y."""
    t = canonical_test(test)
    if t in MULTI_SYSTEM_TESTS:
        raise ConfigError(f"{t} compares all systems at once; use system_pair_pvalues or Results.compare")
    if t == "t":
        return paired_t(x, y, alternative)
    if t == "wilcoxon":
        return wilcoxon(x, y, alternative, **options)
    if t == "sign":
        return sign_test(x, y, alternative)
    if t == "permutation":
        return permutation_test(x, y, alternative, n_samples=n_samples or PERMUTATION_SAMPLES, seed=seed, **options)
    if alternative != "two-sided":
        raise ConfigError("the bootstrap test is two-sided only")
    return bootstrap_test(x, y, n_samples=n_samples or BOOTSTRAP_SAMPLES, seed=seed)


def pairwise_pvalues(
    diffs: np.ndarray, test: str = "t", alternative: Alternative = "two-sided", *, seed: int | None = 0,
    n_samples: int | None = None, **options
) -> np.ndarray:
    """p-values of the named test for every column of `diffs` (n users × P); batched for the randomisation
    and bootstrap tests (common random numbers: column j gets the p-value a single call with `seed` gives)."""
    t = canonical_test(test)
    if t in MULTI_SYSTEM_TESTS:
        raise ConfigError(f"{t} compares all systems at once: it needs the per-user values of every system "
                          "(system_pair_pvalues or Results.compare), not differences of pairs")
    D = np.asarray(diffs, dtype=np.float64)
    if D.ndim == 1:
        D = D[:, None]
    if t == "permutation":
        return permutation_pvalues(D, alternative, n_samples=n_samples or PERMUTATION_SAMPLES, seed=seed,
                                   **options)[0]
    if t == "bootstrap":
        if alternative != "two-sided":
            raise ConfigError("the bootstrap test is two-sided only")
        return bootstrap_pvalues(D, n_samples=n_samples or BOOTSTRAP_SAMPLES, seed=seed)
    return np.array([paired_test(D[:, j], None, t, alternative, **options).p_value for j in range(D.shape[1])])


def confidence_interval(x, y=None, level: float = 0.95, method: str = "t", *,
                        n_samples: int = BOOTSTRAP_SAMPLES, seed: int | None = 0,
                        counts: np.ndarray | None = None) -> tuple[float, float]:
    """Confidence interval of the mean difference mean(x − y).

    method="t": mean(d) ± t_{(1+level)/2, n−1} · sd(d)/√n. method="bootstrap": percentile interval of the
    means of B resamples of d (``default_rng(seed).integers(0, n, (B, n))``), `numpy.quantile` linear; `counts`
    (`resample_counts(n_samples, n, seed)`, the same matrix) saves drawing it again for every interval of a table.
    """
    d = _as_diff(x, y)
    if not 0 < level < 1:
        raise ConfigError(f"level must be in (0, 1), got {level}")
    n = len(d)
    if n < 2:
        raise ConfigError("a confidence interval needs at least 2 users")
    m = float(d.mean())
    if method == "t":
        half = float(stats.t.ppf((1 + level) / 2, n - 1)) * float(d.std(ddof=1)) / math.sqrt(n)
        return m - half, m + half
    if method == "bootstrap":
        if counts is None or counts.shape != (n_samples, n):
            counts = resample_counts(n_samples, n, seed)
        means = counts @ d / n
        lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
        return float(lo), float(hi)
    raise ConfigError(f"confidence interval method must be t or bootstrap, got {method!r}")


def monte_carlo_samples(test: str, n_samples: int | None = None) -> int:
    """B of a Monte Carlo test (p-values are multiples of 1/B: one below 1/B is printed "< 1/B"), 0 for a test
    with exact or asymptotic p-values."""
    from recdiv.eval.stats.tukey import TUKEY_SAMPLES

    default = {"permutation": PERMUTATION_SAMPLES, "bootstrap": BOOTSTRAP_SAMPLES, "tukey": TUKEY_SAMPLES}
    return (n_samples or default[test]) if test in default else 0


def system_pair_pvalues(
    values: np.ndarray, pairs: list[tuple[int, int]], test: str = "t", alternative: Alternative = "two-sided", *,
    seed: int | None = 0, n_samples: int | None = None, **options
) -> np.ndarray:
    """p-values of the named test for pairs (i, j) of rows of `values` (S systems × n users): x = values[i],
    y = values[j]. The randomisation test shares one sign-matrix product across all pairs
    (`system_pair_permutation_pvalues`); the Tukey HSDs (`tukey`: randomised, paired; `tukey-anova`) test all
    systems at once and return the family-wise p-values of the requested pairs (two-sided only); the other tests
    run `pairwise_pvalues` on the differences."""
    t = canonical_test(test)
    Y = np.asarray(values, dtype=np.float64)
    if t in MULTI_SYSTEM_TESTS:
        from recdiv.eval.stats.tukey import TUKEY_SAMPLES, tukey_hsd

        if alternative != "two-sided":
            raise ConfigError("Tukey HSD is two-sided only")
        r = tukey_hsd(Y, method="randomised" if t == "tukey" else "anova", n_samples=n_samples or TUKEY_SAMPLES,
                      seed=seed)
        pm = r.p_matrix()
        return np.array([pm[i, j] for i, j in pairs], dtype=np.float64)
    if t == "permutation":
        return system_pair_permutation_pvalues(Y, pairs, alternative, n_samples=n_samples or PERMUTATION_SAMPLES,
                                               seed=seed, **options)[0]
    D = np.column_stack([Y[i] - Y[j] for i, j in pairs]) if pairs else np.zeros((Y.shape[1], 0))
    return pairwise_pvalues(D, t, alternative, seed=seed, n_samples=n_samples, **options)
