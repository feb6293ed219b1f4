"""`load_dataset`: one entry point for every supported dataset, by name, folder or `synthetic[:preset]`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from recdiv.data import lastfm, movielens, synthetic
from recdiv.data._build import attribute_from_pairs
from recdiv.data.interactions import Dataset, Interactions
from recdiv.data.locate import dataset_path
from recdiv.data.textio import read_interactions_tsv, read_item_aspects_tsv
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError, DataError

# (format, file that identifies it, loader); checked in this order
FORMATS = [
    ("ml-100k", "u.data", movielens.load_ml100k),
    ("movielens-dat", "ratings.dat", movielens.load_ml_dat),
    ("movielens-csv", "ratings.csv", movielens.load_ml_csv),
    ("hetrec-lastfm", "user_artists.dat", lastfm.load_hetrec_lastfm),
    ("lastfm-1k", lastfm.LASTFM_1K_LOG, lastfm.load_lastfm_1k),
    ("lastfm-360k", lastfm.LASTFM_360K_PLAYS, lastfm.load_lastfm_360k),
    ("recdiv-tsv", "interactions.tsv", None),
]


def detect_format(folder: str | Path) -> str:
    """The format name of an unpacked dataset folder, from the files it holds."""
    folder = Path(folder)
    for name, marker, _ in FORMATS:
        if (folder / marker).is_file():
            return name
    expected = ", ".join(m for _, m, _ in FORMATS)
    raise DataError(f"unknown dataset format: none of the expected files ({expected}) is in this folder", folder)


def load_dataset(name_or_path: str | Path, data_dir: str | Path | None = None, **options) -> Dataset:
    """Load a dataset.

    `name_or_path`: a folder (format detected from its files, see `FORMATS`); a dataset name looked up
    under `data_dir`, `$RECDIV_DATA` or `../shared/data` (`ml-100k`, `ml-latest-small`,
    `hetrec2011-lastfm-2k`, aliases `ml100k`, `lastfm-2k`); or `synthetic` / `synthetic:<preset>`
    (generated, seed 0 unless `seed=` is given). `options` go to the loader (e.g. `duplicates="last"`,
    `min_tag_users=3`, `ratings="cdf"`, `splits=False`, `n_users=...`).
    """
    spec = str(name_or_path)
    if spec == "synthetic" or spec.startswith("synthetic:"):
        preset = spec.partition(":")[2] or None
        return synthetic.generate(preset, **options)
    folder = dataset_path(name_or_path, data_dir)
    fmt = detect_format(folder)
    loader = dict((n, f) for n, _, f in FORMATS)[fmt]
    try:
        return loader(folder, **options) if loader is not None else load_recdiv_tsv(folder, **options)
    except TypeError as e:
        if "unexpected keyword" in str(e):
            raise ConfigError(f"option not understood by the {fmt} loader ({folder}): {e}") from None
        raise


def load_recdiv_tsv(folder: str | Path, *, kind: str = "explicit", scale: tuple[float, float] | None = None) -> Dataset:
    """recdiv's own text format: `interactions.tsv` (user item value [timestamp]) and, optionally, one
    `<attribute>.aspects.tsv` (item aspect [weight]) per item attribute (e.g. `genres.aspects.tsv`)."""
    folder = Path(folder)
    frame = read_interactions_tsv(folder / "interactions.tsv")
    frame.attrs = {}
    aspect_frames = {p.name.split(".")[0]: read_item_aspects_tsv(p) for p in sorted(folder.glob("*.aspects.tsv"))}
    users = Vocab.from_values(frame["user"])
    items = Vocab.from_values(frame["item"], *[f["item"] for f in aspect_frames.values()])
    if scale is None and kind == "explicit":
        scale = (float(frame["value"].min()), float(frame["value"].max()))
    inter = Interactions.from_frame(frame, users=users, items=items, kind=kind, scale=scale)
    attrs = {
        name: attribute_from_pairs(items.lookup(f["item"].to_numpy()), f["aspect"].to_numpy(), len(items),
                                   f["weight"].to_numpy())
        for name, f in aspect_frames.items()
    }
    return Dataset(folder.name, inter, attrs, extras={"source": str(folder)})


def describe_formats() -> pd.DataFrame:
    """The supported folder formats and the file that identifies each."""
    return pd.DataFrame([(n, m) for n, m, _ in FORMATS], columns=["format", "identified by"])
