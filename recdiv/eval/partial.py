"""Mergeable partial results: what a measure keeps of one block of users so that the blocks of a streamed or
distributed evaluation combine into exactly the value of one evaluation over all users.

A measure's system value is `finish(state)` of one state (in memory) or of `merge` of the block states (streamed,
or computed on several workers), so both paths run the same formula on the same numbers:

- `Sums`: arrays added elementwise. Only for counts — sums of whole numbers are exact in float64 below 2^53, so
  their order does not matter;
- `ByUser`: arrays with one value per user; merged in the order of the users' dense indices (the order of the
  evaluated population), so a sum or mean over them is the same pairwise sum as over all users at once;
- `Ragged`: a run of values per user (e.g. every rated pair of a user), merged in user order;
- `Union`: boolean arrays over items, merged with or;
- `Counts`: how often each key (an item, or a rank and an item) occurs: whole numbers, exact in any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ByUser", "Counts", "Ragged", "Sums", "Union", "merge"]


@dataclass(frozen=True)
class Sums:
    arrays: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class ByUser:
    users: np.ndarray  # dense user indices, one per row of every array
    arrays: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class Ragged:
    users: np.ndarray  # dense user indices
    counts: np.ndarray  # values per user
    values: np.ndarray  # the users' values, user after user


@dataclass(frozen=True)
class Union:
    mask: np.ndarray


@dataclass(frozen=True)
class Counts:
    keys: np.ndarray  # int64, ascending, distinct
    counts: np.ndarray  # int64

    @classmethod
    def of(cls, keys: np.ndarray) -> Counts:
        """The counts of every distinct key."""
        k, c = np.unique(np.asarray(keys, dtype=np.int64), return_counts=True)
        return cls(k, c.astype(np.int64))


def _by_user_order(users: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(all users in order, the order that sorts the concatenation); users are unique across the parts."""
    every = np.concatenate(users) if users else np.zeros(0, np.int64)
    order = np.argsort(every, kind="stable")
    return every[order], order


def merge(states: Sequence):
    """One state from the states of several blocks (of one kind; None when the measure keeps none)."""
    first = states[0]
    if len(states) == 1 or first is None:
        return first
    if isinstance(first, Sums):
        return Sums(tuple(_add([s.arrays[j] for s in states]) for j in range(len(first.arrays))))
    if isinstance(first, Counts):
        keys, inverse = np.unique(np.concatenate([s.keys for s in states]), return_inverse=True)
        counts = np.zeros(len(keys), np.int64)
        np.add.at(counts, inverse, np.concatenate([s.counts for s in states]))
        return Counts(keys, counts)
    if isinstance(first, Union):
        out = first.mask.copy()
        for s in states[1:]:
            out |= s.mask
        return Union(out)
    if isinstance(first, ByUser):
        users, order = _by_user_order([s.users for s in states])
        return ByUser(users, tuple(np.concatenate([s.arrays[j] for s in states])[order]
                                   for j in range(len(first.arrays))))
    if isinstance(first, Ragged):
        users, order = _by_user_order([s.users for s in states])
        counts = np.concatenate([s.counts for s in states])
        values = np.concatenate([s.values for s in states])
        starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        take = np.concatenate([np.arange(starts[j], starts[j] + counts[j]) for j in order]) if len(order) else \
            np.zeros(0, np.int64)
        return Ragged(users, counts[order], values[take])
    raise TypeError(f"cannot merge {type(first).__name__}")


def _add(arrays: list[np.ndarray]) -> np.ndarray:
    out = np.array(arrays[0], dtype=np.float64, copy=True)
    for a in arrays[1:]:
        out += a
    return out
