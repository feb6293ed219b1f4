"""Last.fm loaders: HetRec 2K (exact published counts), 1K and 360K formats on small files, CDF ratings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv import DataError
from recdiv.data import Interactions, Vocab
from recdiv.data.lastfm import (
    DEFAULT_MIN_TAG_USERS,
    cdf_ratings,
    load_hetrec_lastfm,
    load_lastfm_1k,
    load_lastfm_360k,
)


@pytest.fixture(scope="module")
def hetrec(lastfm_dir):
    return load_hetrec_lastfm(lastfm_dir)


@pytest.mark.realdata
def test_hetrec_counts(hetrec):
    it = hetrec.interactions
    assert (it.n_users, it.n_items, it.nnz) == (1892, 17_632, 92_834)
    assert it.kind == "implicit" and it.scale is None
    assert it.values.min() == 1 and it.values.max() == 352_698
    c = hetrec.extras["source_counts"]
    assert c["tags"] == 11_946 and c["tag_assignments"] == 186_479
    assert c["tags_used"] == 9_749 and c["tagged_artists"] == 12_523
    assert c["tagged_artists_not_in_artists_dat"] == 390
    assert len(hetrec.extras["tag_assignments"]) == 186_479


@pytest.mark.realdata
def test_hetrec_tags_attribute_matches_independent_count(hetrec, lastfm_dir):
    ta = pd.read_csv(lastfm_dir / "user_taggedartists.dat", sep="\t")
    artists = pd.read_csv(lastfm_dir / "artists.dat", sep="\t", usecols=[0])
    ta = ta[ta.artistID.isin(artists.id)]
    per_pair = ta.groupby(["artistID", "tagID"]).userID.nunique()
    kept = per_pair[per_pair >= DEFAULT_MIN_TAG_USERS]
    tags = hetrec.attributes["tags"]
    assert tags.matrix.nnz == len(kept) and tags.n_values == kept.index.get_level_values(1).nunique()
    assert tags.matrix.sum() == kept.sum()
    # one pair checked by name: the weight is the number of distinct users
    (artist, tag_id), n = next(iter(kept.items()))
    names = pd.read_csv(lastfm_dir / "tags.dat", sep="\t", encoding="latin-1").set_index("tagID").tagValue
    row = hetrec.items.lookup([artist])[0]
    col = tags.names.lookup([names[tag_id]])[0]
    assert tags.matrix[row, col] == n


@pytest.mark.realdata
def test_hetrec_friends_symmetric_and_min_tag_users_option(hetrec, lastfm_dir):
    f = hetrec.extras["friends"]
    assert f.shape == (1892, 1892) and f.nnz == 25_434 and (f != f.T).nnz == 0
    all_tags = load_hetrec_lastfm(lastfm_dir, min_tag_users=1)
    assert all_tags.attributes["tags"].n_values == 9_718  # tags used on artists of artists.dat
    assert all_tags.attributes["tags"].matrix.nnz == 108_437


@pytest.mark.realdata
def test_hetrec_cdf_ratings(lastfm_dir, hetrec):
    ds = load_hetrec_lastfm(lastfm_dir, ratings="cdf")
    r = ds.interactions
    assert r.kind == "explicit" and r.scale == (0.0, 5.0)
    assert r.values.min() > 0 and r.values.max() == 5
    # every user's most played artist gets 5
    top = hetrec.interactions.matrix.argmax(axis=1).A1
    np.testing.assert_allclose(r.matrix.toarray()[np.arange(r.n_users), top], 5.0)


def test_cdf_ratings_worked_example():
    """F_u(f) = |{j: f_uj ≤ f}| / |P_u|; r = 5 F_u."""
    it = Interactions.from_arrays(np.array([0, 0, 0, 0, 1]), np.array([0, 1, 2, 3, 0]),
                                  np.array([10.0, 3.0, 10.0, 1.0, 7.0]), Vocab(["a", "b"]), Vocab([1, 2, 3, 4]),
                                  kind="implicit")
    r = cdf_ratings(it)
    # user a: counts 10, 3, 10, 1 -> F = 4/4, 2/4, 4/4, 1/4
    np.testing.assert_allclose(r.matrix.toarray(), [[5, 2.5, 5, 1.25], [5, 0, 0, 0]])
    np.testing.assert_allclose(cdf_ratings(it, n_scale=4).values, [4, 2, 4, 1, 4])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 9), st.integers(1, 6)), min_size=1, max_size=40,
                unique_by=lambda t: (t[0], t[1])))
def test_cdf_ratings_matches_per_user_definition(rows):
    u, i, f = (np.array(x) for x in zip(*rows))
    it = Interactions.from_arrays(u, i, f.astype(float), Vocab(range(5)), Vocab(range(10)), kind="implicit")
    got = cdf_ratings(it).matrix
    for uu, ii, ff in rows:
        mine = f[u == uu]
        assert got[uu, ii] == pytest.approx(5 * (mine <= ff).sum() / len(mine))


# Last.fm 1K and 360K formats on small files ------------------------------------------------------------
def test_lastfm_1k_aggregates_plays_per_artist(tmp_path):
    log = tmp_path / "userid-timestamp-artid-artname-traid-traname.tsv"
    log.write_text(
        "user_000001\t2009-05-04T23:08:57Z\tf1b1cf71-bd35-4e99-8624-24a6e15f133a\tDeep Dish\t\tFuck Me Im Famous\n"
        "user_000001\t2009-05-04T13:54:10Z\ta7f7df4a-77d8-4f12-8acd-5c60c93f4de8\t坂本龍一\t\tComposition 0919\n"
        "user_000001\t2009-05-03T15:48:25Z\tf1b1cf71-bd35-4e99-8624-24a6e15f133a\tDeep Dish\t\tOther\n"
        "user_000002\t2009-05-02T10:00:00Z\t\tUnknown \"Band\"\t\tSong\n", encoding="utf-8")
    (tmp_path / "userid-profile.tsv").write_text("#id\tgender\tage\tcountry\tregistered\n"
                                                 "user_000001\tm\t\tJapan\tAug 13, 2006\n")
    ds = load_lastfm_1k(tmp_path, block=200)
    it = ds.interactions
    assert it.kind == "implicit" and it.nnz == 3
    deep = it.items.lookup(["f1b1cf71-bd35-4e99-8624-24a6e15f133a"])[0]
    assert it.matrix[0, deep] == 2
    assert it.timestamps[it.item_index == deep][0] == pd.Timestamp("2009-05-03T15:48:25Z").value // 10**9
    assert 'name:Unknown "Band"' in it.items
    assert ds.item_info.loc[it.items.id_of(deep), "name"] == "Deep Dish"
    assert ds.user_info.loc["user_000001", "country"] == "Japan"
    assert ds.extras["source_counts"]["listening_events"] == 4


def test_lastfm_1k_bad_time(tmp_path):
    log = tmp_path / "userid-timestamp-artid-artname-traid-traname.tsv"
    log.write_text("u1\t2009-05-04T23:08:57Z\ta\tA\t\tt\nu1\tyesterday\ta\tA\t\tt\n")
    with pytest.raises(DataError) as e:
        load_lastfm_1k(tmp_path)
    assert e.value.line == 2 and "yesterday" in e.value.problem


def test_lastfm_360k_sums_duplicate_spellings(tmp_path):
    f = tmp_path / "usersha1-artmbid-artname-plays.tsv"
    user, mbid = "00000c289a1829a808ac09c00daf10bc3c4e223b", "3bd73256-3905-4f3a-97e2-8b341527f805"
    f.write_text(f"{user}\t{mbid}\tbetty blowtorch\t2137\n{user}\t{mbid}\tBetty Blowtorch\t3\n"
                 "00001411dc427966b17297bf4d69e7e193135d89\t\tsome band\t55\n")
    (tmp_path / "usersha1-profile.tsv").write_text("00000c289a1829a808ac09c00daf10bc3c4e223b\tf\t22\tGermany\t"
                                                   "Feb 1, 2007\n")
    ds = load_lastfm_360k(tmp_path)
    it = ds.interactions
    assert it.nnz == 2 and sorted(it.values.tolist()) == [55, 2140]
    assert "name:some band" in it.items
    assert ds.user_info.iloc[0]["country"] == "Germany"
    with pytest.raises(DataError, match="duplicate") as e:
        load_lastfm_360k(tmp_path, duplicates="error")
    assert e.value.line == 2
    cdf = load_lastfm_360k(tmp_path, ratings="cdf").interactions
    assert cdf.values.tolist() == [5.0, 5.0]


def test_hetrec_bad_inputs(tmp_path, lastfm_dir):
    d = tmp_path / "hetrec"
    d.mkdir()
    for name in ("artists.dat", "tags.dat", "user_friends.dat"):
        (d / name).write_bytes((lastfm_dir / name).read_bytes())
    (d / "user_taggedartists.dat").write_text("userID\tartistID\ttagID\tday\tmonth\tyear\r\n2\t52\t13\t1\t4\t2009\r\n")
    (d / "user_artists.dat").write_text("userID\tartistID\tweight\r\n2\t51\t13883\r\n2\t52\tmany\r\n")
    with pytest.raises(DataError) as e:
        load_hetrec_lastfm(d)
    assert e.value.line == 3 and "value must be a number" not in e.value.problem and "weight" in e.value.problem
    (d / "user_artists.dat").write_text("user\tartist\tweight\r\n2\t51\t13883\r\n")
    with pytest.raises(DataError, match="expected the header"):
        load_hetrec_lastfm(d)
    (d / "user_artists.dat").write_text("userID\tartistID\tweight\r\n2\t51\t13883\r\n")
    (d / "user_taggedartists.dat").write_text("userID\tartistID\ttagID\tday\tmonth\tyear\r\n2\t52\t999999\t1\t4\t"
                                              "2009\r\n")
    with pytest.raises(DataError) as e:
        load_hetrec_lastfm(d)
    assert e.value.line == 2 and "not in tags.dat" in e.value.problem
    with pytest.raises(DataError, match="unknown ratings mapping"):
        load_hetrec_lastfm(lastfm_dir, ratings="log")
