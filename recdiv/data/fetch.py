"""`recdiv data fetch`: download an official dataset archive, verify it before unpacking, unpack it, print its
usage terms.

Archives come from GroupLens (files.grouplens.org). Nothing is unpacked unverified:

1. an archive whose sha256 is known — from ``--sha256 HEX`` (64 hex digits, checked before downloading) or the
   `sha256` pinned in `SOURCES` — must match it, and is then unpacked whole;
2. an archive of a dataset whose files are pinned in `FILE_SHA256` (ml-100k, hetrec2011-lastfm-2k and the
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
The per-file checksums of `FILE_SHA256` are those of the shared data folder (``../shared/data/SHA256SUMS``),
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
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from recdiv.errors import ConfigError, DataError
from recdiv.outputs import check_output_dir, write_error

GROUPLENS = "https://files.grouplens.org/datasets"
ML_TERMS = ("MovieLens data (GroupLens Research, University of Minnesota): research use only; no commercial use "
            "without permission; do not redistribute; cite F. Maxwell Harper and Joseph A. Konstan (2015), \"The "
            "MovieLens Datasets: History and Context\", ACM TiiS 5(4), article 19. Full terms: the README in the "
            "archive.")
HETREC_TERMS = ("HetRec 2011 Last.fm 2K (GroupLens; data from Last.fm): non-commercial research use only; do not "
                "redistribute; cite Iván Cantador, Peter Brusilovsky and Tsvi Kuflik (2011), \"2nd Workshop on "
                "Information Heterogeneity and Fusion in Recommender Systems (HetRec 2011)\", RecSys 2011, and "
                "credit Last.fm (http://www.last.fm). Full terms: readme.txt in the archive.")


@dataclass(frozen=True)
class Source:
    """Where a dataset comes from and how to check it."""

    url: str
    folder: str  # folder name the dataset gets under the data directory
    terms: str
    sha256: str | None = None  # archive checksum, pinned only when verified (none is, see the module docstring)


SOURCES: dict[str, Source] = {
    "ml-100k": Source(f"{GROUPLENS}/movielens/ml-100k.zip", "ml-100k", ML_TERMS),
    "ml-1m": Source(f"{GROUPLENS}/movielens/ml-1m.zip", "ml-1m", ML_TERMS),
    "ml-10m": Source(f"{GROUPLENS}/movielens/ml-10m.zip", "ml-10m", ML_TERMS),
    "ml-20m": Source(f"{GROUPLENS}/movielens/ml-20m.zip", "ml-20m", ML_TERMS),
    "ml-25m": Source(f"{GROUPLENS}/movielens/ml-25m.zip", "ml-25m", ML_TERMS),
    "ml-32m": Source(f"{GROUPLENS}/movielens/ml-32m.zip", "ml-32m", ML_TERMS),
    "ml-latest-small": Source(f"{GROUPLENS}/movielens/ml-latest-small.zip", "ml-latest-small", ML_TERMS),
    "hetrec2011-lastfm-2k": Source(f"{GROUPLENS}/hetrec2011/hetrec2011-lastfm-2k.zip", "hetrec2011-lastfm-2k",
                                   HETREC_TERMS),
}
ALIASES = {"ml100k": "ml-100k", "lastfm-2k": "hetrec2011-lastfm-2k", "hetrec-lastfm": "hetrec2011-lastfm-2k",
           "ml-latest": "ml-latest-small"}

# per-file sha256 of the distributions' files: those of ../shared/data/SHA256SUMS, whose copies were checked against
# independent copies of the originals (tests/data/test_fetch.py re-checks that these equal the shared files')
FILE_SHA256: dict[str, dict[str, str]] = {
    "ml-100k": {
        "README": "4883b8cf340ed0059971b33f56ad3adc88a40792108ebca3d24aafc4c82e8b52",
        "u.data": "06416e597f82b7342361e41163890c81036900f418ad91315590814211dca490",
        "u.genre": "9757e0d3e6b298159a80dd48eaf938114690e911e39af97a76949ef1663610bb",
        "u.info": "5b0a40b2e47a729ee6203063f6dcf8790c2e63f5a18663e6ee318a72c5f3c27b",
        "u.item": "553841ebc7de3a0fd0d6b62a204ea30c1e651aacfb2814c7a6584ac52f2c5701",
        "u.occupation": "cd5fbec9afe345d993a62fc7817df1a4a9079c4feb267b3118763b8fd942137d",
        "u.user": "f120e114da2e8cf314fd28f99417c94ae9ddf1cb6db8ce0e4b5995d40e90e62c",
        "u1.base": "ce253ec86c448b44fb3ba9a30d12dcfc2e9210cbde71efada3730c22e9ac212a",
        "u1.test": "18c6014a4b2c7324f250a63f8904a7b16b2b19f911129e346141507b0cbac950",
        "u2.base": "6c06f0b5df4b256da1a994f3ac66edc8da4d3f09bc9282df6b14d893366d703e",
        "u2.test": "4de658d1e04ed9104629509a2e2528fce833ac8e048280183f1df167632038c3",
        "u3.base": "afdc155c291c6edc41c0407e39d7462eb98d341e064f0b0a12175b80b3c4af5d",
        "u3.test": "0f548b51c78327de4c156461d3e430b7e5579fe2b5681586a59416e48fd35f6d",
        "u4.base": "219f0f4d40dfe9c5141d425f53fa91ee23ed275f14e280bbf1b50117afb064ca",
        "u4.test": "7c02ad0a1e7ab1083c8b9d4b627203a051dd7b5eab46d99fa44de33470de8db9",
        "u5.base": "a9574e59ce961eec2121627760b6e9b0974ce1637b3fe69ac32cb14a4bfab485",
        "u5.test": "351cc52e0d15b6c721466276fc24671d40936899e3d01fadeaf312915b8c5634",
        "ua.base": "67b5bcdb380c29f85d56a012ecd88612ae020f30a6730d117a334ee8203b91f2",
        "ua.test": "d0497e202417720f57a184ec8c66be2d1afa4ff41bb53787c57b28d6bf79bc42",
        "ub.base": "237254d253b6ad7de84f919d041055428646254f34ed8f562703c899430cd881",
        "ub.test": "d54a72d05730d5892062734b2bec73e976f9b713d18c828a18b968d6cce442da",
    },
    "hetrec2011-lastfm-2k": {
        "artists.dat": "c173881362c6b28551368fecb3c0be5a6a30a6cd859e1f5775413dfe46d48648",
        "readme.txt": "6fe5d1e6f67b025fc50cd70883dd1a1ff16c5ff37b5b7abfb33644b83468b209",
        "tags.dat": "e95175f259be4c0c47644ae23d66131cd6d5767142a1405000e79f5584691d70",
        "user_artists.dat": "001400dc3c7d2667fca6e4ea6dc6acc31a9dd28ad5cd0f74cea988c019934d3b",
        "user_friends.dat": "9a3a8f7fa5f5ec832335e5b58ed69a4cf27c6f6f6afcde62134810eea46445a7",
        "user_taggedartists.dat": "d31fe938fcfeed6f0059f37a36b156f63674d073fc2553e5cc9dc1595e365bc7",
    },
    "ml-latest-small": {
        "README.txt": "63d22ac138e80fae37021797ed8e1b9424b5239dc576a137422adf783ae3f404",
        "links.csv": "97ad18e4e56a09363c65676b6cb3482ce3e2cea2372a24620c1599c843325f31",
        "movies.csv": "5a5f32dd9bb3797b8e728a1b98958789d2b13f294a69fdfbc5727f8a9611aa07",
        "ratings.csv": "aa289ca83157595d0df6aea1be6a4ded676ddc4385472e8313a8ed9805352646",
        "tags.csv": "92a9f8bb7916dceef6151209845788c3643f794dfa79d1feaec7121b5960399d",
    },
}


#: members of the official archives that have no pinned checksum (left out unless the whole archive is verified)
UNPINNED_MEMBERS: dict[str, frozenset[str]] = {
    "ml-100k": frozenset({"allbut.pl", "mku.sh"}),
    "hetrec2011-lastfm-2k": frozenset({"user_taggedartists-timestamps.dat"}),
    "ml-latest-small": frozenset(),
}


def check_listing(key: str, members: dict[str, zipfile.ZipInfo], url: str) -> None:
    """DataError when the archive of a release whose files are known holds a file that release does not have."""
    if key not in FILE_SHA256:
        return
    known = set(FILE_SHA256[key]) | UNPINNED_MEMBERS.get(key, frozenset())
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
    key = ALIASES.get(name, name)
    if key not in SOURCES:
        raise ConfigError(f"unknown dataset {name!r} to fetch; choose one of {', '.join(SOURCES)}")
    src = SOURCES[key]
    want = check_sha256(sha256) or src.sha256
    pinned_files = FILE_SHA256.get(key, {})
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
                check_listing(key, members, src.url)
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
