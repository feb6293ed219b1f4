"""Data model (Vocab, Interactions, Dataset, Split, Rankings, Qrels), loaders, splits and file I/O.

The names below are imported on first use, so that `import recdiv.data.fetch` (or the command line's help)
does not load numpy and scipy."""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "Attribute": "recdiv.data.interactions",
    "Dataset": "recdiv.data.interactions",
    "Interactions": "recdiv.data.interactions",
    "Split": "recdiv.data.interactions",
    "Qrels": "recdiv.data.qrels",
    "PAD": "recdiv.data.rankings",
    "Rankings": "recdiv.data.rankings",
    "top_k": "recdiv.data.rankings",
    "Vocab": "recdiv.data.vocab",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
