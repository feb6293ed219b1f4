"""The datasets recdiv knows by name and the folder formats it reads: `DATASETS` and `FORMATS`, registries of
`recdiv.registry` (one spelling rule: ``ML-100K`` = ``ml100k``; unknown names get a did-you-mean).

- A **format** (`DatasetFormat`) is what an unpacked folder holds: the file that identifies it (its marker, checked
  in registration order by `recdiv.data.load.detect_format`) and its loader (``module:function``, imported when a
  folder of that format is loaded, as every built-in component is deferred). A new loader is one function in its
  own module and one row here; installed packages add formats under the entry-point group
  ``recdiv.dataset_formats`` (the entry point names a `DatasetFormat` object).
- A **named dataset** (`NamedDataset`) is an official distribution: the folder it unpacks to (looked up by
  `recdiv.data.locate.dataset_path` in the data folders), its aliases, its format, the archive `recdiv data fetch`
  downloads (`recdiv.data.fetch`), its usage terms, and the sha256 of its files.

Why no archive checksum is pinned, and where the per-file checksums come from: `recdiv.data.fetch`'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from recdiv.registry import Registry, load_object

__all__ = ["DATASETS", "FORMATS", "DatasetFormat", "NamedDataset"]


@dataclass(frozen=True)
class DatasetFormat:
    """A folder format: `marker`, the file whose presence identifies it; `loader`, ``module:function`` taking the
    folder and keyword options and returning a `recdiv.data.interactions.Dataset`."""

    name: str
    marker: str
    loader: str

    def load_function(self) -> Callable:
        """The loader (its module is imported now)."""
        return load_object(self.loader, "dataset loader")


@dataclass(frozen=True)
class NamedDataset:
    """An official dataset: `folder` under a data folder, `format`, the archive `url`, usage `terms`, the archive's
    `sha256` (pinned only when verified: none is) and the sha256 of its files (`files`, pinned when verified)."""

    name: str
    folder: str
    format: str
    url: str
    terms: str
    sha256: str | None = None
    files: dict[str, str] = field(default_factory=dict)


FORMATS: Registry[DatasetFormat] = Registry("dataset format", group="recdiv.dataset_formats")
for _format in [
    DatasetFormat("ml-100k", "u.data", "recdiv.data.movielens:load_ml100k"),
    DatasetFormat("movielens-dat", "ratings.dat", "recdiv.data.movielens:load_ml_dat"),
    DatasetFormat("movielens-csv", "ratings.csv", "recdiv.data.movielens:load_ml_csv"),
    DatasetFormat("hetrec-lastfm", "user_artists.dat", "recdiv.data.lastfm:load_hetrec_lastfm"),
    DatasetFormat("lastfm-1k", "userid-timestamp-artid-artname-traid-traname.tsv", "recdiv.data.lastfm:load_lastfm_1k"),
    DatasetFormat("lastfm-360k", "usersha1-artmbid-artname-plays.tsv", "recdiv.data.lastfm:load_lastfm_360k"),
    DatasetFormat("recdiv-export", "test.qrels", "recdiv.data.export:load_export"),  # `recdiv data export`'s folder
    DatasetFormat("recdiv-export-parquet", "test.parquet", "recdiv.data.export:load_export"),  # … --qrels-format
    DatasetFormat("recdiv-export-arrow", "test.arrow", "recdiv.data.export:load_export"),
    DatasetFormat("recdiv-tsv", "interactions.tsv", "recdiv.data.load:load_recdiv_tsv"),
]:
    FORMATS.add(_format.name, _format)

GROUPLENS = "https://files.grouplens.org/datasets"
ML_TERMS = ("MovieLens data (GroupLens Research, University of Minnesota): research use only; no commercial use "
            "without permission; do not redistribute; cite F. Maxwell Harper and Joseph A. Konstan (2015), \"The "
            "MovieLens Datasets: History and Context\", ACM TiiS 5(4), article 19. Full terms: the README in the "
            "archive.")
HETREC_TERMS = ("HetRec 2011 Last.fm 2K (GroupLens; data from Last.fm): non-commercial research use only; do not "
                "redistribute; cite Iván Cantador, Peter Brusilovsky and Tsvi Kuflik (2011), \"2nd Workshop on "
                "Information Heterogeneity and Fusion in Recommender Systems (HetRec 2011)\", RecSys 2011, and "
                "credit Last.fm (http://www.last.fm). Full terms: readme.txt in the archive.")


# per-file sha256 of the distributions' files: those of ../shared/data/SHA256SUMS, whose copies were checked against
# independent copies of the originals (tests/data/test_fetch.py re-checks that these equal the shared files')
_FILES: dict[str, dict[str, str]] = {
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



DATASETS: Registry[NamedDataset] = Registry("dataset")
for _name, _format_name, _url, _terms, _aliases in [
    ("ml-100k", "ml-100k", f"{GROUPLENS}/movielens/ml-100k.zip", ML_TERMS, ("ml100k",)),
    ("ml-1m", "movielens-dat", f"{GROUPLENS}/movielens/ml-1m.zip", ML_TERMS, ()),
    ("ml-10m", "movielens-dat", f"{GROUPLENS}/movielens/ml-10m.zip", ML_TERMS, ()),
    ("ml-20m", "movielens-csv", f"{GROUPLENS}/movielens/ml-20m.zip", ML_TERMS, ()),
    ("ml-25m", "movielens-csv", f"{GROUPLENS}/movielens/ml-25m.zip", ML_TERMS, ()),
    ("ml-32m", "movielens-csv", f"{GROUPLENS}/movielens/ml-32m.zip", ML_TERMS, ()),
    ("ml-latest-small", "movielens-csv", f"{GROUPLENS}/movielens/ml-latest-small.zip", ML_TERMS, ("ml-latest",)),
    ("hetrec2011-lastfm-2k", "hetrec-lastfm", f"{GROUPLENS}/hetrec2011/hetrec2011-lastfm-2k.zip", HETREC_TERMS,
     ("lastfm-2k", "hetrec-lastfm")),
]:
    DATASETS.add(_name, NamedDataset(_name, _name, _format_name, _url, _terms, files=_FILES.get(_name, {})),
                 aliases=_aliases)
