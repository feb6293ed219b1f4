"""Resource limits: every value that sizes work, the bound recdiv states for it, and the one check.

A single bad value — a cutoff of 10¹², ``--samples 10^12``, a grid that expands to millions of systems, an item
with a million aspects, a TOML file nested 10⁵ deep — must be refused (or bounded by what the data allows) before
any work starts, never run until killed or allocate terabytes. The bounds are stated here once, documented in
docs/limits.md, and checked where each value enters (command-line options, experiment files, measure parsing,
file readers) with `at_most`, which raises a one-line `ConfigError` naming the value, the limit and what to do.

Two kinds of bound:

- **data bounds** (no constant): work sized by a value beyond what the data holds is the work of what it holds —
  a cutoff beyond the longest list and the most judged items of a user costs what that depth costs (the value is
  still the cutoff's: P@K divides by K), a list length beyond the candidates or the catalogue is the whole list;
- **stated limits** (the constants below): values with no data bound, chosen far above any published setting and
  below what a 2-core, few-GB machine finishes in hours.
"""

from __future__ import annotations

from collections.abc import Iterable

from recdiv.errors import ConfigError

#: largest cutoff of a measure (@K); work is bounded by the data's depth anyway (module docstring)
MAX_CUTOFF = 10_000_000
#: Monte Carlo samples of a randomised test, a bootstrap interval, discriminative power or ASL
MAX_SAMPLES = 10_000_000
#: levels of a robustness analysis (sparsity fractions, popularity percentages)
MAX_LEVELS = 1_000
#: samples per robustness level
MAX_ROBUSTNESS_SAMPLES = 10_000
#: random instances per universal axiom (recdiv axioms --cases)
MAX_AXIOM_CASES = 100_000
#: largest instance searched for an existential axiom (recdiv axioms --max-size): work grows with its square
MAX_AXIOM_SIZE = 1_000
#: systems of one experiment (recommender grid points, and diversifier grid points × aspect spaces × recommenders)
MAX_SYSTEMS = 10_000
#: grid points of one recommender or diversifier
MAX_GRID_POINTS = 10_000
#: training iterations or epochs of a recommender
MAX_ITERATIONS = 100_000
#: nesting depth of an experiment file (tables and arrays inside each other)
MAX_NESTING = 64
#: distinct aspects of one item (genres, tags, subtopics, latent factors)
MAX_ASPECTS_PER_ITEM = 10_000
#: cells of a dense matrix recdiv builds from data (items × aspects, items × factors, users × list length)
MAX_DENSE_CELLS = 250_000_000

DOCS = "docs/limits.md"


def at_most(what: str, value: int | float, limit: int | float, why: str = "") -> None:
    """ConfigError when `value` exceeds `limit`: "`what` = value: at most limit (why; docs/limits.md)"."""
    if value > limit:
        reason = f"{why}; " if why else ""
        raise ConfigError(f"{what} = {_num(value)}: at most {_num(limit)} ({reason}see {DOCS})")


def check_cells(what: str, rows: int, cols: int) -> None:
    """ConfigError before a dense rows × cols array is allocated when it exceeds `MAX_DENSE_CELLS`."""
    at_most(f"{what}: {rows:,} × {cols:,} cells", rows * cols, MAX_DENSE_CELLS,
            "a dense array built from the data; a sparse one would not need this")


def product(sizes: Iterable[int]) -> int:
    """The product of `sizes` (the size of a grid), exact for any integers."""
    out = 1
    for s in sizes:
        out *= int(s)
    return out


def nesting_depth(text: str) -> int:
    """The deepest nesting of TOML/JSON text — brackets and braces, and the dotted keys (``a.b.c = 1``, ``[a.b.c]``)
    that nest tables as well — outside strings and comments, read in one pass without recursion, so that it can be
    checked before a parser sees the text (tomllib recurses into nested values and slows down quadratically with
    the segments of a key)."""
    stack: list[str] = []
    deepest = dots = 0
    in_key = True
    quote = ""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
            else:
                i += 1
            continue
        if c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            continue
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "\n" and not stack:
            in_key, dots = True, 0
        elif c in "[{":
            stack.append(c)
            in_key = (in_key and c == "[") or c == "{"
        elif c in "]}":
            if stack:
                stack.pop()
        elif c == "=":
            in_key, dots = False, 0
        elif c == "," and stack and stack[-1] == "{":
            in_key, dots = True, 0
        elif c == "." and in_key:
            dots += 1
        deepest = max(deepest, len(stack) + dots)
        i += 1
    return deepest


def _num(v: int | float) -> str:
    return f"{v:,}" if isinstance(v, int) or float(v).is_integer() else f"{v:g}"
