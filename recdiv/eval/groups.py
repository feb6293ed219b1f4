"""User groups: break any measure down by who the users are, with significance tests inside each group.

Papers explain who a diversifier helps by splitting users into groups (e.g. Abdollahpouri et al., "The unfairness
of popularity bias in recommendation", 2019: niche / diverse / blockbuster users). Three ways to form groups:

- ``profile-size[:q]``: quantiles of the number of training interactions of each user (q groups, default 4;
  "Q1 (1–27)" is the quarter of users with the smallest profiles and their range of sizes);
- ``popularity[:q]``: quantiles of the mainstreaminess of a profile — the mean popularity (number of training
  interactions) of the items the user has interacted with (q groups, default 3: niche … mainstream);
- a file ``user<TAB>group`` (one line per user; users not listed form no group and are left out).

Quantile groups cut at the q-quantiles of the evaluated users' values (`numpy.quantile`, linear); ties at a cut
go to the lower group, so groups can differ in size when many users share a value. `group_labels` gives one label
per evaluated user (aligned with the per-user arrays of `recdiv.eval.results.Results`); `Results.by_group` and
`compare_groups` split the results and test inside each group (corrections per group and measure).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from recdiv.errors import ConfigError, DataError

KINDS = ("profile-size", "popularity")


def parse_spec(spec: str) -> tuple[str, int | None, Path | None]:
    """(kind, q, file) of a group spec: "profile-size[:q]", "popularity[:q]" or a path to a user→group file."""
    name, _, q = str(spec).partition(":")
    if name in KINDS:
        try:
            n = int(q) if q else (4 if name == "profile-size" else 3)
        except ValueError:
            raise ConfigError(f"groups {spec!r}: the number of groups must be an integer") from None
        if not 2 <= n <= 20:
            raise ConfigError(f"groups {spec!r}: between 2 and 20 groups")
        return name, n, None
    path = Path(spec)
    if not path.is_file():
        raise ConfigError(f"groups {spec!r}: neither profile-size[:q], popularity[:q] nor a user→group file")
    return "file", None, path


def quantile_labels(values: np.ndarray, q: int, what: str, fmt=lambda v: f"{v:g}") -> np.ndarray:
    """Label of each value's quantile group: "Q1 (lo–hi)" … with the range of values in the group."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return np.array([], dtype=object)
    cuts = np.quantile(values, np.linspace(0, 1, q + 1)[1:-1])
    idx = np.searchsorted(cuts, values, side="left")  # value == cut → lower group
    labels = np.empty(len(values), dtype=object)
    for g in range(q):
        members = values[idx == g]
        if len(members):
            labels[idx == g] = f"Q{g + 1} {what} {fmt(members.min())}–{fmt(members.max())}"
    return labels


def profile_sizes(train, users: np.ndarray) -> np.ndarray:
    """Training interactions of each user (dense indices of `train`'s user vocabulary)."""
    return train.user_counts()[np.asarray(users, dtype=np.int64)].astype(np.float64)


def mainstreaminess(train, users: np.ndarray) -> np.ndarray:
    """Mean popularity (training interactions per item) of the items in each user's profile (0: empty profile)."""
    m = train.matrix.tocsr()
    pop = np.bincount(m.indices, minlength=m.shape[1]).astype(np.float64)
    sums = np.add.reduceat(pop[m.indices], m.indptr[:-1]) if m.nnz else np.zeros(m.shape[0])
    counts = np.diff(m.indptr)
    sums = np.where(counts > 0, sums, 0.0)
    mean = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    return mean[np.asarray(users, dtype=np.int64)]


def read_group_file(path: str | Path) -> dict[str, str]:
    """{user id: group} from a TSV file `user<TAB>group`; errors name the file and line."""
    out: dict[str, str] = {}
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"cannot read the group file ({e})", path) from None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.rstrip("\r").split("\t")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise DataError("expected: user<TAB>group", path, n)
        if parts[0] in out and out[parts[0]] != parts[1]:
            raise DataError(f"user {parts[0]!r} is in two groups ({out[parts[0]]!r} and {parts[1]!r})", path, n)
        out[parts[0]] = parts[1]
    if not out:
        raise DataError("no user→group lines", path)
    return out


def group_labels(spec: str, user_ids, *, train=None, user_index=None) -> np.ndarray:
    """One group label per user of `user_ids` (external ids, in the order of the per-user values); None for
    users a group file does not list. profile-size / popularity need `train` and the users' dense indices in it
    (`user_index`)."""
    kind, q, path = parse_spec(spec)
    if kind == "file":
        groups = read_group_file(path)
        return np.array([groups.get(str(u)) for u in user_ids], dtype=object)
    if train is None:
        raise ConfigError(f"groups {kind}: needs the training interactions (--train FILE)")
    idx = np.asarray(user_index, dtype=np.int64)
    if kind == "profile-size":
        return quantile_labels(profile_sizes(train, idx), q, "profile", lambda v: f"{v:.0f}")
    return quantile_labels(mainstreaminess(train, idx), q, "item popularity", lambda v: f"{v:.0f}")


def group_order(labels: np.ndarray) -> list[str]:
    """Distinct labels, quantile groups in Q order, others sorted."""
    distinct = {str(x) for x in labels if x is not None}
    return sorted(distinct, key=lambda s: (0, int(s[1:].split()[0])) if s[:1] == "Q" and s[1:].split()[0].isdigit()
                  else (1, s))


def labels_for(spec: str, qrels, context) -> np.ndarray:
    """Group labels of the evaluated users of `qrels` (the order of every per-user array); the training data of
    `context` must share the qrels' user vocabulary (as `recdiv.eval.io.load_inputs` builds them)."""
    users = qrels.population(context.threshold, context.population)
    labels = group_labels(spec, qrels.users.id_of(users), train=getattr(context, "train", None), user_index=users)
    if len(users) and all(x is None for x in labels):  # a group file of other users: no group at all, silently
        raise ConfigError(f"--groups {spec}: no evaluated user is in any group (e.g. user "
                          f"{str(qrels.users.id_of(users[:1])[0])!r} is in none)")
    return labels
