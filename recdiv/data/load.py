"""`load_dataset`: one entry point for every supported dataset, by name, folder or `synthetic[:preset]`."""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from pydantic import ConfigDict, TypeAdapter, ValidationError

from recdiv.data import synthetic
from recdiv.data._build import attribute_from_pairs
from recdiv.data._source import optional_file
from recdiv.data.datasets import FORMATS
from recdiv.data.interactions import Dataset, Interactions
from recdiv.data.locate import dataset_path
from recdiv.data.textio import read_interactions_tsv, read_item_aspects_tsv
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError, DataError


def detect_format(folder: str | Path) -> str:
    """The format name of an unpacked dataset folder, from the files it holds."""
    folder = Path(folder)
    formats = FORMATS.entries()
    for entry in formats:
        if optional_file(folder / entry.obj.marker):  # a broken link in place of the file is an error naming it
            return entry.name
    expected = ", ".join(e.obj.marker for e in formats)
    raise DataError(f"unknown dataset format: none of the expected files ({expected}) is in this folder", folder)


def load_dataset(name_or_path: str | Path, data_dir: str | Path | None = None, **options) -> Dataset:
    """Load a dataset.

    `name_or_path`: a folder (format detected from its files: `recdiv.data.datasets.FORMATS`); a dataset name looked up
    under `data_dir`, `$RECDIV_DATA` or `../shared/data` (`ml-100k`, `ml-latest-small`,
    `hetrec2011-lastfm-2k`, aliases `ml100k`, `lastfm-2k`); or `synthetic` / `synthetic:<preset>`
    (generated, seed 0 unless `seed=` is given). `options` go to the loader (e.g. `duplicates="last"`,
    `min_tag_users=3`, `ratings="cdf"`, `splits=False`, `n_users=...`).
    """
    fmt, loader, arg = dataset_loader(name_or_path, data_dir)
    check_options(fmt, loader, options)
    return loader(arg, **options)


def dataset_loader(name_or_path: str | Path, data_dir: str | Path | None = None) -> tuple[str, Callable, object]:
    """(format, loader, first argument) of a dataset, found without reading its data: `loader(arg, **options)`
    loads it. DataError if the folder does not exist or holds no known format."""
    spec = str(name_or_path)
    if spec == "synthetic" or spec.startswith("synthetic:"):
        return "synthetic", synthetic.generate, spec.partition(":")[2] or None
    folder = dataset_path(name_or_path, data_dir)
    fmt = detect_format(folder)
    return fmt, FORMATS.get(fmt).load_function(), folder


_STRICT = ConfigDict(strict=True, allow_inf_nan=False)


def check_options(fmt: str, loader: Callable, options: dict[str, object]) -> None:
    """ConfigError for an option `loader` does not take, or a value not of the option's declared type (strict:
    "30" is not a number, 30.0 not an integer, NaN not a float)."""
    params = list(inspect.signature(loader).parameters.values())[1:]  # the first one is the folder / preset
    names = [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    hints = typing.get_type_hints(loader)
    for key, value in options.items():
        if key not in names:
            raise ConfigError(f"unknown option {key!r} of the {fmt} loader (its options: {', '.join(names)})")
        if key in hints:
            text = json.dumps(value, default=lambda o: o.item() if hasattr(o, "item") else str(o))
            try:
                TypeAdapter(hints[key], config=_STRICT).validate_json(text)
            except ValidationError as e:
                raise ConfigError(f"option {key!r} of the {fmt} loader: {e.errors()[0]['msg']} "
                                  f"(expected {_type_name(hints[key])}, got {value!r})") from None


def _type_name(hint) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


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
    return pd.DataFrame([(e.name, e.obj.marker) for e in FORMATS.entries()], columns=["format", "identified by"])
