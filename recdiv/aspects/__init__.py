"""Aspect spaces (explicit genres/tags, latent factors/topics) and item similarities (imported on first use)."""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "AspectSpace": "recdiv.aspects.space",
    "ItemSimilarity": "recdiv.aspects.similarity",
    "Jaccard": "recdiv.aspects.similarity",
    "LatentCosine": "recdiv.aspects.similarity",
    "RatingPearson": "recdiv.aspects.similarity",
    "SetCosine": "recdiv.aspects.similarity",
    "similarity_from_name": "recdiv.aspects.similarity",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
