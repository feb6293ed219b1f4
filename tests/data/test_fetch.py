"""`recdiv data fetch`, offline (file:// URLs and a stand-in opener): every archive is verified before anything is
unpacked; an archive recdiv cannot verify is refused before downloading unless --sha256 is given; --sha256 is
checked before downloading; the pinned per-file checksums are those of the verified shared copies."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from recdiv.cli import main
from recdiv.data import fetch as fetch_mod
from recdiv.data.datasets import DATASETS
from recdiv.data.load import load_dataset
from recdiv.errors import ConfigError, DataError
from recdiv.registry import Registry

RATINGS = b"1::10::5::978300760\n"


def _zip(files: dict[str, bytes], top: str | None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(f"{top}/{name}" if top else name, data)
    return buf.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _no_download(url):
    raise AssertionError(f"{url} was downloaded")


def _replace(monkeypatch, name: str, **changes) -> None:
    """`recdiv.data.fetch` sees a copy of the dataset registry with `name`'s record changed."""
    copy = Registry("dataset")
    for e in fetch_mod.DATASETS.entries():
        copy.add(e.name, dataclasses.replace(e.obj, **changes) if e.name == name else e.obj, aliases=e.aliases)
    monkeypatch.setattr(fetch_mod, "DATASETS", copy)


@pytest.fixture
def ml1m(monkeypatch, tmp_path):
    """ml-1m (no pinned checksum) pointing at a local zip (file:// URL); returns (archive, its sha256)."""
    archive = tmp_path / "src" / "ml-1m.zip"
    archive.parent.mkdir()
    archive.write_bytes(_zip({"ratings.dat": RATINGS, "movies.dat": b"10::A (1995)::Drama\n"}, "ml-1m"))
    _replace(monkeypatch, "ml-1m", url=archive.as_uri())
    return archive, _sha(archive.read_bytes())


@pytest.mark.parametrize("value", ["zz", "0" * 63, "0" * 65, "g" * 64, "", "0" * 32])
def test_a_malformed_sha256_is_refused_before_downloading(value, tmp_path, capsys):
    with pytest.raises(ConfigError, match="--sha256 must be 64 hexadecimal digits"):
        fetch_mod.fetch("ml-1m", tmp_path, sha256=value, opener=_no_download)
    assert main(["data", "fetch", "ml-1m", "--dir", str(tmp_path), "--sha256", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("recdiv: error: --sha256 must be 64 hexadecimal digits")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["ml-1m", "ml-10m", "ml-20m", "ml-25m", "ml-32m"])
def test_an_archive_without_a_pinned_checksum_is_refused_unless_sha256_is_given(name, tmp_path, capsys):
    with pytest.raises(ConfigError, match=rf"no verified checksum for {name}.zip .*pass --sha256 HEX"):
        fetch_mod.fetch(name, tmp_path, opener=_no_download)
    assert main(["data", "fetch", name, "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--sha256" in err and f"{name}.zip.md5" in err
    assert list(tmp_path.iterdir()) == []


def test_an_archive_with_the_given_sha256_is_installed_whole(ml1m, tmp_path, capsys):
    _, digest = ml1m
    dest = tmp_path / "data"
    assert main(["data", "fetch", "ml-1m", "--dir", str(dest), "--sha256", digest.upper()]) == 0
    out = capsys.readouterr().out
    assert "archive sha256 verified" in out and "Terms of use" in out and "Harper" in out
    assert load_dataset(dest / "ml-1m").interactions.nnz == 1
    assert sorted(p.name for p in dest.iterdir()) == ["ml-1m"]  # no temporary files left
    assert main(["data", "fetch", "ml-1m", "--dir", str(dest)]) == 0  # already there: no download, no checksum
    assert "already in" in capsys.readouterr().out


def test_a_mismatching_archive_leaves_nothing(ml1m, tmp_path, capsys):
    dest = tmp_path / "data"
    assert main(["data", "fetch", "ml-1m", "--dir", str(dest), "--sha256", "0" * 64]) == 2
    err = capsys.readouterr().err
    assert "checksum mismatch" in err and ml1m[1] in err
    assert not dest.exists()


def test_a_pinned_archive_checksum_is_used(ml1m, tmp_path, monkeypatch):
    _, digest = ml1m
    _replace(monkeypatch, "ml-1m", sha256=digest)
    lines = []
    fetch_mod.fetch("ml-1m", tmp_path / "d", echo=lines.append)
    assert any("archive sha256 verified" in s for s in lines)


@pytest.fixture
def pinned_lastfm(monkeypatch):
    """hetrec2011-lastfm-2k with small pinned files (its zip has no top folder) and one unpinned member."""
    files = {"user_artists.dat": b"userID\tartistID\tweight\r\n2\t51\t13883\r\n", "readme.txt": b"read me\n"}
    _replace(monkeypatch, "hetrec2011-lastfm-2k", files={n: _sha(d) for n, d in files.items()})
    return files


def test_pinned_files_are_verified_before_anything_is_unpacked(pinned_lastfm, tmp_path, monkeypatch):
    extracted = []
    real = fetch_mod._extract
    monkeypatch.setattr(fetch_mod, "_extract", lambda *a: (extracted.append(a[2]), real(*a)))
    payload = _zip({**pinned_lastfm, "user_taggedartists-timestamps.dat": b"unpinned"}, None)
    lines = []
    out = fetch_mod.fetch("lastfm-2k", tmp_path / "d", opener=lambda url: io.BytesIO(payload), echo=lines.append)
    assert out == tmp_path / "d" / "hetrec2011-lastfm-2k"
    assert sorted(p.name for p in out.iterdir()) == ["readme.txt", "user_artists.dat"]  # the unpinned one is left out
    assert any("not unpacked" in s and "user_taggedartists-timestamps.dat" in s for s in lines)
    # a tampered pinned file: refused before extraction, nothing written
    extracted.clear()
    payload = _zip({**pinned_lastfm, "readme.txt": b"tampered"}, None)
    with pytest.raises(DataError, match=r"checksum mismatch for readme\.txt in the archive"):
        fetch_mod.fetch("lastfm-2k", tmp_path / "d2", opener=lambda url: io.BytesIO(payload), echo=lambda s: None)
    assert extracted == [] and not (tmp_path / "d2").exists()
    # a missing pinned file
    payload = _zip({"readme.txt": pinned_lastfm["readme.txt"]}, None)
    with pytest.raises(DataError, match=r"lacks user_artists\.dat"):
        fetch_mod.fetch("lastfm-2k", tmp_path / "d3", opener=lambda url: io.BytesIO(payload), echo=lambda s: None)


def test_with_a_verified_archive_every_member_is_unpacked(pinned_lastfm, tmp_path):
    payload = _zip({**pinned_lastfm, "user_taggedartists-timestamps.dat": b"x"}, None)
    out = fetch_mod.fetch("lastfm-2k", tmp_path, sha256=_sha(payload), opener=lambda url: io.BytesIO(payload),
                          echo=lambda s: None)
    assert sorted(p.name for p in out.iterdir()) == ["readme.txt", "user_artists.dat",
                                                     "user_taggedartists-timestamps.dat"]


@pytest.mark.parametrize("sha", [False, True])
def test_an_archive_with_a_file_the_release_does_not_have_is_refused(pinned_lastfm, tmp_path, sha):
    """The listing of a pinned release is known: an extra member means another or an altered archive, refused
    before anything is unpacked — even when the archive's checksum is given."""
    payload = _zip({**pinned_lastfm, "extra.sh": b"#!/bin/sh\nrm -rf ~\n"}, None)
    with pytest.raises(DataError, match=r"holds files the hetrec2011-lastfm-2k release does not have \(extra\.sh\)"):
        fetch_mod.fetch("lastfm-2k", tmp_path / "d", sha256=_sha(payload) if sha else None,
                        opener=lambda url: io.BytesIO(payload), echo=lambda s: None)
    assert not (tmp_path / "d").exists()


def test_fetch_errors(tmp_path):
    with pytest.raises(ConfigError, match="unknown dataset"):
        fetch_mod.fetch("ml-7m", tmp_path)

    def offline(url):
        raise fetch_mod.urllib.error.URLError("no network")

    with pytest.raises(DataError, match=r"download of .* failed: no network"):
        fetch_mod.fetch("ml-100k", tmp_path, opener=offline, echo=lambda s: None)
    with pytest.raises(DataError, match="not a zip"):
        fetch_mod.fetch("ml-100k", tmp_path, opener=lambda url: io.BytesIO(b"<html>"), echo=lambda s: None)
    for evil in ("../evil.txt", "/abs/evil.txt", "ml-100k/../../evil.txt"):
        payload = _zip({evil: b"x"}, None)
        with pytest.raises(DataError, match="unsafe path"):
            fetch_mod.fetch("ml-100k", tmp_path, opener=lambda url, p=payload: io.BytesIO(p), echo=lambda s: None)
    assert not (tmp_path.parent / "evil.txt").exists() and list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("x", "utf-8")
    with pytest.raises(ConfigError, match=r"^--dir .*/file/sub: cannot write there: .*/file is not a folder"):
        fetch_mod.fetch("ml-100k", tmp_path / "file" / "sub", opener=_no_download, echo=lambda s: None)


@pytest.mark.realdata
def test_pinned_file_checksums_are_those_of_the_verified_shared_copies(data_root):
    """Every pinned per-file sha256 equals the sha256 of the shared, independently verified copy and its line in
    the shared SHA256SUMS (so no value is pinned that was not verified)."""
    sums = {}
    for line in (Path(data_root) / "SHA256SUMS").read_text("utf-8").splitlines():
        digest, path = line.split(maxsplit=1)
        sums[path] = digest
    n = 0
    for dataset in [e.obj for e in DATASETS.entries()]:
        folder = dataset.folder
        for name, digest in dataset.files.items():
            assert _sha((Path(data_root) / folder / name).read_bytes()) == digest == sums[f"{folder}/{name}"]
            n += 1
    assert n == len(sums) == 32
    assert all(e.obj.sha256 is None for e in DATASETS.entries())  # no archive checksum could be verified


@pytest.mark.realdata
def test_a_zip_of_the_shared_ml100k_files_installs(ml100k_dir, tmp_path):
    """The real pinned table passes a zip of the shared ML-100K files; the helper scripts are left out."""
    files = {p.name: p.read_bytes() for p in Path(ml100k_dir).iterdir()}
    payload = _zip({**files, "allbut.pl": b"#!/usr/bin/perl\n", "mku.sh": b"#!/bin/sh\n"}, "ml-100k")
    lines = []
    out = fetch_mod.fetch("ml-100k", tmp_path, opener=lambda url: io.BytesIO(payload), echo=lines.append)
    assert not (out / "allbut.pl").exists() and any("allbut.pl, mku.sh" in s for s in lines)
    assert load_dataset(out, splits=False).interactions.nnz == 100_000
