"""Writing a fixed file back: atomically, only over what was read, only where the file may be written.

The new text goes to a temporary file next to the original, with the original's mode and owner,
flushed to disk, then renamed over it: an interruption leaves the old file or the new one, never
a mix. Just before the rename the file is read again, under an exclusive lock that another
``torchdevice fix`` takes too: if it no longer holds what was read (an editor saved it, another
run fixed it first), nothing is written. A file without write permission is not rewritten, even
by root, and neither is one whose owner the rename would change.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; the content check stands alone
    fcntl = None  # type: ignore[assignment]


class ChangedSinceRead(Exception):
    """The file no longer holds the bytes that were read and fixed."""


class NotWritable(PermissionError):
    """The file's permissions or owner forbid rewriting it."""


def write_back(path: Path, original: bytes, data: bytes) -> None:
    """Replace the file at ``path``, which held ``original`` when it was read, with ``data``.

    A symbolic link stays a link: the file it points to is replaced. Raises ChangedSinceRead,
    NotWritable, or the OSError that stopped the write; the file is then as it was.
    """
    target = Path(os.path.realpath(path))
    status = os.stat(target)
    if not _may_write(target, status):
        raise NotWritable("the file is read-only")
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as file:
            _take_owner_and_mode(temporary, status)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        with _locked(target) as current:
            if not _still_holds(target, current, original):
                raise ChangedSinceRead("it changed since it was read")
            os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _may_write(target: Path, status: os.stat_result) -> bool:
    """Write permission for this user, and a write bit set: root may write anything, but a file
    nobody may write says "leave me alone"."""
    return os.access(target, os.W_OK) and bool(status.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _take_owner_and_mode(temporary: str, status: os.stat_result) -> None:
    """The temporary file gets the original's owner and group (before its mode: a change of owner
    clears the set-user-ID bit), or the write stops."""
    mine = os.stat(temporary)
    if (mine.st_uid, mine.st_gid) != (status.st_uid, status.st_gid):
        try:
            os.chown(temporary, status.st_uid, status.st_gid)
        except PermissionError:
            raise NotWritable(
                f"it belongs to user {status.st_uid}, group {status.st_gid}; rewriting it would change that"
            ) from None
    os.chmod(temporary, stat.S_IMODE(status.st_mode))


@contextlib.contextmanager
def _locked(target: Path) -> Iterator[int]:
    """The file as it is now, open and exclusively locked (advisory: other fix runs wait on it)."""
    descriptor = os.open(target, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield descriptor
    finally:
        os.close(descriptor)  # releases the lock


def _still_holds(target: Path, descriptor: int, original: bytes) -> bool:
    """The path still names the locked file (not one renamed over it meanwhile) and it holds ``original``."""
    locked, named = os.fstat(descriptor), os.stat(target)
    if (locked.st_dev, locked.st_ino) != (named.st_dev, named.st_ino) or locked.st_size != len(original):
        return False
    with os.fdopen(os.dup(descriptor), "rb") as file:
        return file.read(len(original) + 1) == original
