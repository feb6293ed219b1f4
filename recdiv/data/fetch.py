"""`recdiv data fetch`: download an official dataset archive, verify it, unpack it, print its usage terms.

Archives come from GroupLens (files.grouplens.org). Verification has two levels:

1. the archive's sha256, against `--sha256 HEX` or the `sha256` recorded in `SOURCES`. recdiv records an
   archive checksum only when it was verified against an independent copy; for the others (at present all
   of them) the computed sha256 is printed so that you can compare it and pass it next time, never invented;
2. after unpacking, every file listed in `FILE_SHA256` is checked: these per-file checksums were verified
   against independent copies of the original distributions (ml-100k, hetrec2011-lastfm-2k and the
   2018-09-26 release of ml-latest-small; see the shared data README).

A mismatch at either level raises `DataError` and leaves nothing behind; the folder is moved into place
only after every check passed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from recdiv.errors import ConfigError, DataError

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
    sha256: str | None = None  # archive checksum, only when independently verified


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

# per-file sha256 of unpacked distributions, verified (sha256sum -c on the team's checked copies)
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


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _unpack(archive: Path, into: Path, url: str) -> Path:
    """Extract a zip safely into `into`; return the dataset root (its single top folder, if it has one)."""
    try:
        with zipfile.ZipFile(archive) as zf:
            names = zf.namelist()
            for n in names:
                p = Path(n)
                if p.is_absolute() or ".." in p.parts:
                    raise DataError(f"unsafe path {n!r} in the archive from {url}")
            zf.extractall(into)
    except zipfile.BadZipFile:
        raise DataError(f"the download from {url} is not a zip archive") from None
    tops = {Path(n).parts[0] for n in names if Path(n).parts and not Path(n).parts[0].startswith("__MACOSX")}
    if len(tops) == 1 and (into / next(iter(tops))).is_dir():
        return into / next(iter(tops))
    return into


def verify_files(root: Path, expected: dict[str, str]) -> None:
    """DataError unless every listed file is under `root` with the listed sha256."""
    for rel, want in expected.items():
        p = root / rel
        if not p.is_file():
            raise DataError(f"the archive lacks {rel}", root)
        got = sha256_file(p)
        if got != want:
            raise DataError(f"checksum mismatch for {rel}: expected sha256 {want}, got {got} (a different release?)",
                            root)


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
    dest = Path(dest) if dest is not None else default_dir()
    target = dest / src.folder
    if target.exists() and not force:
        echo(f"{key}: already in {target} (use --force to download again)")
        return target
    dest.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=dest))
    try:
        archive = work / "archive.zip"
        echo(f"{key}: downloading {src.url}")
        got = _download(src.url, archive, opener)
        want = (sha256 or src.sha256 or "").lower() or None
        if want is not None and got != want:
            raise DataError(f"checksum mismatch for {src.url}: expected sha256 {want}, got {got}")
        if want is None:
            echo(f"{key}: sha256 of the archive is {got} (recdiv has no verified checksum for it; compare it with "
                 f"a trusted copy and pass --sha256 to check it next time)")
        else:
            echo(f"{key}: archive sha256 verified ({got})")
        root = _unpack(archive, work / "unpacked", src.url)
        files = FILE_SHA256.get(key, {})
        verify_files(root, files)
        if files:
            echo(f"{key}: {len(files)} files verified against recorded sha256 checksums")
        if target.exists():
            shutil.rmtree(target)
        os.replace(root, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    echo(f"{key}: ready in {target}")
    echo(f"Terms of use: {src.terms}")
    return target
