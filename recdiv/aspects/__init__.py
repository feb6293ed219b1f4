"""Aspect spaces (explicit genres/tags, latent factors/topics) and item similarities."""

from recdiv.aspects.similarity import ItemSimilarity, Jaccard, LatentCosine, SetCosine, similarity_from_name
from recdiv.aspects.space import AspectSpace

__all__ = ["AspectSpace", "ItemSimilarity", "Jaccard", "LatentCosine", "SetCosine", "similarity_from_name"]
