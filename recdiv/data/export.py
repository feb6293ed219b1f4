"""A split as the files every command reads: `export_split(...)` writes, into one folder,

- ``train.tsv``: the training interactions, ``user<TAB>item<TAB>value[<TAB>timestamp]`` (`recommend --train`,
  `rerank --train`, `eval --train`);
- ``test.qrels``: the test judgments in TREC qrels format, ``user 0 item grade`` (`eval`, `compare`, trec_eval):
  the test rating for explicit data; 1 for every test interaction of implicit data (play counts are not grades);
  ``test.parquet`` or ``test.arrow`` instead with ``qrels_format`` parquet or arrow (columns user, item, grade: the
  reader layer's, `recdiv.data.formats`);
- ``aspects.tsv`` (when an item attribute is chosen): ``item<TAB>aspect[<TAB>weight]``, tab-separated so that
  aspect names with spaces (Last.fm tags such as ``hip hop``) survive (`rerank --aspects`, `eval --aspects`);
- ``items.tsv``: every item with its title and aspects, ``item<TAB>title<TAB>aspect…`` (`recdiv.data.items`;
  `recdiv show --items`, `recdiv explore` read it);
- ``README.txt``: what each file is, its size, the rating scale and the relevance threshold to evaluate with;
- ``export.json``: the same facts for the commands: the relevance threshold the qrels need (``threshold``) and the
  rating scale, which `recdiv eval`, `compare` and `meta` use for ``test.qrels`` when no ``--rel-threshold`` is
  given (`recorded_threshold`) — an implicit-feedback export (every grade 1) is then evaluated at τ = 1, not at the
  default 4, where no user would have a relevant item.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from recdiv.data.export_record import RECORD, recorded_threshold
from recdiv.data.interactions import Dataset, Split
from recdiv.data.items import Items, write_items_tsv
from recdiv.data.textio import write_interactions_tsv, write_item_aspects_tsv, write_trec_qrels
from recdiv.errors import ConfigError
from recdiv.outputs import write_text

__all__ = ["EXPORT_FILES", "Export", "export_split", "load_export", "recorded_threshold", "relevance_threshold"]

#: the qrels file of an export in each format it can be written in
QRELS_FILES = {"trec": "test.qrels", "parquet": "test.parquet", "arrow": "test.arrow"}
EXPORT_FILES = ("train.tsv", *QRELS_FILES.values(), "aspects.tsv", "items.tsv", "README.txt", RECORD)


@dataclass(frozen=True)
class Export:
    """What `export_split` wrote: the folder, the files, and the relevance threshold evaluation should use."""

    folder: Path
    files: tuple[Path, ...]
    threshold: float
    summary: str  # one line for the command line


def relevance_threshold(split: Split) -> float:
    """The threshold τ (relevant ⇔ grade ≥ τ) that fits the exported qrels: 4 on scales up to 5 (recdiv's and
    Valcarce et al.'s convention, the `eval --rel-threshold` default), 0.8·max on other rating scales, 1 for
    implicit data (every test interaction is relevant)."""
    if split.train.kind == "implicit":
        return 1.0
    hi = split.train.scale[1] if split.train.scale else float(split.train.values.max())
    return 4.0 if hi == 5.0 else round(0.8 * hi, 6)


def export_split(split: Split, folder: str | Path, *, source: str, aspects: pd.DataFrame | None = None,
                 aspect_name: str = "aspects", items: Items | None = None, force: bool = False,
                 qrels_format: str = "trec") -> Export:
    """Write `split` (and, if given, the item-aspect pairs `aspects`: columns item, aspect[, weight], and the
    items' titles and aspects `items`) into `folder` (created if needed). Existing export files are an error unless
    `force`. `source` names the dataset and split in README.txt (e.g. ``ml-100k, split u1``). `qrels_format`: trec
    (test.qrels), parquet (test.parquet) or arrow (test.arrow)."""
    if qrels_format not in QRELS_FILES:
        raise ConfigError(f"qrels format must be one of {', '.join(QRELS_FILES)}, got {qrels_format!r}")
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"-o {folder}: exists and is not a folder")
    present = [n for n in EXPORT_FILES if (folder / n).exists()]
    if present and not force:
        same = _same_export(split, folder, present, source=source, aspects=aspects, aspect_name=aspect_name,
                            items=items, qrels_format=qrels_format)
        if same is None:
            raise ConfigError(f"-o {folder}: already holds {', '.join(present)} (use --force to overwrite)")
        return same
    folder.mkdir(parents=True, exist_ok=True)
    train, test = split.train.to_frame(), split.test.to_frame()
    implicit = split.test.kind == "implicit"
    qrels = pd.DataFrame({"user": test["user"], "item": test["item"],
                          "grade": np.ones(len(test)) if implicit else test["value"].to_numpy(np.float64)})
    tau = relevance_threshold(split)
    files = [folder / "train.tsv", folder / QRELS_FILES[qrels_format]]
    for stale in set(QRELS_FILES.values()) - {files[1].name}:  # --force over an export in another format
        (folder / stale).unlink(missing_ok=True)
    write_interactions_tsv(train, files[0])
    if qrels_format == "trec":
        write_trec_qrels(qrels, files[1])
    else:
        from recdiv.data.formats import write_qrels

        write_qrels(qrels, files[1], format=qrels_format)
    if aspects is not None:
        if "weight" in aspects and (aspects["weight"].to_numpy() == 1.0).all():
            aspects = aspects.drop(columns="weight")  # membership only (genres): two columns
        files.append(folder / "aspects.tsv")
        write_item_aspects_tsv(aspects, files[-1])
    if items is not None:
        files.append(folder / "items.tsv")
        write_items_tsv(items, files[-1])
    text = readme(split, source=source, qrels=qrels, train=train, aspects=aspects, aspect_name=aspect_name, tau=tau,
                  items=items, qrels_file=files[1].name)
    files.append(folder / "README.txt")
    write_text(files[-1], text)
    scale = split.train.scale
    record = {"source": source, "qrels": files[1].name, "threshold": tau,
              "rating_scale": None if scale is None else [float(scale[0]), float(scale[1])],
              "feedback": split.test.kind}
    files.append(folder / RECORD)
    write_text(files[-1], json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    n_users = qrels["user"].nunique()
    summary = (f"{source}: {len(train):,} training interactions, {len(qrels):,} judgments of {n_users:,} test users"
               + (f", {len(aspects):,} (item, aspect) pairs of {aspect_name}" if aspects is not None else "")
               + f" -> {folder}/ (relevant: grade ≥ {tau:g})")
    return Export(folder, tuple(files), tau, summary)


def _same_export(split: Split, folder: Path, present: list[str], **what) -> Export | None:
    """The export already in `folder` when its data files are byte for byte the ones this call would write (the same
    command run twice, e.g. the README's and the walkthrough's first line, also after updating recdiv): nothing but
    README.txt (whose provenance names the recdiv that wrote it) is written and the command succeeds; None when
    any data file differs."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix=".recdiv-export-") as tmp:
        fresh = export_split(split, Path(tmp) / "x", force=True, **what)
        names = [f.name for f in fresh.files]
        if sorted(names) != sorted(present) or any(
                (folder / n).read_bytes() != (Path(tmp) / "x" / n).read_bytes() for n in names if n != "README.txt"):
            return None
        readme_text = (Path(tmp) / "x" / "README.txt").read_text(encoding="utf-8")
    note = "already there, unchanged"
    if (folder / "README.txt").read_text(encoding="utf-8", errors="replace") != readme_text:
        write_text(folder / "README.txt", readme_text)
        note = "data already there, unchanged; README.txt rewritten"
    return Export(folder, tuple(folder / n for n in names), fresh.threshold,
                  fresh.summary.replace(f"-> {Path(tmp) / 'x'}/", f"-> {folder}/ ({note})"))


def readme(split: Split, *, source: str, qrels: pd.DataFrame, train: pd.DataFrame, aspects: pd.DataFrame | None,
           aspect_name: str, tau: float, items: Items | None = None, qrels_file: str = QRELS_FILES["trec"]) -> str:
    """README.txt of an export folder: one paragraph per file, and the relevance threshold to evaluate with."""
    implicit = split.test.kind == "implicit"
    scale = split.train.scale
    value = ("interaction count (implicit feedback)" if implicit else
             f"rating ({scale[0]:g}–{scale[1]:g})" if scale else "rating")
    ts = "<TAB>timestamp" if "timestamp" in train else ""
    grade = ("1 for every test interaction (implicit feedback: what the user interacted with is relevant)"
             if implicit else f"the test rating ({scale[0]:g}–{scale[1]:g})" if scale else "the test rating")
    lines = [
        f"recdiv data export of {source}.",
        "",
        "train.tsv",
        f"  Training interactions, one per line: user<TAB>item<TAB>value{ts}; value = {value}.",
        f"  {len(train):,} lines, {train['user'].nunique():,} users, {train['item'].nunique():,} items.",
        "  Read by: recdiv recommend --train, recdiv rerank --train, recdiv eval/compare --train.",
        "",
        qrels_file,
        (f"  Test judgments in TREC qrels format: user 0 item grade; grade = {grade}." if qrels_file.endswith(".qrels")
         else f"  Test judgments as a {'Parquet' if qrels_file.endswith('.parquet') else 'Arrow IPC'} table with "
              f"columns user, item, grade; grade = {grade}."),
        f"  {len(qrels):,} {'lines' if qrels_file.endswith('.qrels') else 'rows'}, "
        f"{qrels['user'].nunique():,} users.",
        f"  Relevant <=> grade >= {tau:g}: recdiv eval/compare --rel-threshold {tau:g}"
        + (" (the default)" if tau == 4.0 else "")
        + (f"; trec_eval -l {tau:g}" + ("" if float(tau).is_integer() else " (trec_eval reads integer grades only)")
           if qrels_file.endswith(".qrels") else "") + ".",
        "  Users averaged over: those with at least one relevant test item (recdiv's default --population relevant);",
        "  trec_eval averages over every user with a judgment (--population judged).",
        "  Read by: recdiv recommend --qrels (the users to recommend for), recdiv eval, recdiv compare"
        + (", trec_eval." if qrels_file.endswith(".qrels") else " (`recdiv convert` writes it as TREC text)."),
    ]
    if aspects is not None:
        weight = "<TAB>weight (e.g. how many users applied the tag)" if "weight" in aspects else ""
        lines += [
            "",
            "aspects.tsv",
            f"  Item {aspect_name}, one (item, aspect) pair per line: item<TAB>aspect{weight}.",
            "  Tab-separated: an aspect name may contain spaces.",
            f"  {len(aspects):,} lines, {aspects['item'].nunique():,} items, {aspects['aspect'].nunique():,} aspects.",
            "  Read by: recdiv rerank --aspects, recdiv eval/compare --aspects, recdiv recommend --aspects (content).",
        ]
    if items is not None:
        lines += [
            "",
            "items.tsv",
            "  Every item for people to read: item<TAB>title<TAB>aspect<TAB>aspect... (as many aspects as the item has"
            + (f", the {aspect_name} of aspects.tsv" if aspects is not None else ", none here") + ").",
            f"  {len(items):,} items.",
            "  Read by: recdiv show --items (a user's list with titles), recdiv explore.",
        ]
    from recdiv import provenance

    return "\n".join(lines) + "\n\n" + provenance.comment(provenance.record(), "#")


def load_export(folder: str | Path, *, kind: str | None = None) -> Dataset:
    """A `recdiv data export` folder as a dataset: its split is `export` (train.tsv / test.qrels, .parquet or .arrow);
    interactions are both parts; attributes the aspects of aspects.tsv (named as README.txt names them, else
    "aspects"); titles from items.tsv. `kind`: explicit or implicit (default: what README.txt says)."""
    from recdiv.data._build import attribute_from_pairs
    from recdiv.data.interactions import Interactions
    from recdiv.data.items import read_items_tsv
    from recdiv.data.textio import read_interactions_tsv, read_item_aspects_tsv, read_trec_qrels
    from recdiv.data.vocab import Vocab

    folder = Path(folder)
    readme_path = folder / "README.txt"
    text = readme_path.read_text(encoding="utf-8", errors="replace") if readme_path.is_file() else ""
    if kind is None:
        kind = "implicit" if "implicit feedback" in text else "explicit"
    if kind not in ("explicit", "implicit"):
        raise ConfigError(f"kind must be explicit or implicit, got {kind!r}")
    train = read_interactions_tsv(folder / "train.tsv")[["user", "item", "value"]]
    qrels_file = next((folder / n for n in QRELS_FILES.values() if (folder / n).is_file()), folder / "test.qrels")
    if qrels_file.suffix == ".qrels":
        test = read_trec_qrels(qrels_file)
    else:
        from recdiv.data.formats import read_qrels

        test = read_qrels(qrels_file).frame()
    test = test.rename(columns={"grade": "value"})
    aspects = read_item_aspects_tsv(folder / "aspects.tsv") if (folder / "aspects.tsv").is_file() else None
    items_file = read_items_tsv(folder / "items.tsv") if (folder / "items.tsv").is_file() else None
    users = Vocab.from_values(train["user"], test["user"])
    items = Vocab.from_values(train["item"], test["item"], *([aspects["item"]] if aspects is not None else []),
                              *([np.array(list(items_file.titles))] if items_file is not None else []))
    both = pd.concat([train, test], ignore_index=True)
    scale = None if kind == "implicit" else (float(both["value"].min()), float(both["value"].max()))
    parts = [Interactions.from_frame(f, users=users, items=items, kind=kind, scale=scale) for f in (train, test)]
    attributes = {}
    if aspects is not None:
        import re

        named = re.search(r"^\s*Item (\S+), one \(item, aspect\) pair per line", text, re.M)
        attributes[named.group(1) if named else "aspects"] = attribute_from_pairs(
            items.lookup(aspects["item"].to_numpy()), aspects["aspect"].to_numpy(), len(items),
            aspects["weight"].to_numpy())
    info = None
    if items_file is not None:
        info = pd.DataFrame({"title": [items_file.describe(i)[0] for i in items.ids]}, index=items.index)
    return Dataset(folder.name, Interactions.from_frame(both, users=users, items=items, kind=kind, scale=scale),
                   attributes, item_info=info, extras={"source": str(folder)},
                   splits={"export": Split(parts[0], parts[1], name="export")})
