"""Source files read safely and decoded as Python decodes them, for both front ends.

Reading: regular files only (a FIFO named ``x.py`` would block the run forever, a link to
``/dev/zero`` would never end), and never more than the memory budget allows, checked on the
open file before a byte is read and again while reading (a file may grow; ``/proc`` files report
no size).

The memory budget: libcst holds the whole tree of a file in memory, and a file too large for the
machine aborted the process (a 4.4 MB file needed 3.6 GB; a 50 MB one died with "memory
allocation failed"). Measured with libcst 1.9 on Python 3.11, the tree and the analysis take
0.7-1.4 KiB per byte of typical source and up to 4 KiB per byte for the densest code (thousands
of one-name statements); a notebook's JSON takes under 6 bytes per byte. A file larger than the
budget allows, at the typical rate with room to spare, is not analysed: one TDV900 line.

Decoding: as Python reads a module (PEP 263 coding cookie, UTF-8 otherwise, a byte-order mark
allowed). Python refuses a file that is neither, and so does the linter, in both front ends:
flake8 would read it as Latin-1 and lint text that Python never runs.
"""

from __future__ import annotations

import io
import os
import stat
import tokenize
from pathlib import Path

MIB = 1 << 20
DEFAULT_MEMORY_BUDGET_MIB = 4096
# Bytes of memory to allow per byte of a file: libcst's tree (typical code takes 0.7-1.4 KiB;
# denser code may exceed this, and a worker process stops it at the budget), and a notebook's JSON.
PYTHON_MEMORY_PER_BYTE = 2048
NOTEBOOK_MEMORY_PER_BYTE = 16

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


class NotARegularFile(OSError):
    """A FIFO, a device, a socket: something that is not a file's bytes."""


class TooLarge(ValueError):
    """More bytes than the memory budget allows."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"{size} bytes, more than {limit}")
        self.size = size
        self.limit = limit


class Undecodable(ValueError):
    """Bytes that Python would not read as source code."""


def largest_file(budget_mib: int, memory_per_byte: int = PYTHON_MEMORY_PER_BYTE) -> int:
    """The most bytes a file may have to be analysed within a budget of ``budget_mib`` MiB."""
    return budget_mib * MIB // memory_per_byte


def too_large_reason(size: int, limit: int, budget_mib: int) -> str:
    """What a TDV900 says about a file of ``size`` bytes (characters, for text) over the ``limit``."""
    return (
        f"{_amount(size)}, more than the {_amount(limit)} that a memory budget of {budget_mib} MiB allows; "
        "raise the budget to analyse it"
    )


def oversized(text: str, budget_mib: int) -> str | None:
    """Why ``text`` is too large to parse within the budget, or None when it fits."""
    limit = largest_file(budget_mib)
    return too_large_reason(len(text), limit, budget_mib) if len(text) > limit else None


def read_limited(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, if it holds at most ``limit`` of them.

    Raises NotARegularFile, TooLarge, or the OSError of opening or reading it. Opened without
    blocking, so that a FIFO is recognised instead of waited on.
    """
    descriptor = os.open(path, _OPEN_FLAGS)
    with os.fdopen(descriptor, "rb") as file:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise NotARegularFile(f"not a regular file ({_kind(status.st_mode)})")
        if status.st_size > limit:
            raise TooLarge(status.st_size, limit)
        data = file.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(len(data), limit)
    return data


def decode_python(data: bytes) -> tuple[str, str]:
    """The text of a Python file and its encoding, as Python reads it; Undecodable otherwise."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise Undecodable(f"cannot decode it: {error}") from error


def refused_by_python(text: str, filename: str | None) -> str | None:
    """Why Python would refuse the file that flake8 read as ``text``, or None when it would not.

    flake8 reads a file it cannot decode as Latin-1 instead, and a UTF-8 "é" and a Latin-1 one
    read alike: only the file's bytes tell, so they are read again when the text is not plain
    ASCII. ``filename`` is None for an editor's buffer on stdin: flake8 decoded that one, or
    stopped. A coding cookie naming no encoding Python knows shows in the text itself.
    """
    try:
        tokenize.detect_encoding(io.BytesIO(_first_two_lines(text).encode(errors="replace")).readline)
    except (SyntaxError, LookupError) as error:
        return f"cannot decode it: {error}"
    if filename is None or text.isascii():
        return None
    try:
        # Four bytes per character at most (and a BOM); anything larger is not what flake8 read.
        decode_python(read_limited(Path(filename), 4 * len(text) + 4))
    except (OSError, TooLarge):
        return None
    except Undecodable as error:
        return str(error)
    return None


def _first_two_lines(text: str) -> str:
    """Where a coding cookie may be (PEP 263), without splitting the whole text."""
    second_end = text.find("\n", text.find("\n") + 1)
    return text if second_end < 0 else text[: second_end + 1]


def _kind(mode: int) -> str:
    kinds = {
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
        stat.S_ISDIR: "a directory",
    }
    return next((name for test, name in kinds.items() if test(mode)), "not a file")


def _amount(size: int) -> str:
    if size >= MIB:
        return f"{size / MIB:.1f} MiB"
    return f"{size / 1024:.0f} KiB" if size >= 1024 else f"{size} bytes"
