"""The first stage of every reader: a file's bytes and its lines.

`read_source` returns a file's bytes: gzip-compressed files are decompressed (recognised by their magic
number, whatever their name), a UTF-8 byte-order mark is stripped, and every way the operating system can
refuse a file (missing, a directory, no permission, a symlink loop, ...) becomes one `DataError` naming it.
`iter_source` does the same in blocks of whole lines, for logs too large to hold in memory.

`split_lines` turns the text into what the parser sees — data lines only, one delimiter between fields — and
the 1-based line number of each of them in the file (blank lines, comment lines and the header counted), so
that every later check can name the line. All of it is vectorised over the bytes with numpy; the common case
(no blank line, no comment, one delimiter) costs a few `bytes.find` calls and no copy.
"""

from __future__ import annotations

import errno
import gzip
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recdiv.errors import DataError

BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"
NL, CR, TAB, SPACE, HASH = 10, 13, 9, 32, 35


def os_problem(e: OSError) -> str:
    """The short, user-facing reason an OS error gives for not reading a file."""
    if isinstance(e, FileNotFoundError):
        return "file not found"
    if isinstance(e, IsADirectoryError):
        return "is a directory, expected a file"
    if isinstance(e, PermissionError):
        return "permission denied (cannot read the file)"
    if e.errno == errno.ELOOP:
        return "too many levels of symbolic links (a symlink loop?)"
    return f"cannot read the file: {e.strerror or e}"


def optional_file(path: str | Path) -> bool:
    """Whether an optional file of a dataset is there (a loader then reads it): False when there is no such name;
    a DataError — never a silent skip — when the name is there but is no readable file: a broken symbolic link, a
    folder, a symlink loop."""
    path = Path(path)
    if path.is_file():
        return True
    if path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        why = ("too many levels of symbolic links (a symlink loop?)" if _loops(path) else
               f"a broken symbolic link (to {target}, which does not exist)")
        raise DataError(f"{why}: fix the link or remove it", path)
    if path.exists():
        raise DataError("is not a regular file (a folder?); expected a data file or nothing", path)
    return False


def _loops(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as e:
        return e.errno == errno.ELOOP
    return False


def _open(path: Path):
    try:
        fh = open(path, "rb")
        if path.is_dir():  # some systems open directories for reading
            fh.close()
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
        return fh
    except OSError as e:
        raise DataError(os_problem(e), path) from None


def _check_start(head: bytes, path: Path) -> bytes:
    """Strip a UTF-8 byte-order mark; refuse UTF-16/32 text (recdiv reads UTF-8, and latin-1 where declared)."""
    if head.startswith(BOM):
        return head[len(BOM):]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError("UTF-16 text (it starts with a UTF-16 byte-order mark); save the file as UTF-8", path, 1)
    return head


def read_source(path: str | Path) -> bytes:
    """All bytes of `path` (gunzipped when compressed, without a leading UTF-8 byte-order mark)."""
    path = Path(path)
    with _open(path) as fh:
        try:
            raw = fh.read()
        except OSError as e:
            raise DataError(os_problem(e), path) from None
    if raw.startswith(GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise DataError(f"not a valid gzip file ({e})", path) from None
    return _check_start(raw, path)


def iter_source(path: str | Path, block: int = 64 << 20) -> Iterator[bytes]:
    """The bytes of `path` (as `read_source`) in blocks of about `block` bytes, each ending at a line end."""
    path = Path(path)
    fh = _open(path)
    with fh:
        try:
            magic = fh.read(2)
            fh.seek(0)
        except OSError as e:
            raise DataError(os_problem(e), path) from None
        stream = gzip.GzipFile(fileobj=fh) if magic == GZIP_MAGIC else fh
        rest, first = b"", True
        while True:
            try:
                chunk = stream.read(block)
            except (OSError, EOFError, zlib.error) as e:
                raise DataError(f"cannot read the file ({e})", path) from None
            if first:
                chunk, first = _check_start(chunk, path), False
            if not chunk:
                if rest:
                    yield rest
                return
            data = rest + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            rest = data[cut:]
            yield data[:cut]


def line_at(data: bytes, offset: int, first_line: int = 1) -> int:
    """1-based line number of byte `offset` of `data` (lines end at \\n)."""
    return first_line + data.count(b"\n", 0, offset)


def check_bytes(data: bytes, path: Path, first_line: int = 1, utf8: bool = True) -> None:
    """NUL bytes (binary data, UTF-16 text) and byte-order marks inside a UTF-8 file (files concatenated with
    their marks) are errors at their line."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise DataError("NUL byte in the text (a binary file, or UTF-16 text?)", path, line_at(data, nul, first_line))
    if utf8 and b"\xef" in data:  # one-byte scan first: the three-byte search is ten times slower
        bom = data.find(BOM)
        if bom >= 0:
            raise DataError("a byte-order mark inside the file (files concatenated with their marks?)", path,
                            line_at(data, bom, first_line))


def lone_cr_to_nl(data: bytes) -> bytes:
    """Old Mac line ends: a carriage return not followed by a newline ends a line, as in Python and pyarrow."""
    if b"\r" not in data:
        return data
    b = np.frombuffer(data, dtype=np.uint8)
    cr = np.flatnonzero(b == CR)
    nxt = np.minimum(cr + 1, len(b) - 1)
    lone = cr[(cr + 1 == len(b)) | (b[nxt] != NL)]
    if len(lone) == 0:
        return data
    out = b.copy()
    out[lone] = NL
    return out.tobytes()


@dataclass
class TextLines:
    """What the parser reads: `data` (data lines only, fields separated by one delimiter) and `lineno`, each data
    line's 1-based number in the file."""

    data: bytes
    lineno: np.ndarray


def line_bounds(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive, before the newline) of every line of b."""
    nl = np.flatnonzero(b == NL)
    starts = np.concatenate(([0], nl + 1))
    ends = np.concatenate((nl, [len(b)]))
    if starts[-1] == len(b):  # the text ends with a newline: no empty last line
        starts, ends = starts[:-1], ends[:-1]
    return starts, ends


def _squeeze_whitespace(b: np.ndarray) -> np.ndarray:
    """Runs of spaces and tabs -> one space; none at the start or end of a line (a carriage return before the
    newline is kept)."""
    ws = (b == SPACE) | (b == TAB)
    prev_ws = np.concatenate(([False], ws[:-1]))
    c = np.where(ws, SPACE, b).astype(np.uint8)[~ws | ~prev_ws]
    sp = c == SPACE
    after = np.concatenate((c[1:], [NL]))
    before = np.concatenate(([NL], c[:-1]))
    drop = sp & ((before == NL) | (after == NL) | (after == CR))
    return c[~drop]


def cut_header(data: bytes, first_line: int = 1) -> tuple[str, bytes, int]:
    """(first line's text, the rest, the rest's first line number)."""
    cut = data.find(b"\n") + 1 or len(data)
    return data[:cut].rstrip(b"\r\n").decode("utf-8", errors="replace"), data[cut:], first_line + 1


def regular_lines(data: bytes, *, comments: bool = False, whitespace: bool = False) -> bytes | None:
    """The delimiter of a file that may need no line model at all (no comment line, one kind of whitespace), or
    None. Costs a few single-byte scans; blank lines and whitespace runs are caught by the parser afterwards."""
    if comments and b"#" in data:
        return None
    if not whitespace:
        return b"\t"
    has_tab = b"\t" in data
    if has_tab and b" " in data:
        return None
    return b"\t" if has_tab else b" "


def split_lines(data: bytes, *, comments: bool = False, whitespace: bool = False, first_line: int = 1) -> TextLines:
    """The data lines of `data` for the parser, and their line numbers.

    Blank lines are dropped. `whitespace`: runs of spaces and tabs become one space (none at the ends of a line).
    `comments`: lines whose first non-blank character is `#` are dropped. Line numbers start at `first_line`.
    """
    b = np.frombuffer(lone_cr_to_nl(data), dtype=np.uint8)
    if whitespace:
        b = _squeeze_whitespace(b)
    starts, ends = line_bounds(b)
    length = ends - starts
    first = b[np.minimum(starts, len(b) - 1)] if len(b) else np.zeros(0, np.uint8)
    keep = ~((length == 0) | ((length == 1) & (first == CR)))
    if comments:
        keep &= first != HASH
    lineno = np.flatnonzero(keep).astype(np.int64) + first_line
    if keep.all():
        return TextLines(b.tobytes(), lineno)
    span = np.diff(np.concatenate((starts, [len(b)])))  # every byte of a kept line, its newline included
    return TextLines(b[np.repeat(keep, span)].tobytes(), lineno)
