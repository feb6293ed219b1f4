"""Last.fm loaders (HetRec 2011 Last.fm 2K, Last.fm 1K listening logs, Last.fm 360K play counts) and the
Celma & Herrera mapping of play counts to ratings.

Last.fm data is implicit: the values are play counts (`kind="implicit"`, no rating scale). Artists are the
items. `cdf_ratings` turns counts into ratings r = n_scale · F_u(f), F_u the user's empirical CDF of play
counts (METRICS.md §B.4, last paragraph; Vargas thesis §4.5.2).

Citations: I. Cantador, P. Brusilovsky, T. Kuflik (2011), "2nd Workshop on Information Heterogeneity and Fusion
in Recommender Systems (HetRec 2011)", RecSys 2011 (data: Last.fm, http://www.last.fm). O. Celma (2010),
"Music Recommendation and Discovery", Springer (Last.fm 1K and 360K).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.data._build import attribute_from_pairs, interactions_from_frame
from recdiv.data._read import check_ids, iter_tables, plain, read_table, resolve_duplicates
from recdiv.data._source import optional_file
from recdiv.data.datasets import FORMATS
from recdiv.data.interactions import Dataset, Interactions
from recdiv.data.vocab import Vocab
from recdiv.errors import DataError

DEFAULT_MIN_TAG_USERS = 2
LASTFM_1K_LOG = FORMATS.get("lastfm-1k").marker  # userid-timestamp-artid-artname-traid-traname.tsv
LASTFM_360K_PLAYS = FORMATS.get("lastfm-360k").marker  # usersha1-artmbid-artname-plays.tsv


def cdf_ratings(interactions: Interactions, n_scale: float = 5) -> Interactions:
    """Play counts -> ratings r(u,i) = n_scale · F_u(f_ui), F_u(f) = |{j ∈ P_u: f_uj ≤ f}| / |P_u|.

    Per-user empirical CDF of the user's play counts (ties share the larger value), so every rating lies
    in (0, n_scale] and each user's most played artist gets n_scale. METRICS.md §B.4 (thesis §4.5.2);
    n_scale = 5 is recdiv's choice (not stated in the thesis). Returns explicit interactions, scale (0, n_scale).
    """
    m = interactions.matrix
    u = interactions.user_index
    f = m.data
    order = np.lexsort((f, u))
    us, fs = u[order], f[order]
    n = len(fs)
    # last position of each run of equal (user, count) in sorted order = number of counts ≤ f in the row
    last = np.ones(n, dtype=bool)
    if n > 1:
        last[:-1] = (us[1:] != us[:-1]) | (fs[1:] != fs[:-1])
    run_end = np.flatnonzero(last)
    end_of = run_end[np.searchsorted(run_end, np.arange(n))]
    row_start = m.indptr[us]
    n_u = np.diff(m.indptr)[us]
    r = np.empty(n)
    r[order] = n_scale * (end_of - row_start + 1) / n_u
    return interactions.with_values(r, kind="explicit", scale=(0.0, float(n_scale)))


def _counts_to_ratings(inter: Interactions, ratings: str | None, n_scale: float) -> Interactions:
    if ratings is None:
        return inter
    if ratings != "cdf":
        raise DataError(f"unknown ratings mapping {ratings!r}: use None (play counts) or 'cdf'")
    return cdf_ratings(inter, n_scale)


# HetRec 2011 Last.fm 2K -----------------------------------------------------------------------------------
def load_hetrec_lastfm(
    path: str | Path,
    *,
    min_tag_users: int = DEFAULT_MIN_TAG_USERS,
    ratings: str | None = None,
    n_scale: float = 5,
    duplicates: str = "error",
) -> Dataset:
    """HetRec 2011 Last.fm 2K from its unpacked folder.

    Interactions: `user_artists.dat` play counts (implicit; `ratings="cdf"` maps them with `cdf_ratings`).
    Items: every artist of `artists.dat` (∪ listened ones). attributes["tags"]: artists × tags, keeping a tag
    on an artist when at least `min_tag_users` distinct users applied it (default 2: one user's personal tag
    is not an aspect of the artist); weight = number of users. Tag assignments on artistIDs missing from
    `artists.dat` (390 artists in the original) are not items and are dropped, and counted in
    extras["source_counts"] with the raw file counts. extras["friends"]: symmetric users × users CSR (bool);
    extras["tag_assignments"]: the raw (user, item, tag, day, month, year) rows.
    """
    path = Path(path)
    plays = read_table(path / "user_artists.dat", [("userID", "int"), ("artistID", "int"), ("weight", "float")],
                       header=True, what="play-count file (userID artistID weight)")
    plays = resolve_duplicates(plays.rename(columns={"userID": "user", "artistID": "item", "weight": "value"}),
                               ["user", "item"], "value", duplicates)
    if (plays["value"] < 0).any():
        j = int(np.flatnonzero(plays["value"].to_numpy() < 0)[0])
        raise DataError(f"play count must be ≥ 0, got {plays['value'].iloc[j]:g}", path / "user_artists.dat",
                        int(plays.attrs["lineno"][j]))
    artists = read_table(path / "artists.dat", [("id", "int"), ("name", "str?"), ("url", "str?"),
                                                ("pictureURL", "str?")],
                         header=True, what="artist file (id name url pictureURL)")
    resolve_duplicates(artists, ["id"], None, "error", what="artist id")
    tags = read_table(path / "tags.dat", [("tagID", "int"), ("tagValue", "str?")], header=True, encoding="latin-1",
                      what="tag file (tagID tagValue)")
    resolve_duplicates(tags, ["tagID"], None, "error", what="tag id")
    assigned = read_table(path / "user_taggedartists.dat",
                          [("userID", "int"), ("artistID", "int"), ("tagID", "int"), ("day", "int"), ("month", "int"),
                           ("year", "int")],
                          header=True, what="tag-assignment file (userID artistID tagID day month year)")
    friends = None
    if optional_file(path / "user_friends.dat"):
        friends = read_table(path / "user_friends.dat", [("userID", "int"), ("friendID", "int")], header=True,
                             what="friend file (userID friendID)")
    user_cols = [plays["user"], assigned["userID"]] + ([] if friends is None else [friends["userID"],
                                                                                     friends["friendID"]])
    users = Vocab.from_values(*user_cols)
    items = Vocab.from_values(plays["item"], artists["id"])
    inter = interactions_from_frame(plays, users, items, kind="implicit")
    inter = _counts_to_ratings(inter, ratings, n_scale)

    unknown_tag = ~assigned["tagID"].isin(tags["tagID"])
    if unknown_tag.any():
        j = int(np.flatnonzero(unknown_tag.to_numpy())[0])
        raise DataError(f"tagID {assigned['tagID'].iloc[j]} is not in tags.dat", path / "user_taggedartists.dat",
                        int(assigned.attrs["lineno"][j]))
    known = assigned["artistID"].isin(items.index).to_numpy()
    pairs = assigned.loc[known].groupby(["artistID", "tagID"])["userID"].nunique().reset_index(name="n_users")
    pairs = pairs[pairs["n_users"] >= min_tag_users]
    tag_names = tags.set_index("tagID")["tagValue"]
    kept = np.unique(pairs["tagID"].to_numpy())
    names = Vocab(tag_names.loc[kept].to_numpy()) if tag_names.is_unique else Vocab(kept)
    labels = tag_names.loc[pairs["tagID"]].to_numpy() if tag_names.is_unique else pairs["tagID"].to_numpy()
    tag_attr = attribute_from_pairs(items.lookup(pairs["artistID"].to_numpy()), labels, len(items),
                                    pairs["n_users"].to_numpy(np.float64), names=names)

    extras: dict[str, object] = {
        "source": str(path),
        "min_tag_users": min_tag_users,
        "source_counts": {
            "tags": len(tags),
            "tag_assignments": len(assigned),
            "tags_used": int(assigned["tagID"].nunique()),
            "tagged_artists": int(assigned["artistID"].nunique()),
            "tagged_artists_not_in_artists_dat": int(assigned.loc[~known, "artistID"].nunique()),
            "tag_assignments_dropped": int((~known).sum()),
            "tag_artist_pairs_kept": len(pairs),
            "friend_pairs": 0 if friends is None else len(friends),
        },
        "tag_assignments": plain(assigned.rename(columns={"userID": "user", "artistID": "item",
                                                          "tagID": "tag"}).reset_index(drop=True)),
    }
    if friends is not None:
        fu, fv = users.lookup(friends["userID"].to_numpy()), users.lookup(friends["friendID"].to_numpy())
        f = sp.csr_matrix((np.ones(len(fu), dtype=bool), (fu, fv)), shape=(len(users), len(users)))
        extras["friends"] = (f + f.T).astype(bool).tocsr()
    item_info = plain(artists.set_index("id")[["name", "url", "pictureURL"]].reindex(items.ids))
    return Dataset("hetrec2011-lastfm-2k", inter, {"tags": tag_attr}, item_info=item_info, extras=extras)


# Last.fm 1K (listening log) ---------------------------------------------------------------------------------
def _artist_key(mbid: pd.Series, name: pd.Series) -> pd.Series:
    """Artist id: the MusicBrainz id, or `name:<artist name>` when the log has none."""
    return mbid.where(mbid != "", "name:" + name)


def load_lastfm_1k(
    path: str | Path, *, ratings: str | None = None, n_scale: float = 5, block: int = 64 << 20
) -> Dataset:
    """Last.fm 1K (Celma) from its folder: `userid-timestamp-artid-artname-traid-traname.tsv` (+ profile).

    Artists are the items (MusicBrainz id, or `name:<artist>` when missing); value = number of plays of the
    artist by the user; timestamp = the user's first play of the artist (Unix seconds, UTC). The 2.4 GB log is
    read and aggregated in blocks of `block` bytes, so memory stays bounded. item_info: artist name.
    """
    path = Path(path)
    log = path / LASTFM_1K_LOG if path.is_dir() else path
    layout = [("user", "id"), ("time", "str"), ("artid", "str?"), ("artname", "str?"), ("traid", "skip"),
              ("traname", "skip")]
    parts = []
    names = {}
    n_events = 0
    for table in iter_tables(log, layout, block=block, what="listening log (user timestamp artid artname traid "
                                                                 "traname)"):
        ts = pd.to_datetime(pd.Series(table["time"]), format="%Y-%m-%dT%H:%M:%SZ", errors="coerce", utc=True)
        bad = ts.isna().to_numpy() | ((table["artid"] == "") & (table["artname"] == ""))
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise table.error(f"bad listening event (user {table['user'].values()[j]!r}, time {table['time'][j]!r}, "
                              f"artist {table['artname'][j]!r})", j)
        key = _artist_key(pd.Series(table["artid"]), pd.Series(table["artname"]))
        check_ids(key.to_numpy(), "artist", table)
        frame = pd.DataFrame({"user": table["user"].values(), "item": key.to_numpy(),
                              "t": ts.astype("int64").to_numpy() // 10**9})
        first = ~key.duplicated().to_numpy()
        names.update(zip(key.to_numpy()[first], table["artname"][first]))
        parts.append(frame.groupby(["user", "item"], sort=False)["t"].agg(["size", "min"]))
        n_events += len(table)
    if not parts:
        raise DataError("empty listening log: no data lines", log)
    agg = pd.concat(parts).groupby(level=[0, 1]).agg({"size": "sum", "min": "min"}).reset_index()
    agg = agg.rename(columns={"size": "value", "min": "timestamp"})
    user_info = None
    prof = path / "userid-profile.tsv" if path.is_dir() else None
    users = Vocab.from_values(agg["user"])
    if prof is not None and optional_file(prof):
        ptab = read_table(prof, [("#id", "str"), ("gender", "str?"), ("age", "str?"), ("country", "str?"),
                                 ("registered", "str?")], header=True, what="profile file (#id gender age country "
                                                                            "registered)")
        user_info = plain(ptab.rename(columns={"#id": "user"}).set_index("user").reindex(users.ids))
    items = Vocab.from_values(agg["item"])
    inter = interactions_from_frame(agg, users, items, kind="implicit")
    inter = _counts_to_ratings(inter, ratings, n_scale)
    item_info = pd.DataFrame({"name": pd.Series(names).reindex(items.ids).to_numpy()}, index=items.index)
    return Dataset("lastfm-1k", inter, {}, item_info=item_info, user_info=user_info,
                   extras={"source": str(path), "source_counts": {"listening_events": n_events}})


# Last.fm 360K (play counts) ----------------------------------------------------------------------------------
def load_lastfm_360k(
    path: str | Path, *, ratings: str | None = None, n_scale: float = 5, duplicates: str = "sum"
) -> Dataset:
    """Last.fm 360K (Celma) from its folder: `usersha1-artmbid-artname-plays.tsv` (+ `usersha1-profile.tsv`).

    Artists are the items (MusicBrainz id, or `name:<artist>` when missing); value = play count. The file
    repeats some (user, artist) pairs under different spellings of the artist name, so duplicates are summed
    by default (`duplicates="error"` to reject them). item_info: artist name (first spelling seen).
    """
    path = Path(path)
    f = path / LASTFM_360K_PLAYS if path.is_dir() else path
    frame = read_table(f, [("user", "id"), ("artid", "str?"), ("artname", "str?"), ("value", "float")],
                       what="play-count file (usersha1 artmbid artname plays)")
    if ((frame["artid"] == "") & (frame["artname"] == "")).any():
        j = int(np.flatnonzero(((frame["artid"] == "") & (frame["artname"] == "")).to_numpy())[0])
        raise DataError("artist has neither a MusicBrainz id nor a name", f, int(frame.attrs["lineno"][j]))
    if (frame["value"] < 0).any():
        j = int(np.flatnonzero(frame["value"].to_numpy() < 0)[0])
        raise DataError(f"play count must be ≥ 0, got {frame['value'].iloc[j]:g}", f, int(frame.attrs["lineno"][j]))
    frame["item"] = _artist_key(frame["artid"], frame["artname"])
    check_ids(frame["item"].to_numpy(), "artist", frame)
    names = frame.drop_duplicates("item").set_index("item")["artname"]
    n_rows = len(frame)
    frame = resolve_duplicates(frame[["user", "item", "value"]], ["user", "item"],
                               "value", duplicates)
    users = Vocab.from_values(frame["user"])
    items = Vocab.from_values(frame["item"])
    inter = _counts_to_ratings(interactions_from_frame(frame, users, items, kind="implicit"), ratings, n_scale)
    user_info = None
    prof = path / "usersha1-profile.tsv" if path.is_dir() else None
    if prof is not None and optional_file(prof):
        ptab = read_table(prof, [("user", "str"), ("gender", "str?"), ("age", "str?"), ("country", "str?"),
                                 ("signup", "str?")], what="profile file (usersha1 gender age country signup)")
        user_info = plain(ptab.drop_duplicates("user").set_index("user").reindex(users.ids))
    item_info = pd.DataFrame({"name": names.reindex(items.ids).to_numpy()}, index=items.index)
    return Dataset("lastfm-360k", inter, {}, item_info=item_info, user_info=user_info,
                   extras={"source": str(path), "source_counts": {"rows": n_rows}})
