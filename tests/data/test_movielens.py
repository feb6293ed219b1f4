"""MovieLens loaders: real ML-100K and latest-small (exact published counts), ML-1M/10M/CSV formats on
small files written here, and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recdiv import DataError
from recdiv.data.movielens import load_ml100k, load_ml_csv, load_ml_dat, load_movielens

ML100K_GENRES = ["unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary",
                 "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller",
                 "War", "Western"]


@pytest.fixture(scope="module")
def ml100k(ml100k_dir):
    return load_ml100k(ml100k_dir)


@pytest.mark.realdata
def test_ml100k_counts(ml100k):
    it = ml100k.interactions
    assert (it.n_users, it.n_items, it.nnz) == (943, 1682, 100_000)
    assert it.scale == (1.0, 5.0) and it.kind == "explicit"
    np.testing.assert_array_equal(np.bincount(it.values.astype(int))[1:], [6110, 11370, 27145, 34174, 21201])
    assert it.user_counts().min() == 20 and it.user_counts().max() == 737
    assert it.users.ids[0] == 1 and it.users.ids[-1] == 943
    assert it.timestamps is not None and len(it.timestamps) == it.nnz


@pytest.mark.realdata
def test_ml100k_genres_and_info(ml100k):
    g = ml100k.attributes["genres"]
    assert g.names.ids.tolist() == ML100K_GENRES
    assert g.matrix.shape == (1682, 19)
    toy = ml100k.items.lookup([1])[0]  # Toy Story: Animation, Children's, Comedy
    assert set(g.names.id_of(g.matrix[toy].indices)) == {"Animation", "Children's", "Comedy"}
    unknown = ml100k.items.lookup([267])[0]
    assert g.names.id_of(g.matrix[unknown].indices).tolist() == ["unknown"]
    assert ml100k.item_info.loc[1, "title"] == "Toy Story (1995)"
    assert "Misérables" in " ".join(ml100k.item_info["title"])  # latin-1 decoded
    assert ml100k.user_info.loc[1].tolist() == [24, "M", "technician", "85711"]


@pytest.mark.realdata
def test_ml100k_provided_splits_partition_u_data(ml100k):
    assert list(ml100k.splits) == ["u1", "u2", "u3", "u4", "u5", "ua", "ub"]
    full = ml100k.interactions.matrix
    tests = []
    for name, s in ml100k.splits.items():
        assert s.train.users is ml100k.users and s.test.items is ml100k.items
        assert (s.train.matrix + s.test.matrix != full).nnz == 0  # .base + .test = u.data, values included
        assert s.train.matrix.multiply(s.test.matrix).nnz == 0
        if name.startswith("u") and name[1].isdigit():
            assert (s.train.nnz, s.test.nnz) == (80_000, 20_000)
            tests.append(s.test.matrix)
        else:
            assert (s.train.nnz, s.test.nnz) == (90_570, 9_430)
            assert (s.test.user_counts() == 10).all()
    assert (sum(tests) != full).nnz == 0  # the five u*.test are disjoint and cover u.data


@pytest.mark.realdata
def test_ml_latest_small(mlsmall_dir):
    ds = load_ml_csv(mlsmall_dir)
    it = ds.interactions
    assert (it.n_users, it.n_items, it.nnz) == (610, 9742, 100_836)
    assert int((it.item_counts() > 0).sum()) == 9724
    assert it.scale == (0.5, 5.0)
    vals, counts = np.unique(it.values, return_counts=True)
    assert vals.tolist() == [0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5]
    assert counts.tolist() == [1370, 2811, 1791, 7551, 5550, 20047, 13136, 26818, 8551, 13211]
    genres = ds.attributes["genres"]
    assert "(no genres listed)" not in genres.names and "IMAX" in genres.names and genres.n_values == 19
    assert ds.extras["source_counts"]["tag_applications"] == 3683
    assert ds.extras["source_counts"]["tagging_users"] == 58
    assert ds.item_info.loc[1, "title"] == "Toy Story (1995)" and ds.item_info.loc[1, "imdbId"] == "0114709"
    assert ds.attributes["tags"].matrix.shape[0] == 9742


# formats not in shared/data, on small files ---------------------------------------------------------------
def _write(folder, name, text, encoding="utf-8"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(text.encode(encoding))


def test_ml1m_format(tmp_path):
    d = tmp_path / "ml-1m"
    _write(d, "ratings.dat", "1::10::5::978300760\n1::20::3::978302109\n2::10::4::978301968\n")
    _write(d, "movies.dat", "10::Misérables, Les (1995)::Drama|Musical\n20::Toy Story (1995)::Animation\n"
                            "30::Unrated (1999)::Comedy\n", "latin-1")
    _write(d, "users.dat", "1::F::1::10::48067\n2::M::56::16::70072\n")
    ds = load_ml_dat(d)
    assert ds.name == "ml-1m" and ds.interactions.scale == (1.0, 5.0)
    assert ds.items.ids.tolist() == [10, 20, 30] and ds.interactions.nnz == 3
    assert ds.item_info.loc[10, "title"] == "Misérables, Les (1995)"
    g = ds.attributes["genres"]
    assert g.names.ids.tolist() == ["Animation", "Comedy", "Drama", "Musical"]
    np.testing.assert_array_equal(g.matrix.toarray(), [[0, 0, 1, 1], [1, 0, 0, 0], [0, 1, 0, 0]])
    assert ds.user_info.loc[2, "gender"] == "M"
    assert load_movielens(d).interactions.nnz == 3


def test_ml10m_format_with_tags(tmp_path):
    d = tmp_path / "ml-10M100K"
    _write(d, "ratings.dat", "1::10::4.5::978300760\n2::10::0.5::978300761\n2::20::3::978300762\n")
    _write(d, "movies.dat", "10::Heat (1995)::Action|Crime\n20::Up (2009)::(no genres listed)\n")
    _write(d, "tags.dat", "1::10::Al Pacino::1188263867\n2::10::al pacino ::1188263868\n"
                          "2::20::odd::tag::1188263869\n")
    ds = load_ml_dat(d)
    assert ds.name == "ml-10m" and ds.interactions.scale == (0.5, 5.0)
    assert ds.attributes["genres"].matrix[1].nnz == 0  # (no genres listed) is no genre
    tags = ds.attributes["tags"]
    assert tags.names.ids.tolist() == ["al pacino", "odd::tag"]
    np.testing.assert_array_equal(tags.matrix.toarray(), [[2, 0], [0, 1]])  # weight = distinct users
    assert ds.extras["source_counts"]["tag_applications"] == 3


def test_ml_csv_format_quoted_titles_and_unrated_movies(tmp_path):
    d = tmp_path / "ml-25m"
    _write(d, "ratings.csv", "userId,movieId,rating,timestamp\r\n1,1,4.0,964982703\r\n1,3,0.5,964981247\r\n"
                             "7,1,5.0,964982224\r\n")
    _write(d, "movies.csv", 'movieId,title,genres\r\n1,"American President, The (1995)",Comedy|Drama|Romance\r\n'
                            "3,Heat (1995),Action\r\n4,Never Rated (2001),(no genres listed)\r\n")
    _write(d, "tags.csv", 'userId,movieId,tag,timestamp\r\n1,1,"funny, smart",1445714994\r\n7,1,Funny,1445714996\r\n')
    ds = load_ml_csv(d)
    assert ds.name == "ml-25m" and ds.items.ids.tolist() == [1, 3, 4] and ds.users.ids.tolist() == [1, 7]
    assert ds.item_info.loc[1, "title"] == "American President, The (1995)"
    assert ds.attributes["tags"].names.ids.tolist() == ["funny", "funny, smart"]
    assert ds.interactions.matrix[0, 1] == 0.5


# bad input ---------------------------------------------------------------------------------------------------
ML100K_FILES = ("u.genre", "u.item")


@pytest.fixture
def ml100k_copy(tmp_path, ml100k_dir):
    d = tmp_path / "ml-100k"
    d.mkdir()
    for f in ML100K_FILES:
        (d / f).write_bytes((ml100k_dir / f).read_bytes())
    return d


@pytest.mark.parametrize(
    ("data", "line", "problem"),
    [
        ("1\t1\t5\t881250949\n1\t2\t3\n", 2, "expected 4 '\\t'-separated columns"),
        ("1\t1\t5\t881250949\n1\t2\t3\t88125\t7\n", 2, "expected 4 '\\t'-separated columns"),
        ("1\t1\t5\t881250949\n1\t2\tfive\t881250949\n", 2, "value must be a number, got 'five'"),
        ("1\t1\t5\t881250949\nx\t2\t3\t881250949\n", 2, "user must be an integer, got 'x'"),
        ("1\t1\t5\t881250949\n1\t2\t3\t8812.5\n", 2, "timestamp must be an integer"),
        ("1\t1\t5\t881250949\n1\t2\t3\t881250949\n1\t1\t2\t881250950\n", 3, "duplicate (user, item) pair"),
        ("1\t1\t5\t881250949\n1\t2\t6\t881250949\n", 2, "outside the rating scale"),
        ("1\t1\t5\t881250949\n\n1\t2\t4.5\t881250949\n", 3, "outside the rating scale"),
    ],
)
def test_ml100k_bad_ratings(ml100k_copy, data, line, problem):
    (ml100k_copy / "u.data").write_text(data)
    with pytest.raises(DataError) as e:
        load_ml100k(ml100k_copy)
    assert e.value.path == str(ml100k_copy / "u.data")
    assert e.value.line == line and problem in e.value.problem, str(e.value)


def test_ml100k_duplicates_policies(ml100k_copy):
    (ml100k_copy / "u.data").write_text("1\t1\t5\t100\n1\t2\t3\t100\n1\t1\t2\t300\n")
    with pytest.raises(DataError, match=r"first at line 1"):
        load_ml100k(ml100k_copy)
    last = load_ml100k(ml100k_copy, duplicates="last").interactions
    assert last.nnz == 2 and last.matrix[0, 0] == 2 and last.timestamps[0] == 300
    first = load_ml100k(ml100k_copy, duplicates="first").interactions
    assert first.matrix[0, 0] == 5 and first.timestamps[0] == 100
    mean = load_ml100k(ml100k_copy, duplicates="mean").interactions
    assert mean.matrix[0, 0] == 3.5 and mean.timestamps[0] == 300
    with pytest.raises(DataError, match="unknown duplicates policy"):
        load_ml100k(ml100k_copy, duplicates="max")


def test_ml100k_empty_and_missing_files(ml100k_copy):
    (ml100k_copy / "u.data").write_text("")
    with pytest.raises(DataError, match="empty ratings file"):
        load_ml100k(ml100k_copy)
    (ml100k_copy / "u.data").write_text("\n\n")
    with pytest.raises(DataError, match="empty ratings file"):
        load_ml100k(ml100k_copy)
    (ml100k_copy / "u.data").unlink()
    with pytest.raises(DataError, match="file not found"):
        load_ml100k(ml100k_copy)


def test_ml100k_bad_item_file(ml100k_copy):
    (ml100k_copy / "u.data").write_text("1\t1\t5\t881250949\n")
    lines = (ml100k_copy / "u.item").read_bytes().split(b"\n")
    lines[4] = lines[4].rsplit(b"|", 1)[0] + b"|2"
    (ml100k_copy / "u.item").write_bytes(b"\n".join(lines))
    with pytest.raises(DataError) as e:
        load_ml100k(ml100k_copy)
    assert e.value.line == 5 and "must be 0 or 1" in e.value.problem
    lines[4] = b"5|Copycat (1995)|01-Jan-1995"
    (ml100k_copy / "u.item").write_bytes(b"\n".join(lines))
    with pytest.raises(DataError) as e:
        load_ml100k(ml100k_copy)
    assert e.value.line == 5 and "expected 24 '|'-separated columns" in e.value.problem


def test_csv_wrong_encoding_and_header(tmp_path):
    d = tmp_path / "ml-latest"
    _write(d, "ratings.csv", "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n")
    _write(d, "movies.csv", "movieId,title,genres\n1,Toy,Comedy\n2,Am\xe9lie (2001),Romance\n", "latin-1")
    with pytest.raises(DataError) as e:
        load_ml_csv(d)
    assert e.value.line == 3 and "not valid utf-8" in e.value.problem
    _write(d, "ratings.csv", "user,movie,rating,timestamp\n1,1,4.0,964982703\n")
    with pytest.raises(DataError) as e:
        load_ml_csv(d)
    assert e.value.line == 1 and "expected the header" in e.value.problem


def test_dat_wrong_columns(tmp_path):
    d = tmp_path / "ml-1m"
    _write(d, "ratings.dat", "1::10::5::978300760\n1::20::3\n")
    _write(d, "movies.dat", "10::A::Drama\n")
    with pytest.raises(DataError) as e:
        load_ml_dat(d)
    assert e.value.line == 2 and "expected 4 '::'-separated columns" in e.value.problem


def test_not_a_movielens_folder(tmp_path):
    with pytest.raises(DataError, match="not a MovieLens folder"):
        load_movielens(tmp_path)


def test_ml100k_frame_outputs_have_no_parser_attrs(ml100k):
    assert ml100k.item_info.attrs == {} and ml100k.user_info.attrs == {}
    pd.concat([ml100k.item_info, ml100k.item_info])  # pandas can combine them
