"""MovieLens loaders: ML-100K (with its seven provided splits), ML-1M/10M (`::` files) and the CSV
releases (ML-20M, 25M, 32M, latest, latest-small).

Every loader keeps the original ids (ints), keeps items listed in the movie file even when nobody rated
them, and raises `DataError` (file, line, problem) on malformed input. Duplicated (user, movie) rating rows
are an error by default; `duplicates="last"|"first"|"sum"|"mean"` combines them instead.

Citation: F. Maxwell Harper and Joseph A. Konstan (2015), "The MovieLens Datasets: History and Context",
ACM TiiS 5(4), article 19.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.data._build import attribute_from_pairs, check_scale, interactions_from_frame, split_labels
from recdiv.data._read import plain, read_lines, read_table, resolve_duplicates
from recdiv.data._source import optional_file
from recdiv.data.interactions import Attribute, Dataset, Split
from recdiv.data.vocab import Vocab
from recdiv.errors import DataError

ML100K_SPLITS = ("u1", "u2", "u3", "u4", "u5", "ua", "ub")
NO_GENRE = "(no genres listed)"  # ML CSV releases: a marker, not a genre (the item gets no genre)
_RATING_COLS = [("user", "int"), ("item", "int"), ("value", "float"), ("timestamp", "int")]


def _ratings(path: Path, duplicates: str, scale: tuple[float, float], step: float, **kw) -> pd.DataFrame:
    frame = read_table(path, _RATING_COLS, what="ratings file (user item rating timestamp)", **kw)
    check_scale(frame, "value", scale, step)
    return resolve_duplicates(frame, ["user", "item"], "value", duplicates)


# ML-100K ---------------------------------------------------------------------------------------------
def load_ml100k(path: str | Path, *, splits: bool = True, duplicates: str = "error") -> Dataset:
    """MovieLens 100K from its unpacked folder (`u.data`, `u.item`, `u.genre`, `u.user`, `u*.base/test`).

    attributes["genres"]: items × 19 genres (names from `u.genre`, `unknown` included, flag order).
    item_info: title, release_date, video_release_date, imdb_url; user_info: age, gender, occupation, zip.
    splits: "u1".."u5" (5-fold 80/20) and "ua"/"ub" (10 test ratings per user) from the provided `.base` /
    `.test` files, over the full dataset's vocabularies (`splits=False` skips reading them).
    """
    path = Path(path)
    ratings = _ratings(path / "u.data", duplicates, (1, 5), 1.0)
    genre_tab = read_table(path / "u.genre", [("name", "str"), ("index", "int")], sep="|", encoding="latin-1",
                           what="genre file (name|index)")
    resolve_duplicates(genre_tab, ["name"], None, "error", what="genre name")
    resolve_duplicates(genre_tab, ["index"], None, "error", what="genre index")
    out_of_range = ~genre_tab["index"].between(0, len(genre_tab) - 1).to_numpy()
    if out_of_range.any():
        j = int(np.flatnonzero(out_of_range)[0])
        raise DataError(f"genre index {genre_tab['index'].iloc[j]} is not in 0..{len(genre_tab) - 1} (one line per "
                        f"genre flag of u.item)", path / "u.genre", int(genre_tab.attrs["lineno"][j]))
    genre_names = genre_tab.sort_values("index")["name"].tolist()
    n_g = len(genre_names)
    item_cols = [("item", "int"), ("title", "str?"), ("release_date", "str?"), ("video_release_date", "str?"),
                 ("imdb_url", "str?")] + [(f"g{j}", "int") for j in range(n_g)]
    movies = read_table(path / "u.item", item_cols, sep="|", encoding="latin-1",
                        what=f"movie file (id|title|release date|video release date|IMDb URL|{n_g} genre flags)")
    resolve_duplicates(movies, ["item"], None, "error", what="movie id")
    flags = movies[[f"g{j}" for j in range(n_g)]].to_numpy()
    if ((flags != 0) & (flags != 1)).any():
        r, c = np.argwhere((flags != 0) & (flags != 1))[0]
        raise DataError(f"genre flag {genre_names[c]!r} must be 0 or 1, got {flags[r, c]}", path / "u.item",
                        int(movies.attrs["lineno"][r]))
    user_path = path / "u.user"
    users_tab = None
    if optional_file(user_path):
        users_tab = read_table(user_path, [("user", "int"), ("age", "int"), ("gender", "str"),
                                           ("occupation", "str"), ("zip", "str?")],
                               sep="|", encoding="latin-1", what="user file (id|age|gender|occupation|zip)")
        resolve_duplicates(users_tab, ["user"], None, "error", what="user id")
    users = Vocab.from_values(ratings["user"], *([] if users_tab is None else [users_tab["user"]]))
    items = Vocab.from_values(ratings["item"], movies["item"])
    inter = interactions_from_frame(ratings, users, items, scale=(1.0, 5.0))
    rows, cols = np.nonzero(flags)
    genres = Attribute(
        sp.csr_matrix((np.ones(len(rows)), (items.lookup(movies["item"].to_numpy()[rows]), cols)),
                      shape=(len(items), n_g)),
        Vocab(genre_names),
    )
    item_info = movies.set_index("item")[["title", "release_date", "video_release_date", "imdb_url"]]
    user_info = None if users_tab is None else users_tab.set_index("user").reindex(users.ids)
    ds_splits: dict[str, Split] = {}
    if splits:
        for name in ML100K_SPLITS:
            base, test = path / f"{name}.base", path / f"{name}.test"
            if optional_file(base) and optional_file(test):
                ds_splits[name] = Split(
                    train=interactions_from_frame(_ratings(base, duplicates, (1, 5), 1.0), users, items,
                                                  scale=(1.0, 5.0)),
                    test=interactions_from_frame(_ratings(test, duplicates, (1, 5), 1.0), users, items,
                                                 scale=(1.0, 5.0)),
                    name=name,
                )
    return Dataset(
        "ml-100k", inter, {"genres": genres}, item_info=plain(item_info.reindex(items.ids)), user_info=plain(user_info),
        extras={"source": str(path)}, splits=ds_splits,
    )


# ML-1M / ML-10M ---------------------------------------------------------------------------------------
_TAG_LINE = r"^(?P<user>[0-9]+)::(?P<item>[0-9]+)::(?P<tag>.*)::(?P<timestamp>[0-9]+)$"


def _dat_tags(path: Path, items: Vocab) -> tuple[Attribute, pd.DataFrame]:
    """ML-10M tags.dat (UserID::MovieID::Tag::Timestamp); the tag may itself contain '::'."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = read_lines(path, encoding="utf-8|latin-1", what="tag file (UserID::MovieID::Tag::Timestamp)")
    fields = pc.extract_regex(table["line"], _TAG_LINE)
    bad = fields.is_null().to_numpy(zero_copy_only=False)
    if bad.any():
        raise table.error("expected UserID::MovieID::Tag::Timestamp (user, movie and timestamp integers)",
                          int(np.flatnonzero(bad)[0]))
    cols = {}
    for name in ("user", "item", "timestamp"):
        try:
            cols[name] = pc.cast(pc.struct_field(fields, name), pa.int64()).to_numpy()
        except pa.ArrowInvalid:
            raise DataError(f"{name} too large an integer", path) from None
    frame = pd.DataFrame({"user": cols["user"], "item": cols["item"],
                          "tag": pc.struct_field(fields, "tag").to_numpy(zero_copy_only=False),
                          "timestamp": cols["timestamp"]})
    return _tag_attribute(frame, items), frame


def _tag_attribute(frame: pd.DataFrame, items: Vocab) -> Attribute:
    """Items × tags; tags lower-cased and stripped; weight = number of distinct users applying the tag."""
    tags = frame["tag"].astype(str).str.strip().str.lower()
    pairs = pd.DataFrame({"user": frame["user"], "item": frame["item"], "tag": tags})
    pairs = pairs[pairs["tag"] != ""].drop_duplicates(["user", "item", "tag"])
    return attribute_from_pairs(items.lookup(pairs["item"].to_numpy(), missing="-1"), pairs["tag"].to_numpy(),
                                len(items))


def load_ml_dat(path: str | Path, *, duplicates: str = "error", name: str | None = None) -> Dataset:
    """MovieLens 1M or 10M (`ratings.dat`, `movies.dat`, optional `users.dat` / `tags.dat`, `::`-separated).

    ML-10M is recognised by its `tags.dat` or half-star ratings: scale 0.5–5; ML-1M: 1–5.
    Metadata files are read as UTF-8 when valid, else latin-1. attributes: "genres" (`|`-separated in
    movies.dat) and, for 10M, "tags" (see `_tag_attribute`).
    """
    path = Path(path)
    probe = read_table(path / "ratings.dat", _RATING_COLS, replace_sep="::",
                       what="ratings file (UserID::MovieID::Rating::Timestamp)")
    ten = optional_file(path / "tags.dat") or bool((probe["value"] % 1 != 0).any())
    scale = (0.5, 5.0) if ten else (1.0, 5.0)
    check_scale(probe, "value", scale, 0.5 if ten else 1.0)
    ratings = resolve_duplicates(probe, ["user", "item"], "value", duplicates)
    movies = read_table(path / "movies.dat", [("item", "int"), ("title", "str?"), ("genres", "str?")],
                        replace_sep="::", encoding="utf-8|latin-1", what="movie file (MovieID::Title::Genres)")
    resolve_duplicates(movies, ["item"], None, "error", what="movie id")
    user_info = None
    users_cols = []
    if optional_file(path / "users.dat"):
        utab = read_table(path / "users.dat", [("user", "int"), ("gender", "str"), ("age", "int"),
                                               ("occupation", "int"), ("zip", "str?")],
                          replace_sep="::", encoding="utf-8|latin-1",
                          what="user file (UserID::Gender::Age::Occupation::Zip)")
        resolve_duplicates(utab, ["user"], None, "error", what="user id")
        users_cols = [utab["user"]]
        user_info = utab.set_index("user")
    users = Vocab.from_values(ratings["user"], *users_cols)
    items = Vocab.from_values(ratings["item"], movies["item"])
    inter = interactions_from_frame(ratings, users, items, scale=scale)
    pairs = split_labels(movies["item"], movies["genres"], drop=(NO_GENRE,))
    attrs = {"genres": attribute_from_pairs(items.lookup(pairs["item"].to_numpy()), pairs["label"].to_numpy(),
                                            len(items))}
    extras: dict[str, object] = {"source": str(path)}
    if optional_file(path / "tags.dat"):
        attrs["tags"], tag_frame = _dat_tags(path / "tags.dat", items)
        extras["source_counts"] = {"tag_applications": len(tag_frame)}
    return Dataset(
        name or ("ml-10m" if ten else "ml-1m"), inter, attrs,
        item_info=plain(movies.set_index("item")[["title"]].reindex(items.ids)),
        user_info=None if user_info is None else plain(user_info.reindex(users.ids)), extras=extras,
    )


# CSV releases (ML-20M, 25M, 32M, latest, latest-small) -------------------------------------------------
def load_ml_csv(path: str | Path, *, duplicates: str = "error", tags: bool = True, name: str | None = None) -> Dataset:
    """A MovieLens CSV release (`ratings.csv`, `movies.csv`, optional `tags.csv`, `links.csv`; UTF-8).

    Scale 0.5–5 (half stars). Items = movies.csv ∪ rated movies (unrated movies stay in the vocabulary).
    attributes: "genres" (`(no genres listed)` gives no genre), "tags" from tags.csv (lower-cased,
    weight = number of distinct users). item_info: title (+ imdbId, tmdbId from links.csv).
    """
    path = Path(path)
    ratings = _csv_ratings(path / "ratings.csv")
    check_scale(ratings, "value", (0.5, 5.0), 0.5)
    ratings = resolve_duplicates(ratings, ["user", "item"], "value", duplicates)
    movies = read_table(path / "movies.csv", [("movieId", "int"), ("title", "str?"), ("genres", "str?")],
                        sep=",", header=True, quoted=True, what="movie file (movieId,title,genres)")
    movies = movies.rename(columns={"movieId": "item"})
    resolve_duplicates(movies, ["item"], None, "error", what="movie id")
    users = Vocab.from_values(ratings["user"])
    items = Vocab.from_values(ratings["item"], movies["item"])
    inter = interactions_from_frame(ratings, users, items, scale=(0.5, 5.0))
    pairs = split_labels(movies["item"], movies["genres"], drop=(NO_GENRE,))
    attrs = {"genres": attribute_from_pairs(items.lookup(pairs["item"].to_numpy()), pairs["label"].to_numpy(),
                                            len(items))}
    extras: dict[str, object] = {"source": str(path)}
    if tags and optional_file(path / "tags.csv"):
        tag_frame = read_table(path / "tags.csv", [("userId", "int"), ("movieId", "int"), ("tag", "str?"),
                                                   ("timestamp", "int")],
                               sep=",", header=True, quoted=True, what="tag file (userId,movieId,tag,timestamp)")
        tag_frame = tag_frame.rename(columns={"userId": "user", "movieId": "item"})
        attrs["tags"] = _tag_attribute(tag_frame, items)
        extras["source_counts"] = {"tag_applications": len(tag_frame),
                                   "tagging_users": int(tag_frame["user"].nunique())}
    info = movies.set_index("item")[["title"]]
    if optional_file(path / "links.csv"):
        links = read_table(path / "links.csv", [("movieId", "int"), ("imdbId", "str?"), ("tmdbId", "str?")],
                           sep=",", header=True, quoted=True, what="links file (movieId,imdbId,tmdbId)")
        resolve_duplicates(links, ["movieId"], None, "error", what="movie id")
        info = info.join(links.set_index("movieId")[["imdbId", "tmdbId"]])
    return Dataset(name or path.name, inter, attrs, item_info=plain(info.reindex(items.ids)), extras=extras)


def _csv_ratings(path: Path) -> pd.DataFrame:
    frame = read_table(path, [("userId", "int"), ("movieId", "int"), ("rating", "float"), ("timestamp", "int")],
                       sep=",", header=True, what="ratings file (userId,movieId,rating,timestamp)")
    return frame.rename(columns={"userId": "user", "movieId": "item", "rating": "value"})


def load_movielens(path: str | Path, **options) -> Dataset:
    """Any MovieLens release from its unpacked folder (format detected from the file names)."""
    path = Path(path)
    if optional_file(path / "u.data"):
        return load_ml100k(path, **options)
    if optional_file(path / "ratings.dat"):
        return load_ml_dat(path, **options)
    if optional_file(path / "ratings.csv"):
        return load_ml_csv(path, **options)
    raise DataError("not a MovieLens folder: no u.data, ratings.dat or ratings.csv", path)

