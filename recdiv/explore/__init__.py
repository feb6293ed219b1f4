"""`recdiv explore`: a live, local explorer of the accuracy–diversity trade-off (docs/teaching.md).

    recdiv explore ml-100k                     # a web page on 127.0.0.1, opened in the browser
    from recdiv.explore import embed; embed("ml-100k")   # the same page inside Jupyter

The names below are imported on first use.
"""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "Embedded": "recdiv.explore.jupyter",
    "Engine": "recdiv.explore.engine",
    "embed": "recdiv.explore.jupyter",
    "State": "recdiv.explore.state",
    "from_query": "recdiv.explore.state",
    "to_query": "recdiv.explore.state",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
