"""Content-hash keyed artefact store for experiment stages (safe formats only: NPZ, Parquet, JSON).

Every artefact (candidate lists, reranked lists, aspect spaces, per-user scores) is stored under
``<root>/<stage>/<key[:2]>/<key>.<ext>``, where the key is a SHA-256 over the stage's configuration and
the keys (content hashes) of its inputs. Files are written beside their target and renamed into place
(`recdiv.outputs.atomic_write`), so an interrupted run leaves either a complete artefact or none,
and a resumed run skips exactly the finished work. Nothing is pickled: NPZ files are read with
``allow_pickle=False``.

Every artefact has a checksum record beside it, ``<key>.<ext>.sha256`` (the cache's manifest, one record per
artefact so that worker processes never share a file), written just before the artefact. An artefact is used only
if its bytes match its record: one that was damaged after it was written (or whose record is missing) counts as
absent, is recomputed, and is listed in `Store.damaged` so that the run can say so.

Without ``resume``, artefacts written before the current run started are ignored (and overwritten):
a fresh run recomputes everything but still shares artefacts between its own stages and processes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv import __version__
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.outputs import write_bytes, write_error

#: bump when the layout or meaning of cached artefacts changes
CACHE_VERSION = 2  # 2: checksum records beside the artefacts



def _canonical(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, list | tuple):
        return [_canonical(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)  # 1 and 1.0 are the same parameter value
    return obj


def hash_config(*parts: Any) -> str:
    """SHA-256 (hex) of JSON-serialisable parts (dict keys sorted, 1.0 == 1)."""
    payload = json.dumps([CACHE_VERSION, __version__, *map(_canonical, parts)], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


class ArrayHasher:
    """Incremental SHA-256 over arrays (dtype, shape and bytes) and strings: content fingerprints."""

    def __init__(self, *parts: Any):
        self._h = hashlib.sha256()
        for p in parts:
            self.update(p)

    def update(self, obj: Any) -> ArrayHasher:
        if obj is None:
            self._h.update(b"\x00none")
        elif isinstance(obj, np.ndarray):
            if obj.dtype == object:
                obj = obj.astype(str)
            a = np.ascontiguousarray(obj)
            self._h.update(f"{a.dtype.str}{a.shape}".encode())
            self._h.update(a.tobytes())
        elif isinstance(obj, sp.spmatrix | sp.sparray):
            m = sp.csr_matrix(obj)
            m.sort_indices()
            self.update(np.asarray(m.shape)).update(m.indptr).update(m.indices).update(m.data)
        elif isinstance(obj, Vocab):
            self.update(np.asarray(obj.index.astype(str)))
        elif isinstance(obj, str | bytes):
            self._h.update(obj.encode() if isinstance(obj, str) else obj)
            self._h.update(b"\x00")
        else:
            self.update(json.dumps(_canonical(obj), sort_keys=True, default=str))
        return self

    def hexdigest(self) -> str:
        return self._h.hexdigest()


def fingerprint_interactions(h: ArrayHasher, x) -> ArrayHasher:
    """Feed an `Interactions` (vocabularies, values, timestamps, kind, scale) into a hasher."""
    return h.update(x.users).update(x.items).update(x.matrix).update(x.timestamps).update([x.kind, x.scale])


@dataclass
class Store:
    """The artefact store of one output folder; `since_ns` = start of the current run; `damaged` = artefacts found
    damaged (relative paths with the reason), which were treated as absent."""

    root: Path
    resume: bool = True
    since_ns: int = field(default_factory=time.time_ns)
    damaged: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.root = Path(self.root)

    @classmethod
    def for_run(cls, root: str | Path, resume: bool) -> Store:
        """The store of a run starting now. `since_ns` is read from the file system's own clock (the mtime of a file
        created now): the kernel stamps files with a coarse clock that can lag `time.time_ns()` by milliseconds,
        so an artefact written right after a wall-clock start could look older than the run and be ignored."""
        root = Path(root)
        try:
            root.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(prefix=".clock.", suffix=".tmp", dir=root)
            os.close(fd)
            since = os.stat(probe).st_mtime_ns
            os.unlink(probe)
        except OSError as e:
            raise write_error(e, root) from None
        return cls(root, resume=resume, since_ns=since)

    def path(self, stage: str, key: str, ext: str) -> Path:
        return self.root / stage / key[:2] / f"{key}.{ext}"

    def _current(self, p: Path) -> bool:
        """The artefact exists and belongs to this run (or to any earlier one, when resuming)."""
        try:
            st = p.stat()
        except FileNotFoundError:
            return False
        return self.resume or st.st_mtime_ns >= self.since_ns

    def _read(self, stage: str, key: str, ext: str) -> bytes | None:
        """The bytes of a finished artefact whose checksum record matches, else None (damage is recorded)."""
        p = self.path(stage, key, ext)
        if not self._current(p):
            return None
        try:
            data = p.read_bytes()
            record = _record(p).read_text("ascii").strip()
        except FileNotFoundError:
            self._damage(p, "no checksum record")
            return None
        except (OSError, UnicodeDecodeError) as e:
            self._damage(p, f"unreadable: {e}")
            return None
        if hashlib.sha256(data).hexdigest() != record:
            self._damage(p, "checksum mismatch")
            return None
        return data

    def _damage(self, p: Path, reason: str) -> None:
        self.damaged.append(f"{p.relative_to(self.root)} ({reason})")

    def has(self, stage: str, key: str, ext: str) -> bool:
        return self._read(stage, key, ext) is not None

    def _write(self, stage: str, key: str, ext: str, data: bytes) -> None:
        """The checksum record first, then the artefact (each atomically): an artefact file never exists without
        its record, so a run killed in between leaves no artefact (a record alone is ignored and overwritten)."""
        p = self.path(stage, key, ext)
        write_bytes(_record(p), (hashlib.sha256(data).hexdigest() + "\n").encode())
        write_bytes(p, data)

    def remove_partial(self) -> int:
        """Delete temporary files left by an interrupted run (atomic-write leftovers); returns how many."""
        n = 0
        if self.root.is_dir():
            for p in self.root.rglob(".*.tmp"):
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()
                    n += 1
        return n

    # arrays ---------------------------------------------------------------------------------------
    def save_arrays(self, stage: str, key: str, arrays: dict[str, np.ndarray]) -> None:
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        self._write(stage, key, "npz", buf.getvalue())

    def load_arrays(self, stage: str, key: str) -> dict[str, np.ndarray] | None:
        """The arrays of a finished artefact, or None (absent, stale, damaged or unreadable)."""
        data = self._read(stage, key, "npz")
        if data is None:
            return None
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
            self._damage(self.path(stage, key, "npz"), f"unreadable: {e}")
            return None

    def save_rankings(self, stage: str, key: str, rankings: Rankings) -> None:
        self.save_arrays(stage, key, {"users": rankings.users, "items": rankings.items, "scores": rankings.scores})

    def load_rankings(self, stage: str, key: str, user_vocab: Vocab, item_vocab: Vocab) -> Rankings | None:
        a = self.load_arrays(stage, key)
        if a is None:
            return None
        return Rankings(a["users"].astype(np.int64), a["items"].astype(np.int64), a["scores"], user_vocab, item_vocab)

    # frames ---------------------------------------------------------------------------------------
    def save_frame(self, stage: str, key: str, frame: pd.DataFrame) -> None:
        self._write(stage, key, "parquet", frame_bytes(frame))

    def load_frame(self, stage: str, key: str) -> pd.DataFrame | None:
        data = self._read(stage, key, "parquet")
        if data is None:
            return None
        try:
            return pd.read_parquet(io.BytesIO(data))
        except (OSError, ValueError) as e:
            self._damage(self.path(stage, key, "parquet"), f"unreadable: {e}")
            return None

    # json -----------------------------------------------------------------------------------------
    def save_json(self, stage: str, key: str, obj: Any) -> None:
        self._write(stage, key, "json", json_bytes(obj))

    def load_json(self, stage: str, key: str) -> Any | None:
        data = self._read(stage, key, "json")
        if data is None:
            return None
        try:
            return json.loads(data.decode("utf-8"))
        except ValueError as e:
            self._damage(self.path(stage, key, "json"), f"unreadable: {e}")
            return None


def _record(p: Path) -> Path:
    """The checksum record of artefact `p`."""
    return p.with_name(p.name + ".sha256")


def json_bytes(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n").encode("utf-8")


def frame_bytes(frame: pd.DataFrame) -> bytes:
    """A DataFrame as Parquet bytes (no index)."""
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def write_json(path: str | Path, obj: Any) -> None:
    write_bytes(path, json_bytes(obj))


def write_frame(path: str | Path, frame: pd.DataFrame) -> None:
    """Atomically write a DataFrame as Parquet."""
    write_bytes(path, frame_bytes(frame))


__all__ = ["ArrayHasher", "Store", "fingerprint_interactions", "frame_bytes", "hash_config", "json_bytes",
           "write_frame", "write_json"]
