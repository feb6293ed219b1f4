"""`recdiv data fetch`: download an official dataset archive, verify it before unpacking, unpack it, print its
usage terms.

Archives come from GroupLens (files.grouplens.org). Nothing is unpacked unverified:

1. an archive whose sha256 is known — from ``--sha256 HEX`` (64 hex digits, checked before downloading) or the
   `sha256` pinned in `recdiv.data.datasets.DATASETS` — must match it, and is then unpacked whole;
2. an archive of a dataset whose files are pinned (`NamedDataset.files`) (ml-100k, hetrec2011-lastfm-2k and the
   2018-09-26 release of ml-latest-small) has each pinned file read from the archive and checked *before*
   anything is written; without a verified archive checksum only those files are unpacked (the archive's
   other members — ml-100k's helper scripts ``allbut.pl`` and ``mku.sh``, HetRec's
   ``user_taggedartists-timestamps.dat`` — are named and left out); the listing of such a release is known
   (`FILE_SHA256` and `UNPINNED_MEMBERS`), so an archive holding any other file is not that release and is refused,
   even with ``--sha256``;
3. any other archive is refused before downloading unless ``--sha256`` is given.

What is pinned, and how it was verified: no archive checksum is pinned. This environment has no copy of any
archive and no network access beyond package registries, so no archive sha256 could be verified; GroupLens's
published ``.md5`` files could not be fetched either, and a value recalled from memory is not a verification.
The per-file checksums are those of the shared data folder (``../shared/data/SHA256SUMS``),
whose copies were checked against independent copies of the original distributions (git blob ids) and the
published statistics; `tests/data/test_fetch.py` re-checks that they equal the shared files' sha256.

A mismatch raises `DataError`; the target folder is written only after every check passed, and nothing is left
behind otherwise.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from recdiv.data.datasets import DATASETS
from recdiv.errors import ConfigError, DataError
from recdiv.outputs import check_output_dir, write_error

#: members of the official archives that have no pinned checksum (left out unless the whole archive is verified)
UNPINNED_MEMBERS: dict[str, frozenset[str]] = {
    "ml-100k": frozenset({"allbut.pl", "mku.sh"}),
    "hetrec2011-lastfm-2k": frozenset({"user_taggedartists-timestamps.dat"}),
    "ml-latest-small": frozenset(),
}


def check_listing(key: str, pinned: dict[str, str], members: dict[str, zipfile.ZipInfo], url: str) -> None:
    """DataError when the archive of a release whose files are known (`pinned`) holds a file that release does not
    have."""
    if not pinned:
        return
    known = set(pinned) | UNPINNED_MEMBERS.get(key, frozenset())
    extra = sorted(set(members) - known)
    if extra:
        shown = ", ".join(extra[:5]) + (", ..." if len(extra) > 5 else "")
        raise DataError(f"the archive from {url} holds files the {key} release does not have ({shown}): a different "
                        "or altered archive; nothing was unpacked")


def default_dir() -> Path:
    """Where `fetch` puts datasets: $RECDIV_DATA, else ~/.cache/recdiv/data."""
    env = os.environ.get("RECDIV_DATA")
    return Path(env) if env else Path.home() / ".cache" / "recdiv" / "data"


def _download(url: str, dest: Path, opener: Callable) -> str:
    """Stream `url` into `dest`; return its sha256."""
    h = hashlib.sha256()
    try:
        with opener(url) as resp, open(dest, "wb") as fh:
            while chunk := resp.read(1 << 20):
                h.update(chunk)
                fh.write(chunk)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise DataError(f"download of {url} failed: {getattr(e, 'reason', e)}") from None
    return h.hexdigest()


def check_sha256(value: str | None) -> str | None:
    """`--sha256`, lower-cased; ConfigError (before anything is downloaded) unless it is 64 hexadecimal digits."""
    if value is None:
        return None
    v = value.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", v):
        raise ConfigError(f"--sha256 must be 64 hexadecimal digits (a SHA-256 checksum), got {value!r}")
    return v


def _members(zf: zipfile.ZipFile, url: str) -> tuple[dict[str, zipfile.ZipInfo], str | None]:
    """The archive's files by path below its single top folder (if it has one), and that folder's name."""
    infos = [i for i in zf.infolist() if not i.is_dir()]
    for i in infos:
        p = PurePosixPath(i.filename)
        if p.is_absolute() or ".." in p.parts or "\\" in i.filename:
            raise DataError(f"unsafe path {i.filename!r} in the archive from {url}")
    infos = [i for i in infos if not i.filename.startswith("__MACOSX/")]
    tops = {PurePosixPath(i.filename).parts[0] for i in infos}
    top = next(iter(tops)) if len(tops) == 1 and all(len(PurePosixPath(i.filename).parts) > 1 for i in infos) \
        else None
    strip = len(top) + 1 if top else 0
    return {i.filename[strip:]: i for i in infos}, top


def _member_sha256(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> str:
    h = hashlib.sha256()
    with zf.open(info) as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def verify_members(zf: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], expected: dict[str, str],
                   url: str) -> None:
    """DataError unless every pinned file is in the archive with its pinned sha256 (read in memory, nothing written)."""
    for rel, want in expected.items():
        if rel not in members:
            raise DataError(f"the archive from {url} lacks {rel}")
        got = _member_sha256(zf, members[rel])
        if got != want:
            raise DataError(f"checksum mismatch for {rel} in the archive from {url}: expected sha256 {want}, got "
                            f"{got} (a different release?)")


def _extract(zf: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], names: list[str], into: Path) -> None:
    for rel in names:
        dest = into / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(members[rel]) as src, open(dest, "wb") as out:
            shutil.copyfileobj(src, out, 1 << 20)


def fetch(
    name: str,
    dest: str | Path | None = None,
    *,
    sha256: str | None = None,
    force: bool = False,
    opener: Callable = urllib.request.urlopen,
    echo: Callable[[str], None] = print,
) -> Path:
    """Download, verify and unpack dataset `name` into `dest/<folder>`; return the folder."""
    if ":" in name or name not in DATASETS:
        raise ConfigError(f"unknown dataset {name!r} to fetch; choose one of {', '.join(DATASETS)}")
    src = DATASETS.get(name)
    key = src.name
    want = check_sha256(sha256) or src.sha256
    pinned_files = src.files
    dest = Path(dest) if dest is not None else default_dir()
    target = dest / src.folder
    if target.exists() and not force:
        echo(f"{key}: already in {target} (use --force to download again)")
        return target
    check_output_dir(dest, "--dir")
    if want is None and not pinned_files:
        archive_name = src.url.rsplit("/", 1)[-1]
        raise ConfigError(f"recdiv has no verified checksum for {archive_name} and will not install it unverified: "
                          f"pass --sha256 HEX, the archive's SHA-256 from a source you trust (GroupLens publishes "
                          f"{archive_name}.md5 beside the archive: check a copy against it, then compute its "
                          "sha256)")
    created = not dest.exists()
    try:
        dest.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=dest))
    except OSError as e:
        raise write_error(e, dest) from None
    try:
        archive = work / "archive.zip"
        echo(f"{key}: downloading {src.url}")
        got = _download(src.url, archive, opener)
        if want is not None:
            if got != want:
                raise DataError(f"checksum mismatch for {src.url}: expected sha256 {want}, got {got}")
            echo(f"{key}: archive sha256 verified ({got})")
        try:
            with zipfile.ZipFile(archive) as zf:
                members, _ = _members(zf, src.url)
                check_listing(key, pinned_files, members, src.url)
                verify_members(zf, members, pinned_files, src.url)
                if pinned_files:
                    echo(f"{key}: {len(pinned_files)} files verified against pinned sha256 checksums")
                names = sorted(members) if want is not None else sorted(pinned_files)
                skipped = sorted(set(members) - set(names))
                if skipped:
                    echo(f"{key}: not unpacked (no verified checksum; pass --sha256 to unpack the whole verified "
                         f"archive): {', '.join(skipped)}")
                root = work / "unpacked"
                _extract(zf, members, names, root)
        except zipfile.BadZipFile:
            raise DataError(f"the download from {src.url} is not a zip archive") from None
        if target.exists():
            shutil.rmtree(target)
        os.replace(root, target)
    except OSError as e:
        raise write_error(e, dest) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if created and not target.exists():
            with contextlib.suppress(OSError):
                dest.rmdir()  # only if empty: a folder this call created for nothing
    echo(f"{key}: ready in {target}")
    echo(f"Terms of use: {src.terms}")
    return target
