"""load_dataset, dataset_stats, `recdiv data info` and `recdiv data fetch` (offline: file:// URLs and a
monkeypatched opener)."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recdiv import ConfigError, DataError
from recdiv.cli import main
from recdiv.data import fetch as fetch_mod
from recdiv.data.load import detect_format, load_dataset
from recdiv.data.stats import dataset_stats
from recdiv.data.synthetic import generate
from recdiv.models.concentration import gini


def test_gini_worked_example():
    """METRICS.md §B.9 example: counts a=3, b=2, c=1 over a catalog of 5 items -> G = 0.6667."""
    assert gini(np.array([3, 2, 1, 0, 0])) == pytest.approx(2 / 3)
    assert gini(np.ones(7)) == pytest.approx(0, abs=1e-12) and gini(np.array([0, 0, 5])) == pytest.approx(1.0)
    assert gini(np.zeros(3)) == 0


def test_stats_keys_on_synthetic():
    s = dataset_stats(generate("tiny"))
    for key in ("users", "items", "interactions", "density", "gini", "rating_scale", "aspects"):
        assert key in s
    assert (s["users"], s["items"], s["interactions"]) == (40, 120, 1200)
    assert s["density"] == pytest.approx(0.25) and s["rating_scale"] == [1.0, 5.0]
    assert s["aspects"] == {"genres": 18}


@pytest.mark.realdata
def test_load_dataset_by_name_path_and_alias(data_root):
    a = load_dataset("ml-100k", data_dir=data_root, splits=False)
    b = load_dataset(data_root / "ml-100k", splits=False)
    c = load_dataset("ml100k", data_root, splits=False)
    assert a.interactions.nnz == b.interactions.nnz == c.interactions.nnz == 100_000
    assert not a.splits and a.name == c.name == "ml-100k"
    assert detect_format(data_root / "hetrec2011-lastfm-2k") == "hetrec-lastfm"
    h = load_dataset("lastfm-2k", data_root, min_tag_users=5)
    assert h.attributes["tags"].n_values == 312
    assert detect_format(data_root / "ml-latest-small") == "movielens-csv"
    with pytest.raises(ConfigError, match="option not understood"):
        load_dataset("ml-100k", data_root, min_tag_users=2)


def test_load_dataset_synthetic_and_unknown(tmp_path):
    assert load_dataset("synthetic").interactions.nnz == 60_000
    ds = load_dataset("synthetic:tiny", seed=2)
    assert ds.name == "synthetic:tiny:seed=2"
    with pytest.raises(DataError, match="unknown dataset format"):
        load_dataset(tmp_path)
    with pytest.raises(DataError, match="no dataset 'nope'"):
        load_dataset("nope", data_dir=tmp_path)


def test_load_recdiv_tsv_folder(tmp_path):
    (tmp_path / "interactions.tsv").write_text("u1\ti1\t4\t10\nu1\ti2\t2\t11\nu2\ti1\t5\t12\n")
    (tmp_path / "genres.aspects.tsv").write_text("i1\tDrama\ni2\tComedy\ni3\tDrama\n")
    ds = load_dataset(tmp_path)
    assert ds.interactions.nnz == 3 and ds.items.ids.tolist() == ["i1", "i2", "i3"]
    assert ds.interactions.scale == (2.0, 5.0)
    assert ds.attributes["genres"].matrix.toarray().tolist() == [[0, 1], [1, 0], [0, 1]]


# CLI ---------------------------------------------------------------------------------------------------------
@pytest.mark.realdata
def test_cli_info_json_ml100k(ml100k_dir, capsys):
    assert main(["data", "info", str(ml100k_dir), "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert (s["users"], s["items"], s["interactions"]) == (943, 1682, 100_000)
    assert s["density"] == pytest.approx(100_000 / (943 * 1682))
    assert s["rating_scale"] == [1.0, 5.0] and s["aspects"] == {"genres": 19}
    items = pd.read_csv(ml100k_dir / "u.data", sep="\t", header=None)[1].to_numpy()
    counts = np.bincount(items, minlength=1683)[1:]
    assert s["gini"] == pytest.approx(gini(counts))


@pytest.mark.realdata
def test_cli_info_table_hetrec(data_root, capsys):
    assert main(["data", "info", "hetrec2011-lastfm-2k", "--data-dir", str(data_root)]) == 0
    out = capsys.readouterr().out
    assert "17,632" in out and "92,834" in out and "186,479" in out and "implicit" in out


def test_cli_info_bad_input_one_line_exit_2(tmp_path, capsys):
    d = tmp_path / "ml"
    d.mkdir()
    (d / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,2,abc,964982703\n")
    (d / "movies.csv").write_text("movieId,title,genres\n1,A,Drama\n")
    assert main(["data", "info", str(d)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"recdiv: error: {d / 'ratings.csv'}:3: rating must be a number, got 'abc'"]


def test_cli_data_without_subcommand(capsys):
    assert main(["data"]) == 2


# fetch -------------------------------------------------------------------------------------------------------
def _zip(files: dict[str, bytes], top: str | None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(f"{top}/{name}" if top else name, data)
    return buf.getvalue()


@pytest.fixture
def fake_source(monkeypatch, tmp_path):
    """ml-1m pointing at a local zip (file:// URL); returns (archive path, its sha256)."""
    archive = tmp_path / "src" / "ml-1m.zip"
    archive.parent.mkdir()
    archive.write_bytes(_zip({"ratings.dat": b"1::10::5::978300760\n", "movies.dat": b"10::A (1995)::Drama\n"},
                             "ml-1m"))
    src = fetch_mod.SOURCES["ml-1m"]
    monkeypatch.setitem(fetch_mod.SOURCES, "ml-1m", fetch_mod.Source(archive.as_uri(), src.folder, src.terms))
    return archive, hashlib.sha256(archive.read_bytes()).hexdigest()


def test_fetch_file_url_unknown_checksum_printed(fake_source, tmp_path, capsys):
    _, digest = fake_source
    dest = tmp_path / "data"
    assert main(["data", "fetch", "ml-1m", "--dir", str(dest)]) == 0
    out = capsys.readouterr().out
    assert digest in out and "no verified checksum" in out and "Terms of use" in out and "Harper" in out
    assert load_dataset(dest / "ml-1m").interactions.nnz == 1
    assert sorted(p.name for p in dest.iterdir()) == ["ml-1m"]  # no temporary files left
    assert main(["data", "fetch", "ml-1m", "--dir", str(dest)]) == 0
    assert "already in" in capsys.readouterr().out


def test_fetch_checksum_mismatch_leaves_nothing(fake_source, tmp_path, capsys):
    dest = tmp_path / "data"
    assert main(["data", "fetch", "ml-1m", "--dir", str(dest), "--sha256", "0" * 64]) == 2
    err = capsys.readouterr().err
    assert "checksum mismatch" in err and fake_source[1] in err
    assert not (dest / "ml-1m").exists() and list(dest.iterdir()) == []


def test_fetch_verified_archive_checksum(fake_source, tmp_path, monkeypatch):
    _, digest = fake_source
    src = fetch_mod.SOURCES["ml-1m"]
    monkeypatch.setitem(fetch_mod.SOURCES, "ml-1m", fetch_mod.Source(src.url, src.folder, src.terms, digest))
    lines = []
    fetch_mod.fetch("ml-1m", tmp_path / "d", echo=lines.append)
    assert any("verified" in s for s in lines)


def test_fetch_per_file_checksums_with_monkeypatched_opener(tmp_path, monkeypatch):
    """hetrec zips have no top folder; the per-file table catches a corrupted member."""
    expected = fetch_mod.FILE_SHA256["hetrec2011-lastfm-2k"]
    good = {name: b"" for name in expected}
    monkeypatch.setitem(fetch_mod.FILE_SHA256, "hetrec2011-lastfm-2k",
                        {n: hashlib.sha256(b"").hexdigest() for n in expected})
    payload = _zip(good, None)
    opener = lambda url: io.BytesIO(payload)  # noqa: E731
    out = fetch_mod.fetch("lastfm-2k", tmp_path / "d", opener=opener, echo=lambda s: None)
    assert out == tmp_path / "d" / "hetrec2011-lastfm-2k" and (out / "tags.dat").exists()
    payload = _zip({**good, "tags.dat": b"tampered"}, None)
    with pytest.raises(DataError, match=r"checksum mismatch for tags\.dat"):
        fetch_mod.fetch("lastfm-2k", tmp_path / "d2", opener=opener, echo=lambda s: None)
    assert not (tmp_path / "d2" / "hetrec2011-lastfm-2k").exists()


@pytest.mark.realdata
def test_fetch_verifies_real_files(ml100k_dir, tmp_path, monkeypatch):
    """A zip of the shared ML-100K files passes the recorded per-file sha256 table."""
    files = {p.name: p.read_bytes() for p in Path(ml100k_dir).iterdir()}
    payload = _zip(files, "ml-100k")
    out = fetch_mod.fetch("ml-100k", tmp_path, opener=lambda url: io.BytesIO(payload), echo=lambda s: None)
    assert load_dataset(out, splits=False).interactions.nnz == 100_000


def test_fetch_errors(tmp_path):
    with pytest.raises(Exception, match="unknown dataset"):
        fetch_mod.fetch("ml-7m", tmp_path)

    def offline(url):
        raise fetch_mod.urllib.error.URLError("no network")

    with pytest.raises(DataError, match=r"download of .* failed: no network"):
        fetch_mod.fetch("ml-100k", tmp_path, opener=offline, echo=lambda s: None)
    with pytest.raises(DataError, match="not a zip"):
        fetch_mod.fetch("ml-100k", tmp_path, opener=lambda url: io.BytesIO(b"<html>"), echo=lambda s: None)
    evil = _zip({"../evil.txt": b"x"}, None)
    with pytest.raises(DataError, match="unsafe path"):
        fetch_mod.fetch("ml-100k", tmp_path, opener=lambda url: io.BytesIO(evil), echo=lambda s: None)
    assert not (tmp_path.parent / "evil.txt").exists() and list(tmp_path.iterdir()) == []
