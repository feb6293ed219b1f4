"""Property-based fuzz of every reader (issue 19.7): valid files of every format, one mutation each.

A mutation either keeps the file's meaning (a BOM, CRLF line ends, blank lines, latin-1 for an ASCII file, a tab
for a space in TREC files, ...) -- then the reader's output must be identical to the unmutated file's -- or breaks
it (a field dropped or repeated, a number made NaN/inf/garbage, a control character, NUL or BOM in an id, a
separator swapped, the file cut after some fields, UTF-16 text, a duplicated record) -- then the reader must raise
one clean DataError whose message starts with the mutated file's path. Never another exception. Through the
command line (`recdiv rerank`), a refused input leaves no output file behind. RECDIV_FUZZ_EXAMPLES=5000 runs a
longer search than the suite's default.
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from recdiv.cli import main
from recdiv.data import lastfm, movielens, textio
from recdiv.data.interactions import Dataset
from recdiv.errors import DataError


@dataclass(frozen=True)
class FileSpec:
    """One file of a format: its text, separator ("ws": runs of spaces/tabs), header, encoding, the kinds of its
    fields ("n": number, "i": id, "t": free text, "-": ignored by the reader) and whether a repeated record is an
    error (False where repeats are data: play logs, summed play counts)."""

    name: str
    text: str
    sep: str
    kinds: str
    header: bool = False
    encoding: str = "utf-8"
    repeat_invalid: bool = True
    fields_mutable: bool = True


@dataclass(frozen=True)
class Format:
    name: str
    files: tuple[FileSpec, ...]
    load: object  # folder -> comparable output


def _frame(reader, file):
    return lambda d: reader(d / file).to_dict("list")


def _dataset(loader, **kw):
    def load(d: Path):
        ds: Dataset = loader(d, **kw)
        out = {"users": ds.users.ids.tolist(), "items": ds.items.ids.tolist(),
               "matrix": ds.interactions.matrix.toarray().tolist(),
               "timestamps": None if ds.interactions.timestamps is None else ds.interactions.timestamps.tolist(),
               "attributes": {k: (a.names.ids.tolist(), a.matrix.toarray().tolist()) for k, a in ds.attributes.items()},
               "item_info": None if ds.item_info is None else ds.item_info.astype(str).to_dict("list"),
               "user_info": None if ds.user_info is None else ds.user_info.astype(str).to_dict("list"),
               "counts": ds.extras.get("source_counts"),
               "splits": {k: (s.train.matrix.toarray().tolist(), s.test.matrix.toarray().tolist())
                          for k, s in ds.splits.items()}}
        return out
    return load


GENRES = "unknown|0\nAction|1\nDrama|2\n"
UITEM = ("1|Toy Story (1995)|01-Jan-1995||http://x/1|0|0|1\n2|GoldenEye (1995)|01-Jan-1995||http://x/2|0|1|0\n"
         "3|Heat (1995)|01-Jan-1995||http://x/3|0|1|1\n")
FORMATS = [
    Format("trec-run", (FileSpec("run", "u1 Q0 i9 1 0.75 sys\nu1 Q0 i2 2 0.5 sys\nu2 Q0 i9 1 3 sys\n", "ws",
                                 "i-inn-"),), _frame(textio.read_trec_run, "run")),
    Format("trec-qrels", (FileSpec("qrels", "u1 0 i9 4\nu1 0 i3 -1\nu2 0 i9 2.5\n", "ws", "i-in"),),
           _frame(textio.read_trec_qrels, "qrels")),
    Format("trec-qrels-3", (FileSpec("qrels", "u1 i9 4\nu1 i3 1\nu2 i9 2\n", "ws", "iin"),),
           _frame(textio.read_trec_qrels, "qrels")),
    Format("interactions", (FileSpec("i.tsv", "u1\ti9\t4\t100\nu2\ti9\t3.5\t200\nu2\ti1\t1\t300\n", "ws", "iinn"),),
           _frame(textio.read_interactions_tsv, "i.tsv")),
    Format("aspects", (FileSpec("a.tsv", "i9\tDrama\t1\ni2\tWar\t0.5\ni9\tWar\t2\n", "ws", "iin"),),
           _frame(textio.read_item_aspects_tsv, "a.tsv")),
    Format("ml-100k", (
        FileSpec("u.data", "1\t1\t5\t881250949\n1\t2\t3\t881250950\n2\t1\t4\t881250951\n2\t3\t1\t881250952\n", "\t",
                 "nnnn"),
        FileSpec("u.item", UITEM, "|", "nttttnnn", encoding="latin-1"),
        FileSpec("u.genre", GENRES, "|", "tn"),
        FileSpec("u.user", "1|24|M|technician|85711\n2|53|F|other|94043\n", "|", "nntt-", encoding="latin-1"),
        FileSpec("u1.base", "1\t1\t5\t881250949\n2\t1\t4\t881250951\n", "\t", "nnnn"),
        FileSpec("u1.test", "1\t2\t3\t881250950\n2\t3\t1\t881250952\n", "\t", "nnnn"),
    ), _dataset(movielens.load_ml100k)),
    Format("ml-1m", (
        FileSpec("ratings.dat", "1::10::5::978300760\n1::20::3::978302109\n2::10::4::978301968\n", "::", "nnnn"),
        FileSpec("movies.dat", "10::Heat (1995)::Action|Crime\n20::Up (2009)::Comedy\n30::Amélie (2001)::Romance\n",
                 "::", "ntt"),
        FileSpec("users.dat", "1::F::1::10::48067\n2::M::56::16::70072\n", "::", "ntnn-"),
    ), _dataset(movielens.load_ml_dat)),
    Format("ml-10m", (
        FileSpec("ratings.dat", "1::10::4.5::978300760\n2::10::0.5::978300761\n", "::", "nnnn"),
        FileSpec("movies.dat", "10::Heat (1995)::Action\n", "::", "ntt"),
        FileSpec("tags.dat", "1::10::Al Pacino::1188263867\n2::10::odd::tag::1188263868\n", "::", "nntn",
                 fields_mutable=False, repeat_invalid=False),
    ), _dataset(movielens.load_ml_dat)),
    Format("ml-csv", (
        FileSpec("ratings.csv", "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,0.5,964981247\n"
                 "7,1,5.0,964982224\n", ",", "nnnn", header=True),
        FileSpec("movies.csv", 'movieId,title,genres\n1,"Toy Story (1995)",Comedy|Drama\n3,Heat (1995),Action\n'
                 "4,Never Rated (2001),(no genres listed)\n", ",", "ntt", header=True),
        FileSpec("tags.csv", "userId,movieId,tag,timestamp\n1,1,funny,1445714994\n7,1,Funny,1445714996\n", ",",
                 "nntn", header=True, repeat_invalid=False),
        FileSpec("links.csv", "movieId,imdbId,tmdbId\n1,0114709,862\n3,0113277,949\n", ",", "n--", header=True),
    ), _dataset(movielens.load_ml_csv)),
    Format("hetrec", (
        FileSpec("user_artists.dat", "userID\tartistID\tweight\r\n2\t51\t13883\r\n2\t52\t11690\r\n3\t51\t7\r\n", "\t",
                 "nnn", header=True),
        FileSpec("artists.dat", "id\tname\turl\tpictureURL\r\n51\tDuran Duran\thttp://a/51\thttp://p/51\r\n"
                 "52\tMorcheeba\thttp://a/52\t\r\n", "\t", "nttt", header=True),
        FileSpec("tags.dat", "tagID\ttagValue\r\n1\tmetal\r\n2\tchillout\r\n", "\t", "nt", header=True,
                 encoding="latin-1"),
        FileSpec("user_taggedartists.dat", "userID\tartistID\ttagID\tday\tmonth\tyear\r\n2\t51\t1\t1\t4\t2009\r\n"
                 "3\t51\t1\t1\t4\t2009\r\n2\t52\t2\t1\t4\t2009\r\n", "\t", "nnnnnn", header=True,
                 repeat_invalid=False),
        FileSpec("user_friends.dat", "userID\tfriendID\r\n2\t3\r\n", "\t", "nn", header=True, repeat_invalid=False),
    ), _dataset(lastfm.load_hetrec_lastfm)),
    Format("lastfm-1k", (
        FileSpec(lastfm.LASTFM_1K_LOG, "user_1\t2009-05-04T23:08:57Z\tmb-1\tDeep Dish\t\tSong\n"
                 "user_1\t2009-05-03T15:48:25Z\tmb-1\tDeep Dish\t\tOther\n"
                 "user_2\t2009-05-02T10:00:00Z\t\tSome Band\t\tSong\n", "\t", "it--t-", repeat_invalid=False),
    ), _dataset(lastfm.load_lastfm_1k)),
    Format("lastfm-360k", (
        FileSpec(lastfm.LASTFM_360K_PLAYS, "u1\tmb-1\tbetty\t2137\nu1\tmb-2\tboop\t3\nu2\t\tsome band\t55\n", "\t",
                 "i--n", repeat_invalid=False),
    ), _dataset(lastfm.load_lastfm_360k)),
]

NUMBER_GARBAGE = ["nan", "inf", "-inf", "1e999", "NaN", "x", "0x1f", "1,5", "--1"]
ID_GARBAGE = ["\x00", "\x01", "\x1b", "\x7f", "\u0085", "\ufeff"]


def _write(folder: Path, spec: FileSpec, text: str | bytes) -> None:
    data = text if isinstance(text, bytes) else text.encode(spec.encoding)
    (folder / spec.name).write_bytes(data)


def _split(spec: FileSpec, line: str) -> list[str]:
    return line.split() if spec.sep == "ws" else line.split(spec.sep)


def _join(spec: FileSpec, fields: list[str]) -> str:
    return (" " if spec.sep == "ws" else spec.sep).join(fields)


def mutate(spec: FileSpec, kind: str, draw) -> tuple[str | bytes, bool]:
    """(mutated file content, whether it keeps the file's meaning)."""
    eol = "\r\n" if "\r\n" in spec.text else "\n"
    lines = spec.text[: -len(eol)].split(eol)
    first_data = 1 if spec.header else 0
    j = draw(st.integers(first_data, len(lines) - 1))
    fields = _split(spec, lines[j].rstrip("\r"))
    f = draw(st.integers(0, len(fields) - 1))

    def with_line(new: str) -> str:
        return eol.join([*lines[:j], new, *lines[j + 1:]]) + eol

    if kind == "bom":
        return b"\xef\xbb\xbf" + spec.text.encode(spec.encoding), True
    if kind == "crlf":
        return spec.text.replace("\r\n", "\n").replace("\n", "\r\n"), True
    if kind == "blank_lines":
        return eol.join([*lines[:j + 1], "", "", *lines[j + 1:]]) + eol, True
    if kind == "no_final_newline":
        return spec.text[: -len(eol)], True
    if kind == "latin1":
        if spec.encoding == "latin-1" or spec.text.isascii():
            return spec.text.encode("latin-1"), True
        return spec.text.encode("latin-1"), spec.name == "movies.dat"  # ML-1M metadata: UTF-8 or latin-1
    if kind == "utf16":
        return spec.text.encode(draw(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be"]))), False
    if kind == "tab_for_space" and spec.sep == "ws":
        return with_line(lines[j].replace(" ", "\t", 1)), True
    if kind == "repeat_record" and spec.repeat_invalid and j >= first_data:
        return eol.join([*lines[:j + 1], lines[j], *lines[j + 1:]]) + eol, False
    if not spec.fields_mutable:
        return spec.text, True
    if kind == "drop_field":
        return with_line(_join(spec, fields[:f] + fields[f + 1:])), False
    if kind == "repeat_field":
        return with_line(_join(spec, fields[:f + 1] + fields[f:])), False
    if kind == "truncate":  # the file cut inside its last line, after f >= 1 fields
        last = _split(spec, lines[-1].rstrip("\r"))
        keep = draw(st.integers(1, len(last) - 1))
        return eol.join([*lines[:-1], _join(spec, last[:keep])]), False
    if kind == "swap_separator" and spec.sep != "ws":  # one field fewer on that line
        other = draw(st.sampled_from([s for s in ("\t", " ", ",", ";", "|") if s != spec.sep]))
        return with_line(lines[j].replace(spec.sep, other, 1)), False
    numbers = [k for k, c in enumerate(spec.kinds) if c == "n"]
    ids = [k for k, c in enumerate(spec.kinds) if c in "ni"]
    if kind == "bad_number" and numbers and j >= first_data:
        k = draw(st.sampled_from(numbers))
        fields[k] = draw(st.sampled_from(NUMBER_GARBAGE))
        return with_line(_join(spec, fields)), False
    if kind == "bad_id" and ids and j >= first_data:
        k = draw(st.sampled_from(ids))
        pos = draw(st.integers(0, len(fields[k])))
        garbage = [g for g in ID_GARBAGE if spec.encoding == "utf-8" or g.encode(spec.encoding, "ignore")]
        fields[k] = fields[k][:pos] + draw(st.sampled_from(garbage)) + fields[k][pos:]
        new = with_line(_join(spec, fields))
        return new, new.startswith("\ufeff")  # a leading BOM is stripped
    return spec.text, True


MUTATIONS = ["bom", "crlf", "blank_lines", "no_final_newline", "latin1", "utf16", "tab_for_space", "repeat_record",
             "drop_field", "repeat_field", "truncate", "swap_separator", "bad_number", "bad_id"]


def _build(tmp: Path, fmt: Format, name: str) -> Path:
    d = tmp / name
    d.mkdir()
    for spec in fmt.files:
        _write(d, spec, spec.text)
    return d


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz-base")
    return {fmt.name: fmt.load(_build(tmp, fmt, fmt.name)) for fmt in FORMATS}


_counter = iter(range(10**9))


@settings(max_examples=int(os.environ.get("RECDIV_FUZZ_EXAMPLES", 400)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_reader_fuzz(tmp_path, expected, data):
    fmt = data.draw(st.sampled_from(FORMATS), label="format")
    spec = data.draw(st.sampled_from(fmt.files), label="file")
    kind = data.draw(st.sampled_from(MUTATIONS), label="mutation")
    text, same = mutate(spec, kind, data.draw)
    d = _build(tmp_path, fmt, f"case{next(_counter)}")
    _write(d, spec, text)
    try:
        got = fmt.load(d)
    except DataError as e:
        event(f"{kind}: refused")
        assert not same, f"{kind} keeps the meaning of {spec.name} but was refused: {e}"
        assert str(e).startswith(str(d / spec.name)), str(e)
        assert "\n" not in str(e)
        return
    event(f"{kind}: identical")
    assert same, f"{kind} broke {spec.name} but it was accepted: {text!r}"
    assert got == expected[fmt.name], f"{kind} changed what {spec.name} means"


# through the command line: no partial output file ------------------------------------------------------------------
RERANK_FILES = {"run": "u1 Q0 a 1 0.9 s\nu1 Q0 b 2 0.8 s\nu1 Q0 c 3 0.7 s\nu2 Q0 a 1 0.5 s\nu2 Q0 c 2 0.4 s\n",
                "aspects.tsv": "a\tx\nb\ty\nc\tx\nc\ty\n", "train.tsv": "u1\td\t5\nu2\tb\t3\nu2\td\t1\n"}
RERANK_SPECS = [FileSpec("run", RERANK_FILES["run"], "ws", "i-inn-"),
                FileSpec("aspects.tsv", RERANK_FILES["aspects.tsv"], "ws", "ii"),
                FileSpec("train.tsv", RERANK_FILES["train.tsv"], "ws", "iin")]


def _rerank(d: Path) -> tuple[int, bytes | None]:
    out = d / "out.run"
    with contextlib.redirect_stderr(io.StringIO()):
        rc = main(["rerank", str(d / "run"), "--method", "xQuAD", "--aspects", str(d / "aspects.tsv"), "--train",
                   str(d / "train.tsv"), "-k", "2", "-o", str(out)])
    files = sorted(p.name for p in d.iterdir())
    assert files == sorted([*RERANK_FILES, *(["out.run"] if out.exists() else [])]), files  # no temporary left
    return rc, out.read_bytes() if out.exists() else None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_rerank_fuzz_leaves_no_partial_output(tmp_path, data):
    base = tmp_path / f"base{next(_counter)}"
    base.mkdir()
    for name, text in RERANK_FILES.items():
        (base / name).write_text(text)
    rc0, want = _rerank(base)
    assert rc0 == 0 and want
    spec = data.draw(st.sampled_from(RERANK_SPECS))
    kind = data.draw(st.sampled_from(MUTATIONS))
    text, same = mutate(spec, kind, data.draw)
    d = tmp_path / f"case{next(_counter)}"
    d.mkdir()
    for name, t in RERANK_FILES.items():
        (d / name).write_text(t)
    _write(d, spec, text)
    rc, got = _rerank(d)
    if same:
        assert rc == 0 and got == want, kind
    else:
        assert rc == 2 and got is None, kind


def test_mutations_cover_every_format():
    assert {f.name for f in FORMATS} >= {"trec-run", "trec-qrels", "interactions", "aspects", "ml-100k", "ml-1m",
                                         "ml-10m", "ml-csv", "hetrec", "lastfm-1k", "lastfm-360k"}
    assert np.all([len(s.kinds) == len(_split(s, s.text.splitlines()[-1])) for f in FORMATS for s in f.files
                   if s.fields_mutable])
