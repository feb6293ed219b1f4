"""The first pass of a streamed evaluation: runs and qrels read block by block (`recdiv.data.formats.iter_run`) into
compact arrays partitioned by user in a folder of temporary files, and the vocabularies of every id they hold.

Each id gets a code the first time it is seen (one dictionary per kind, looked up once per distinct id of a
block); user code c goes to partition c mod `n_parts`, so a user's lines of every run and of the qrels are in one
partition whatever order the files come in — sorted or not. Per partition and run the folder holds three columns
(user code int32, item code int32, score float64; the qrels keep grades) appended block after block. Once every
file is read, the vocabularies are the sorted union of all ids, as `recdiv.eval.io.load_inputs` builds them, and
codes map to their dense indices: a partition evaluated later holds exactly the lists and judgments the whole
evaluation would, on the same vocabularies, so every value is the same bit for bit.

The folder is what a cluster's workers read (`recdiv.eval.stream`): `vocab-users.arrow`, `vocab-items.arrow`, the
code → dense index maps and the partitions' columns; nothing else leaves the driver.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from recdiv.data._read import Codes
from recdiv.errors import ConfigError, DataError

#: default `--memory` budget: the peak resident memory a streamed evaluation aims at
DEFAULT_MEMORY = 1 << 30
#: peak bytes per run line while a partition is evaluated (numbers and temporaries of the measures; measured with
#: bench/bench_stream.py on the 10 M-line files: accuracy measures ~110, intent-aware ~150)
BYTES_PER_LINE = 200
#: memory that does not depend on the partition: the interpreter and libraries, the qrels, vocabularies, context
BASE_MEMORY = 200 << 20
#: peak bytes per run line of the in-memory evaluation (`recdiv.eval.io.load_inputs` + `evaluate`: 1.35 GB for
#: 10^7 lines of 5 accuracy measures); above the budget, runs are streamed
IN_MEMORY_BYTES_PER_LINE = 140
#: bytes per line of the temporary partitions (user and item codes, score)
SPILL_BYTES_PER_LINE = 16
#: the fewest run lines a partition gets however small the budget: each partition costs a fixed time to write and
#: to evaluate, which below this size outweighs the memory it saves (about 50 MB of a group's peak; the ids and
#: libraries take more than that at 10^8 lines anyway)
MIN_PART_LINES = 1 << 18
#: rows of the first pass held in memory before they are written to the partitions' files (bytes)
FLUSH_BYTES = 64 << 20
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_memory(text: str | int | float) -> int:
    """Bytes of a memory budget: a number with an optional unit K, M, G or T (powers of 1024; a trailing B or iB is
    allowed): ``"1G"``, ``"512M"``, ``"1.5GB"``. At least 64 MiB."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = float(text)
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", str(text))
        if not m:
            raise ConfigError(f"--memory: expected a size such as 1G or 512M, got {text!r}")
        value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if not math.isfinite(value) or value < 64 << 20:
        raise ConfigError(f"--memory: at least 64M, got {text!r}")
    return int(value)


class Encoder:
    """Codes for the ids of one kind (users or items), in first-seen order."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self._last: tuple[np.ndarray, np.ndarray] | None = None  # (labels, their codes) of the last block

    def encode(self, col: Codes) -> np.ndarray:
        """The code (int32) of every row of a dictionary-encoded column (each distinct label looked up once; a
        block with the very labels of the one before, as the batches of one Parquet row group, not again)."""
        if self._last is not None and self._last[0] is col.labels:
            return self._last[1][col.codes]
        index = self.index
        local = np.fromiter((index.setdefault(x, len(index)) for x in col.labels.tolist()), np.int64,
                            len(col.labels))
        if len(index) >= 2**31:
            raise DataError("more than 2^31 distinct ids")
        local = local.astype(np.int32)
        self._last = (col.labels, local)
        return local[col.codes]

    def labels(self) -> list[str]:
        return list(self.index)


@dataclass
class Folder:
    """The temporary folder of a streamed evaluation: per partition and input, columns appended block by block.
    Appended rows are held in memory up to `FLUSH_BYTES` and then written partition by partition (one open per
    partition and column for many blocks); `flush` writes what is held before the files are read."""

    path: Path
    n_parts: int
    inputs: list[str] = field(default_factory=list)  # "qrels", then the run names
    lines: dict[str, np.ndarray] = field(default_factory=dict)  # input -> lines per partition
    _held: list = field(default_factory=list, repr=False)  # (input, bounds per partition, users, items, values)
    _held_bytes: int = field(default=0, repr=False)

    def file(self, what: str, part: int, column: str) -> Path:
        return self.path / f"{self.inputs.index(what)}-{part}.{column}"

    def append(self, what: str, users: np.ndarray, items: np.ndarray, values: np.ndarray) -> None:
        """Add rows (user codes, item codes, scores or grades) to their partitions."""
        if what not in self.inputs:
            self.inputs.append(what)
            self.lines[what] = np.zeros(self.n_parts, np.int64)
        part = (users % self.n_parts).astype(np.uint16)  # n_parts <= 4096: NumPy's stable sort is a radix sort
        order = np.argsort(part, kind="stable")
        counts = np.bincount(part, minlength=self.n_parts)
        bounds = np.concatenate(([0], np.cumsum(counts)))
        self._held.append((what, bounds, users[order], items[order], np.asarray(values)[order]))
        self.lines[what] += counts
        self._held_bytes += len(users) * SPILL_BYTES_PER_LINE
        if self._held_bytes >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write the rows held in memory to their partitions' files, in the order they were appended."""
        held, self._held, self._held_bytes = self._held, [], 0
        for what in dict.fromkeys(h[0] for h in held):
            pieces = [h for h in held if h[0] == what]
            for p in range(self.n_parts):
                if not any(b[p + 1] > b[p] for _, b, *_ in pieces):
                    continue
                for j, column in ((2, "u"), (3, "i"), (4, "v")):
                    with open(self.file(what, p, column), "ab") as fh:
                        for piece in pieces:
                            b = piece[1]
                            if b[p + 1] > b[p]:
                                piece[j][b[p]:b[p + 1]].tofile(fh)

    def read(self, what: str, part: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(user codes, item codes, values) of one input in one partition (empty arrays when it has none)."""
        if what not in self.inputs or not self.lines[what][part]:
            return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0)
        return (np.fromfile(self.file(what, part, "u"), np.int32), np.fromfile(self.file(what, part, "i"), np.int32),
                np.fromfile(self.file(what, part, "v"), np.float64))


def encoded(tables: Iterator, users: Encoder, items: Encoder) -> Iterator:
    """(table, user codes, item codes) for every table (`prefetched` runs this in its reader's thread, the
    encoders then that thread's alone until it ends)."""
    for table in tables:
        yield table, users.encode(table["user"]), items.encode(table["item"])


def prefetched(blocks: Iterator, depth: int = 1) -> Iterator:
    """The items of `blocks`, produced by a thread of their own (`depth` waiting, one more being read): reading
    and checking the next block (pyarrow and NumPy, mostly without the GIL) overlaps with encoding and writing
    this one. An error of the reader is raised here, at its place in the sequence; closing this generator stops
    the reader."""
    import queue
    import threading

    out: queue.Queue = queue.Queue(depth)
    stop = threading.Event()
    end = object()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                out.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            for item in blocks:
                if not put((item, None)):
                    return
            put((end, None))
        except BaseException as e:  # handed to the consumer, raised there
            put((end, e))

    thread = threading.Thread(target=read, name="recdiv-reader", daemon=True)
    thread.start()
    try:
        while True:
            item, error = out.get()
            if error is not None:
                raise error
            if item is end:
                return
            yield item
    finally:
        stop.set()
        thread.join()
        if hasattr(blocks, "close"):
            blocks.close()  # the reader's files, now that its thread is done


def estimated_lines(source, fmt: str) -> int:
    """About how many rows a run or qrels source holds (its size over the length of its first lines, the Parquet or
    Arrow metadata, a frame's length): what the number of partitions is chosen from."""
    if not isinstance(source, str | Path):
        return len(source) if hasattr(source, "__len__") else 0
    path = Path(source)
    try:
        size = path.stat().st_size
    except OSError:
        return 0
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(path).metadata.num_rows
        except Exception:
            return 0
    if fmt == "arrow":
        return size // 16
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    if head[:2] == b"\x1f\x8b":
        size *= 5  # a gzipped text run: about a fifth of its text
        return size // 40
    lines = max(head.count(b"\n"), 1)
    return size * lines // max(len(head), 1)


def partitions_for(lines: int, memory: int) -> int:
    """How many partitions keep a partition's evaluation within `memory` (at least 1; 4 per needed block so that
    partitions of unequal size still fit), each of at least `MIN_PART_LINES` lines."""
    room = max(memory - BASE_MEMORY, 32 << 20)
    blocks = math.ceil(lines * BYTES_PER_LINE / room)
    return 1 if blocks <= 1 else max(min(4 * blocks, 4096, lines // MIN_PART_LINES), 1)


def block_rows(memory: int) -> int:
    """Rows per block of the first pass within a budget of `memory` bytes: a block and its copies while it is
    encoded and partitioned take about 100 bytes a row, so 2^20 rows (the most) from 1G down, 2^16 at 64M."""
    return int(min(max(memory >> 10, 1 << 16), 1 << 20))


def write_vocab(path: Path, labels) -> None:
    """Ids (the sorted vocabulary) as an Arrow IPC file of one string column."""
    import pyarrow as pa

    table = pa.table({"id": pa.array([str(x) for x in labels], pa.string())})
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def read_vocab(path: Path):
    import pyarrow as pa

    from recdiv.data.vocab import Vocab

    with pa.memory_map(str(path)) as source:
        ids = pa.ipc.open_file(source).read_all().column("id").to_pylist()
    return Vocab(np.array(ids, dtype=object))


def temporary_folder(workdir: str | Path | None) -> Path:
    """A new folder for the partitions, in `workdir` (or the system's temporary folder)."""
    import tempfile

    base = Path(workdir) if workdir is not None else None
    if base is not None:
        base.mkdir(parents=True, exist_ok=True)
    try:
        return Path(tempfile.mkdtemp(prefix="recdiv-stream-", dir=base))
    except OSError as e:
        raise DataError(f"cannot create a temporary folder: {e.strerror or e}", base) from None


def remove_folder(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def free_space(path: Path) -> int:
    """Bytes free for this user in the file system of `path`."""
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


__all__ = ["DEFAULT_MEMORY", "Encoder", "Folder", "block_rows", "encoded", "estimated_lines", "free_space",
           "parse_memory", "partitions_for", "prefetched", "read_vocab", "temporary_folder", "write_vocab"]
