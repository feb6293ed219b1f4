"""Data model (Vocab, Interactions, Dataset, Split, Rankings, Qrels), loaders, splits and file I/O."""

from recdiv.data.interactions import Attribute, Dataset, Interactions, Split
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import PAD, Rankings, top_k
from recdiv.data.vocab import Vocab

__all__ = ["PAD", "Attribute", "Dataset", "Interactions", "Qrels", "Rankings", "Split", "Vocab", "top_k"]
