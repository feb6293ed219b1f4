"""Items as people read them: a title and the aspects of every item, and the items file that carries them.

``items.tsv`` (written by `recdiv data export`, read by `recdiv show` and `recdiv explore`): one item per line,
``item<TAB>title<TAB>aspect<TAB>aspect…`` (as many aspect fields as the item has, none for an item without
aspects), after a comment line ``# item<TAB>title<TAB>aspects…``. Titles are the dataset's (MovieLens titles,
Last.fm artist names; the item id when the dataset has none), with tabs, line breaks and control characters
turned into spaces. Item ids are compared as text, so a run's ``50`` finds MovieLens item 50.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from recdiv.errors import DataError

HEADER = "# item\ttitle\taspects…"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
#: the item_info column that holds a title, in order of preference
TITLE_COLUMNS = ("title", "name")


def clean(text: object) -> str:
    """A one-line text: control characters (tabs, line breaks, escapes) become one space, ends stripped."""
    return _CONTROL.sub(" ", str(text)).strip()


def item_titles(dataset) -> list[str]:
    """The title of every item of `dataset` (dense order; the item id where the dataset has no title)."""
    ids = [str(x) for x in dataset.items.ids]
    info = dataset.item_info
    column = next((c for c in TITLE_COLUMNS if info is not None and c in info.columns), None)
    if column is None:
        return ids
    values = info[column].to_numpy()
    return [clean(v) if isinstance(v, str) and v.strip() else i for v, i in zip(values, ids)]


@dataclass(frozen=True)
class Items:
    """Titles and aspect names by item id (text); `describe(id)` → (title, aspects)."""

    titles: dict[str, str]
    aspects: dict[str, tuple[str, ...]]

    def describe(self, item: object) -> tuple[str, tuple[str, ...]]:
        key = str(item)
        return self.titles.get(key, key), self.aspects.get(key, ())

    def __len__(self) -> int:
        return len(self.titles)

    @classmethod
    def of(cls, dataset, space=None) -> Items:
        """The items of a dataset, with the aspects of `space` (an `AspectSpace`; none when None)."""
        ids = [str(x) for x in dataset.items.ids]
        titles = dict(zip(ids, item_titles(dataset)))
        aspects: dict[str, tuple[str, ...]] = {}
        if space is not None:
            indptr, indices = space.pattern()
            names = [clean(x) for x in space.names.ids]
            space_ids = [str(x) for x in space.items.ids]
            for r, item in enumerate(space_ids):
                aspects[item] = tuple(names[j] for j in indices[indptr[r]:indptr[r + 1]])
        return cls(titles, aspects)


def write_items_tsv(items: Items, path: str | Path) -> None:
    """Write the items file (module docstring), atomically, items in the order of `items.titles`."""
    from recdiv.outputs import atomic_write

    with atomic_write(path) as fh:
        fh.write(HEADER + "\n")
        for item, title in items.titles.items():
            aspects = (a for a in map(clean, items.aspects.get(item, ())) if a)
            fields = [clean(item), clean(title) or clean(item), *aspects]
            fh.write("\t".join(fields) + "\n")


def read_items_tsv(path: str | Path) -> Items:
    """Read an items file; a DataError names the file and line of a malformed one."""
    from recdiv.data._source import read_source

    raw = read_source(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DataError(f"not UTF-8 text (byte {e.start})", path) from None
    titles: dict[str, str] = {}
    aspects: dict[str, tuple[str, ...]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0].strip():
            raise DataError(f"line {n}: expected item<TAB>title[<TAB>aspect…], got {line[:60]!r}", path)
        item = fields[0].strip()
        if item in titles:
            raise DataError(f"line {n}: item {item!r} is listed twice", path)
        titles[item] = clean(fields[1]) or item
        aspects[item] = tuple(a for a in (clean(x) for x in fields[2:]) if a)
    return Items(titles, aspects)

