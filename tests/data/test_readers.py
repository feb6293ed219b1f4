"""Strict readers (issue 19.1-2) and fast ones (issue 15.1): BOM, gzip, NUL and control characters, grades,
non-finite values, truncated or shifted lines in every dataset format, unreadable files; the line model
(blank and comment lines, whitespace runs, CRLF, old Mac line ends) and write -> read round trips."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recdiv.cli import main
from recdiv.data import lastfm, movielens, textio
from recdiv.data._read import parse_table
from recdiv.errors import DataError

RUN = "u1 Q0 i9 1 0.75 sys\nu1 Q0 i2 2 0.5 sys\nu2 Q0 i9 1 3 sys\n"
QRELS = "u1 0 i9 4\nu1 0 i3 -1\nu2 0 i9 2.5\n"
INTERACTIONS = "u1\ti9\t4\t100\nu2\ti9\t3.5\t200\n"
ASPECTS = "i9\tDrama\ni2\tWar\ni9\tWar\n"
TEXT_FORMATS = [(textio.read_trec_run, RUN), (textio.read_trec_qrels, QRELS),
                (textio.read_interactions_tsv, INTERACTIONS), (textio.read_item_aspects_tsv, ASPECTS)]


def _read(reader, path) -> pd.DataFrame:
    frame = reader(path)
    frame.attrs = {}
    return frame


def _error(reader, path) -> DataError:
    with pytest.raises(DataError) as e:
        reader(path)
    assert str(e.value).startswith(f"{path}"), str(e.value)
    return e.value


# byte-level equivalences: BOM, gzip, line ends, blank lines, whitespace runs, comments --------------------------
@pytest.mark.parametrize(("reader", "text"), TEXT_FORMATS)
def test_equivalent_spellings_read_identically(tmp_path, reader, text):
    plain = tmp_path / "plain"
    plain.write_text(text)
    want = _read(reader, plain)
    spelled = {
        "bom": b"\xef\xbb\xbf" + text.encode(),
        "gzip": gzip.compress(text.encode()),
        "crlf": text.replace("\n", "\r\n").encode(),
        "old-mac": text.replace("\n", "\r").encode(),
        "no-final-newline": text.rstrip("\n").encode(),
        "blank-and-comment-lines": ("# header comment\n\n" + text.replace("\n", "\n  \n", 1) + "   # x\n").encode(),
        "whitespace-runs": ("  " + text.replace("\t", " \t ").replace(" ", "   ").replace("\n", " \n")).encode(),
        "tabs": text.replace(" ", "\t").encode(),
    }
    for name, data in spelled.items():
        p = tmp_path / name
        p.write_bytes(data)
        pd.testing.assert_frame_equal(_read(reader, p), want, obj=name)


def test_line_numbers_count_blank_comment_and_header_lines(tmp_path):
    p = tmp_path / "run"
    p.write_text("# comment\n\nu1 Q0 a 1 0.5 t\n   \n  # indented comment\nu1 Q0 b 2 x t\n")
    assert _error(textio.read_trec_run, p).line == 6
    p.write_text("# comment\n\nu1 Q0 a 1 0.5 t\n\n\nu1 Q0 b 2 0.4 t\n")
    assert np.asarray(textio.read_trec_run(p).attrs["lineno"]).tolist() == [3, 6]
    p.write_text("u1 Q0 a 1 0.5 t\ru1 Q0 b 2 0.4 t\rbad\r")  # old Mac line ends count as lines
    assert _error(textio.read_trec_run, p).line == 3


def test_gzip_input_equals_plain_for_dataset_files(tmp_path, ml100k_dir):
    d = tmp_path / "ml-100k"
    d.mkdir()
    for f in ("u.genre", "u.item", "u.user"):
        (d / f).write_bytes((ml100k_dir / f).read_bytes())
    (d / "u.data").write_bytes(gzip.compress((ml100k_dir / "u.data").read_bytes()))
    got = movielens.load_ml100k(d, splits=False).interactions
    want = movielens.load_ml100k(ml100k_dir, splits=False).interactions
    assert (got.matrix != want.matrix).nnz == 0 and np.array_equal(got.timestamps, want.timestamps)


def test_bom_at_every_dataset_reader(tmp_path, ml100k_dir, lastfm_dir):
    """A UTF-8 BOM on the first file of every dataset format changes nothing."""
    for src, name, loader in ((ml100k_dir, "ml-100k", movielens.load_ml100k),
                              (lastfm_dir, "hetrec", lastfm.load_hetrec_lastfm)):
        d = tmp_path / name
        d.mkdir()
        for f in src.iterdir():
            if f.is_file():
                (d / f.name).write_bytes(b"\xef\xbb\xbf" + f.read_bytes())
        got, want = loader(d), loader(src)
        assert (got.interactions.matrix != want.interactions.matrix).nnz == 0
        for a in want.attributes:
            assert (got.attributes[a].matrix != want.attributes[a].matrix).nnz == 0


# strict values -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reader", "text", "line", "problem"),
    [
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu1 Q0 b\x00 2 0.4 t\n", 2, "NUL byte"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu1 Q0 b\x01c 2 0.4 t\n", 2, "control character (U+0001)"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu\x7f Q0 b 2 0.4 t\n", 2, "control character (U+007F)"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\n\ufeffu1 Q0 b 2 0.4 t\n", 2, "byte-order mark inside"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu1 Q0 b 2 inf t\n", 2, "score must be a finite number"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu1 Q0 b 2 nan t\n", 2, "score must be a finite number"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu1 Q0 b 2 1e999 t\n", 2, "score must be a finite number"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu1 Q0 b 2 0.4 \n", 2, "expected 6 columns"),
        (textio.read_trec_qrels, "u1 0 a 1\nu1 0 b inf\n", 2, "grade must be a finite number"),
        (textio.read_trec_qrels, "u1 0 a 1\nu1 0 b NaN\n", 2, "grade must be a finite number"),
        (textio.read_trec_qrels, "u1 0 a 1\nu1 0 b 1e300\n", 2, "between -127 and 127"),
        (textio.read_trec_qrels, "u1 0 a 1\n\nu1 0 b 128\n", 3, "got 128"),
        (textio.read_trec_qrels, "u1 0 a 1\nu1 0 b -128\n", 2, "between -127 and 127"),
        (textio.read_interactions_tsv, "u1 a 1\nu1 b inf\n", 2, "value must be a finite number"),
        (textio.read_item_aspects_tsv, "a x 1\nb y -inf\n", 2, "weight must be a finite number"),
        (textio.read_trec_qrels, "u1 0 a 1\nu1 0 b\xff 1\n", 2, "not valid utf-8"),
    ],
)
def test_strict_values(tmp_path, reader, text, line, problem):
    p = tmp_path / "f.txt"
    p.write_bytes(text.encode("utf-8", errors="surrogateescape") if "\xff" not in text else
                  text.encode("latin-1"))
    e = _error(reader, p)
    assert e.line == line and problem in e.problem, str(e)


@pytest.mark.parametrize(("line", "bad", "problem"), [(1, "u0 Q0 i0 1.5 0.5 t", "rank must be an integer, got 1.5"),
                                                     (70_001, "u7 Q0 i1 2 inf t", "score must be a finite number"),
                                                     (119_999, "u9 Q0 i9 3 1 t\nu9 Q0 i8 9e17 1 t",
                                                      "rank is too large an integer")])
def test_bad_numbers_deep_in_a_large_file_name_their_line(tmp_path, line, bad, problem):
    """Numbers are checked parser block by parser block (a 3 MB file has several): the error names the line."""
    lines = [f"u{j // 1000} Q0 i{j % 1000} {j % 1000 + 1} 0.5 t" for j in range(120_000)]
    lines[line - 1:line - 1 + bad.count("\n") + 1] = bad.split("\n")
    p = tmp_path / "run"
    p.write_text("\n".join(lines) + "\n")
    e = _error(textio.read_trec_run, p)
    assert e.line == line + bad.count("\n") and problem in e.problem, str(e)


def test_negative_grades_are_read_and_kept(tmp_path):
    p = tmp_path / "q"
    p.write_text("u1 0 a -1\nu1 0 b 127\nu1 0 c -127\n")
    assert textio.read_trec_qrels(p)["grade"].tolist() == [-1.0, 127.0, -127.0]


def test_utf16_and_binary_files(tmp_path):
    p = tmp_path / "q"
    p.write_bytes("u1 0 a 1\n".encode("utf-16"))
    assert "UTF-16" in _error(textio.read_trec_qrels, p).problem
    p.write_bytes("u1 0 a 1\n".encode("utf-16-le"))  # no byte-order mark: NUL bytes give it away
    assert "NUL byte" in _error(textio.read_trec_qrels, p).problem
    p.write_bytes(gzip.compress(b"u1 0 a 1\n")[:15])
    assert "not a valid gzip file" in _error(textio.read_trec_qrels, p).problem


# reader boundary: the operating system refuses the file --------------------------------------------------------
def test_unreadable_paths_are_clean_errors(tmp_path, monkeypatch):
    assert "is a directory" in _error(textio.read_trec_run, tmp_path).problem
    assert "file not found" in _error(textio.read_trec_run, tmp_path / "nope").problem
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert "symbolic links" in _error(textio.read_trec_run, loop).problem
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone")
    assert "file not found" in _error(textio.read_trec_run, dangling).problem
    locked = tmp_path / "locked"
    locked.write_text(RUN)
    locked.chmod(0)
    if os.access(locked, os.R_OK):  # root reads anything: simulate the refusal the OS gives everyone else
        real_open = open

        def refuse(path, *args, **kw):
            if Path(path) == locked:
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, *args, **kw)

        monkeypatch.setattr("builtins.open", refuse)
    assert "permission denied" in _error(textio.read_trec_run, locked).problem


def test_huge_field_is_read(tmp_path):
    """A 200 KB field (Python's csv module stops at 128 KB) is data like any other."""
    p = tmp_path / "movies.csv"
    title = "x" * 200_000
    p.write_text(f'movieId,title,genres\n1,"{title}",Drama\n2,Short,Comedy\n')
    frame = parse_table(p, [("movieId", "int"), ("title", "str?"), ("genres", "str?")], sep=",", header=True,
                        quoted=True).frame()
    assert frame["title"].str.len().tolist() == [200_000, 5]


# truncated or shifted lines in every dataset format -----------------------------------------------------------------
def _folder(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    d = tmp_path / "ds"
    d.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (d / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    return d


ML_CSV = {"ratings.csv": "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,0.5,964981247\n",
          "movies.csv": "movieId,title,genres\n1,Toy Story (1995),Comedy\n3,Heat (1995),Action\n",
          "tags.csv": "userId,movieId,tag,timestamp\n1,1,funny,1445714994\n"}
ML_DAT = {"ratings.dat": "1::10::5::978300760\n1::20::3::978302109\n",
          "movies.dat": "10::Heat (1995)::Action\n20::Up (2009)::Comedy\n",
          "users.dat": "1::F::1::10::48067\n"}
HETREC_FILES = ("user_artists.dat", "artists.dat", "tags.dat", "user_taggedartists.dat", "user_friends.dat")


@pytest.mark.parametrize(
    ("files", "name", "bad", "line", "problem"),
    [
        (ML_CSV, "movies.csv", "movieId,title,genres\n1,Toy Story (1995),Comedy\n3,Heat (1995)\n", 3, "found 2"),
        (ML_CSV, "movies.csv", "movieId,title,genres\n1,Toy,Comedy,x\n3,Heat,Action\n", 2, "found 4"),
        (ML_CSV, "tags.csv", "userId,movieId,tag,timestamp\n1,1,funny\n", 2, "found 3"),
        (ML_CSV, "ratings.csv", "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,inf,9\n", 3, "finite"),
        (ML_DAT, "movies.dat", "10::Heat (1995)::Action\n20::Up (2009)\n", 2, "found 2"),
        (ML_DAT, "users.dat", "1::F::1::10::48067\n2::M::56\n", 2, "found 3"),
        (ML_DAT, "ratings.dat", "1::10::5::978300760\n1::20::3::978302109::7\n", 2, "found 5"),
    ],
)
def test_truncated_or_shifted_lines_in_movielens_formats(tmp_path, files, name, bad, line, problem):
    d = _folder(tmp_path, {**files, name: bad})
    with pytest.raises(DataError) as e:
        movielens.load_movielens(d)
    assert e.value.path == str(d / name) and e.value.line == line and problem in e.value.problem, str(e.value)


def test_truncated_lines_in_ml100k_user_and_ml10m_tags(tmp_path, ml100k_dir):
    d = _folder(tmp_path, {f: (ml100k_dir / f).read_bytes() for f in ("u.data", "u.item", "u.genre")})
    (d / "u.user").write_text("1|24|M|technician|85711\n2|53|F|other\n")
    with pytest.raises(DataError) as e:
        movielens.load_ml100k(d, splits=False)
    assert e.value.line == 2 and "found 4" in e.value.problem
    d = _folder(tmp_path / "10m", {**ML_DAT, "ratings.dat": "1::10::4.5::978300760\n",
                                   "tags.dat": "1::10::Al Pacino::1188263867\n2::10::no timestamp\n"})
    with pytest.raises(DataError) as e:
        movielens.load_ml_dat(d)
    assert e.value.path == str(d / "tags.dat") and e.value.line == 2


@pytest.mark.parametrize(
    ("name", "edit", "problem"),
    [
        ("artists.dat", lambda t: t.replace("\thttp://www.last.fm/music/MALICE+MIZER\t", "\t", 1), "found 3"),
        ("tags.dat", lambda t: t.replace("1\tmetal\r\n", "1\r\n", 1), "found 1"),
        ("user_artists.dat", lambda t: t.replace("\t13883\r\n", "\tinf\r\n", 1), "finite"),
        ("user_taggedartists.dat", lambda t: t.replace("\t1\t4\t2009\r\n", "\t1\t4\r\n", 1), "found 5"),
    ],
)
def test_truncated_lines_in_hetrec_files(tmp_path, lastfm_dir, name, edit, problem):
    files = {f: (lastfm_dir / f).read_bytes() for f in HETREC_FILES}
    files[name] = edit(files[name].decode("latin-1")).encode("latin-1")
    assert files[name] != (lastfm_dir / name).read_bytes()
    d = _folder(tmp_path, files)
    with pytest.raises(DataError) as e:
        lastfm.load_hetrec_lastfm(d)
    assert e.value.path == str(d / name) and e.value.line is not None and problem in e.value.problem, str(e.value)


def test_lastfm_360k_extra_field_and_infinite_counts(tmp_path):
    user = "00000c289a1829a808ac09c00daf10bc3c4e223b"
    f = tmp_path / lastfm.LASTFM_360K_PLAYS
    f.write_text(f"{user}\tmbid1\tband one\t10\textra\n{user}\tmbid2\tband two\t3\textra\n")
    with pytest.raises(DataError) as e:
        lastfm.load_lastfm_360k(tmp_path)
    assert e.value.line == 1 and "found 5" in e.value.problem
    f.write_text(f"{user}\tmbid1\tband one\t10\n{user}\tmbid2\tband two\tinf\n")
    with pytest.raises(DataError) as e:
        lastfm.load_lastfm_360k(tmp_path)
    assert e.value.line == 2 and "finite" in e.value.problem


def test_lastfm_1k_empty_and_truncated_logs(tmp_path):
    log = tmp_path / lastfm.LASTFM_1K_LOG
    log.write_text("")
    with pytest.raises(DataError, match="empty listening log"):
        lastfm.load_lastfm_1k(tmp_path)
    log.write_text("\n\n")
    with pytest.raises(DataError, match="empty listening log"):
        lastfm.load_lastfm_1k(tmp_path)
    log.write_text("u1\t2009-05-04T23:08:57Z\ta\tA\t\tt\nu1\t2009-05-04T23:08:58Z\ta\tA\n")
    with pytest.raises(DataError) as e:
        lastfm.load_lastfm_1k(tmp_path)
    assert e.value.line == 2 and "found 4" in e.value.problem


def test_lastfm_1k_line_numbers_across_blocks(tmp_path):
    log = tmp_path / lastfm.LASTFM_1K_LOG
    good = "u1\t2009-05-04T23:08:57Z\ta\tA\t\tt\n"
    log.write_text(good * 40 + "u1\tsoon\ta\tA\t\tt\n")
    with pytest.raises(DataError) as e:
        lastfm.load_lastfm_1k(tmp_path, block=100)
    assert e.value.line == 41


# writers -------------------------------------------------------------------------------------------------------
def test_writer_refuses_ids_with_whitespace_and_leaves_no_file(tmp_path):
    frame = pd.DataFrame({"user": ["u1", "u1"], "item": ["name:Some Band", "b"], "rank": [1, 2], "score": [1.0, .5]})
    out = tmp_path / "run.txt"
    with pytest.raises(DataError) as e:
        textio.write_trec_run(frame, out)
    assert str(e.value).startswith(str(out)) and "'name:Some Band'" in e.value.problem
    assert list(tmp_path.iterdir()) == []


def test_recommend_on_ids_with_spaces_fails_cleanly(tmp_path, capsys):
    d = tmp_path / "spaces"
    d.mkdir()
    (d / "interactions.tsv").write_text("u1\ta b\t1\nu1\tc\t1\nu2\tc\t1\nu2\td\t1\n")
    # the interactions file itself cannot hold an id with a space: it reads as four fields
    rc = main(["recommend", "--dataset", str(d), "--split", "holdout:0.5", "--algo", "pop", "-o", str(tmp_path / "r")])
    assert rc == 2 and "columns like the first line" in capsys.readouterr().err
    f = tmp_path / lastfm.LASTFM_360K_PLAYS
    rows = [f"user{u}\t\tband {i}\t{u + i}" for u in range(6) for i in range(4)]
    f.write_text("\n".join(rows) + "\n")
    out = tmp_path / "run.txt"
    rc = main(["recommend", "--dataset", str(tmp_path), "--split", "holdout:0.5", "--algo", "pop", "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith(f"recdiv: error: {out}: cannot write item id 'name:band 0'"), err
    assert not out.exists()


def test_gzip_output(tmp_path):
    frame = textio.read_trec_run(_folder(tmp_path, {"run": RUN}) / "run")
    textio.write_trec_run(frame, tmp_path / "run.gz", tag="sys")
    assert gzip.decompress((tmp_path / "run.gz").read_bytes()).decode() == RUN.replace(" 3 sys", " 3 sys")
    pd.testing.assert_frame_equal(_read(textio.read_trec_run, tmp_path / "run.gz"), _read(textio.read_trec_run,
                                                                                          tmp_path / "ds" / "run"))


@pytest.mark.parametrize("values", [[3.0, 2.0, 1.0, 2.0], list(range(100, 0, -1)), [-0.0, 0.0, 1.0, -0.0],
                                    [1e17, 1e17 + 16, 2.0**53, -(2.0**53) + 1], [0.1, 1 / 3, -2.5, 0.1, 1e-300],
                                    [float("nan"), float("inf"), -float("inf"), 5.0, 5.0], [7.0]])
def test_numbers_are_written_as_each_value_formats(values):
    """The writers format each distinct number once (by its bits; whole ranges without a sort): every row gets the
    text of its own value, '%.17g' or the short form (integers without a decimal point, else repr)."""
    short = lambda x: str(int(x)) if np.isfinite(x) and x == np.round(x) else repr(x)  # noqa: E731
    for style, fmt in (("17g", "%.17g".__mod__), ("short", short)):
        labels, codes = textio._number_codes(np.array(values), style)
        assert [labels[c] for c in codes] == [fmt(v) for v in values]


# round trips ---------------------------------------------------------------------------------------------------
ids = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zs", "Zl", "Zp", "Cf")), min_size=1,
              max_size=6).filter(lambda s: s.strip() == s and not s.startswith("#") and s.isprintable())
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(ids, ids, finite), min_size=1, max_size=20, unique_by=lambda t: (t[0], t[1])),
       st.booleans())
def test_trec_run_round_trip(tmp_path, rows, gz):
    frame = pd.DataFrame(rows, columns=["user", "item", "score"]).assign(rank=np.arange(1, len(rows) + 1))
    p = tmp_path / ("run.gz" if gz else "run")
    textio.write_trec_run(frame, p, tag="t")
    back = textio.read_trec_run(p)
    assert back["user"].tolist() == frame["user"].tolist() and back["item"].tolist() == frame["item"].tolist()
    assert back["score"].tolist() == frame["score"].tolist() and back["rank"].tolist() == frame["rank"].tolist()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(ids, ids, st.floats(-127, 127)), min_size=1, max_size=20,
                unique_by=lambda t: (t[0], t[1])))
def test_trec_qrels_round_trip(tmp_path, rows):
    frame = pd.DataFrame(rows, columns=["user", "item", "grade"])
    textio.write_trec_qrels(frame, tmp_path / "q")
    back = textio.read_trec_qrels(tmp_path / "q")
    assert back[["user", "item"]].values.tolist() == frame[["user", "item"]].values.tolist()
    assert back["grade"].tolist() == frame["grade"].tolist()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(ids, ids, finite, st.integers(-2**53, 2**53)), min_size=1, max_size=20,
                unique_by=lambda t: (t[0], t[1])), st.booleans())
def test_interactions_round_trip(tmp_path, rows, with_time):
    frame = pd.DataFrame(rows, columns=["user", "item", "value", "timestamp"])
    if not with_time:
        frame = frame.drop(columns="timestamp")
    textio.write_interactions_tsv(frame, tmp_path / "i.tsv")
    back = textio.read_interactions_tsv(tmp_path / "i.tsv")
    back.attrs = {}
    pd.testing.assert_frame_equal(back, frame, check_dtype=False)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(ids, ids, finite), min_size=1, max_size=20, unique_by=lambda t: (t[0], t[1])))
def test_item_aspects_round_trip(tmp_path, rows):
    frame = pd.DataFrame(rows, columns=["item", "aspect", "weight"])
    textio.write_item_aspects_tsv(frame, tmp_path / "a.tsv")
    back = textio.read_item_aspects_tsv(tmp_path / "a.tsv")
    back.attrs = {}
    pd.testing.assert_frame_equal(back, frame)
