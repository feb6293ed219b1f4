"""Item factor files: one item per line, ``item<TAB>f_1<TAB>…<TAB>f_F`` (the item factors q_i of a matrix
factorisation model), written by `recdiv recommend --factors-out` and read by `recdiv rerank --factors` (latent
aspects and the latent-cosine similarity, METRICS.md §E.11). Floats are written with 17 significant digits, so a
file read back gives the same vectors bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from recdiv.data.vocab import Vocab
from recdiv.errors import DataError
from recdiv.outputs import atomic_write

__all__ = ["read_item_factors_tsv", "write_item_factors_tsv"]


def write_item_factors_tsv(items: Vocab, factors: np.ndarray, path: str | Path) -> None:
    """Write the rows of `factors` (items × F, aligned with `items`) atomically."""
    q = np.asarray(factors, dtype=np.float64)
    if q.ndim != 2 or len(q) != len(items):
        raise ValueError(f"factors must be items × F with {len(items)} rows, got shape {q.shape}")
    ids = [str(x) for x in items.ids]
    bad = next((x for x in ids if not x or any(c.isspace() for c in x)), None)
    if bad is not None:
        raise DataError(f"cannot write item id {bad!r}: ids in a tab-separated file cannot be empty or contain "
                        "whitespace", path)
    body = np.char.mod("%.17g", q)
    with atomic_write(path) as fh:
        fh.writelines(f"{i}\t{chr(9).join(row)}\n" for i, row in zip(ids, body))


def read_item_factors_tsv(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(item ids as strings, factors items × F) of an item factor file; DataError naming the line of a row
    with another number of factors, a value that is not a finite number, or an item given twice."""
    path = Path(path)
    try:
        frame = pd.read_csv(path, sep="\t", header=None, dtype=str, comment="#", skip_blank_lines=True,
                            keep_default_na=False)
    except FileNotFoundError:
        raise DataError("file not found", path) from None
    except pd.errors.EmptyDataError:
        raise DataError("empty item factor file: no data lines", path) from None
    except pd.errors.ParserError as e:
        raise DataError(f"not an item factor file (item<TAB>f1<TAB>...): {e}", path) from None
    if frame.shape[1] < 2:
        raise DataError("an item factor file has an item id and at least one factor per line", path, 1)
    lines = _line_numbers(path)
    empty = (frame.iloc[:, 1:] == "").to_numpy()
    if empty.any():
        j = int(np.flatnonzero(empty.any(axis=1))[0])
        raise DataError(f"expected {frame.shape[1] - 1} factors like the longest line", path, lines[j])
    values = _floats(frame.iloc[:, 1:].to_numpy(dtype=object))
    bad = ~np.isfinite(values)
    if bad.any():
        j, c = (int(x[0]) for x in np.nonzero(bad))
        raise DataError(f"factor {c + 1} must be a finite number, got {frame.iat[j, c + 1]!r}", path, lines[j])
    ids = frame.iloc[:, 0].to_numpy(dtype=str)
    dup = pd.Index(ids).duplicated()
    if dup.any():
        j = int(np.flatnonzero(dup)[0])
        raise DataError(f"item {str(ids[j])!r} is given twice", path, lines[j])
    return ids, values


def _floats(text: np.ndarray) -> np.ndarray:
    """The numbers of a table of strings, correctly rounded (Python's float), so that a factor written with 17
    significant digits reads back bit for bit (pandas' fast parser can be off by one unit in the last place);
    NaN where a cell is not a number."""
    try:
        return text.astype(np.float64)
    except ValueError:
        return pd.DataFrame(text).apply(pd.to_numeric, errors="coerce").to_numpy(np.float64)


def _line_numbers(path: Path) -> np.ndarray:
    """1-based line numbers of the data lines (not blank, not comments), in file order."""
    text = path.read_text(encoding="utf-8").splitlines()
    return np.array([n for n, line in enumerate(text, 1) if line.strip() and not line.startswith("#")])
