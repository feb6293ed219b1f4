"""recdiv: recommender systems research platform — baselines, diversifiers, and one evaluation suite."""

from recdiv.errors import ConfigError, DataError, RecdivError

__version__ = "0.1.0"
__all__ = ["ConfigError", "DataError", "RecdivError", "__version__"]
