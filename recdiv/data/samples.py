"""`RankingSamples`: the output of a stochastic ranking policy — several rankings of the same users sampled from it
(one `Rankings` per sample, e.g. one TREC run file each, or `PlackettLuce(samples=S)`'s output).

The expected-exposure measures (EE-L, EE-D, EE-R) and the group-exposure measures (AWRF, GroupExposure) read every
sample; any other measure of a `RankingSamples` is its expected value over the samples (per user: the mean over
the samples where the user's value is defined; system-level measures: the mean of the samples' values).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab

__all__ = ["RankingSamples", "samples_of"]


@dataclass(frozen=True, eq=False)
class RankingSamples:
    """Sampled rankings of one stochastic policy over shared user and item vocabularies (≥ 1 sample). A user may
    be missing from some samples (an empty list there)."""

    samples: tuple[Rankings, ...]

    def __init__(self, samples: Sequence[Rankings]):
        samples = tuple(samples)
        if not samples:
            raise ValueError("RankingSamples needs at least one sampled ranking")
        first = samples[0]
        for s in samples[1:]:
            if s.user_vocab != first.user_vocab or s.item_vocab != first.item_vocab:
                raise ValueError("the sampled rankings use different user or item vocabularies")
        object.__setattr__(self, "samples", samples)

    @property
    def user_vocab(self) -> Vocab:
        return self.samples[0].user_vocab

    @property
    def item_vocab(self) -> Vocab:
        return self.samples[0].item_vocab

    @property
    def k(self) -> int:
        return max(s.k for s in self.samples)

    def __len__(self) -> int:
        return len(self.samples)

    def __repr__(self) -> str:
        return f"RankingSamples({len(self.samples)} samples of {len(self.samples[0])} users)"


def samples_of(rankings) -> tuple[Rankings, ...] | None:
    """The samples of a stochastic run, or None for a single (deterministic) ranking."""
    return rankings.samples if isinstance(rankings, RankingSamples) else None
