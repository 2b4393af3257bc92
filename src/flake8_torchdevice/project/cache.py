"""The result cache: what a front end reported for a file, found again by the file's content.

A warm run of an unchanged project reads one small JSON file per file instead of parsing and
analysing it. The key is a sha256 of everything the result depends on: the file's bytes, the tool
itself (the source of this package, which holds the rules and the torch knowledge, and the libcst
and Python versions), the settings, the selected codes, what the front end stores (``form``) and
the project facts the caller passes (``context``). Nothing is ever invalidated in place: a changed
input is a different key, and entries nobody read for about 30 days are pruned.

Layout, as ruff's: ``<dir>/CACHEDIR.TAG``, ``<dir>/.gitignore`` (``*``) and one JSON file per entry
at ``<dir>/v<FORMAT>/results/<2 hex>/<key>.json``. An entry is written to a temporary file in its
own folder and renamed over the target, so a reader sees a whole entry or none, and runs writing
the same key at once leave one valid entry. A missing, truncated, corrupt or foreign entry is a
miss, never an error. Entries are plain JSON, never pickle: reading the cache never runs code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..reports import Report
from ..settings import Settings

CACHE_DIR_NAME = ".torchdevice_cache"
ENVIRONMENT_VARIABLE = "TORCHDEVICE_CACHE_DIR"
# Bumped when the layout or an entry's shape changes: older entries are then never read.
FORMAT = 2
TOOL = "flake8-torchdevice"
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by flake8-torchdevice.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
PRUNE_AFTER_SECONDS = 30 * 24 * 3600
PRUNE_EVERY_SECONDS = 24 * 3600
# An entry holds a file's findings: far smaller than this. A larger file there is not ours.
_LARGEST_ENTRY = 64 << 20
_PACKAGE = Path(__file__).resolve().parent.parent


@functools.cache
def tool_identity() -> str:
    """A hash of this package's own source files, libcst's version and Python's: any change to the
    rules, the analysis or the torch knowledge, or an upgrade below them, gives new keys.

    Computed once per process; hashing the package's source costs a few milliseconds."""
    digest = hashlib.sha256()
    try:
        for path in sorted(_PACKAGE.rglob("*.py")):
            digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        # Our own code cannot be read back: no key may then match an entry written by other code.
        digest.update(os.urandom(16))
    python = f"{sys.implementation.name} {sys.version_info.major}.{sys.version_info.minor}"
    digest.update(f"libcst {_libcst_version()}; {python}".encode())
    return digest.hexdigest()


def _libcst_version() -> str:
    """The ``_version.py`` libcst's build writes (its version and commit), found without importing
    libcst (which a warm run never does) or ``importlib.metadata`` (30 ms, a tenth of a warm run);
    the version in its metadata where there is no such file."""
    spec = importlib.util.find_spec("libcst")
    if spec is not None and spec.origin is not None:
        with contextlib.suppress(OSError):
            return (Path(spec.origin).parent / "_version.py").read_text(encoding="utf-8", errors="replace")
    from importlib import metadata

    try:
        return metadata.version("libcst")
    except metadata.PackageNotFoundError:
        return "unknown"


def stable_repr(value: object) -> str:
    """``repr``, but the same in every process: sets sorted, dataclasses field by field."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = (f"{field.name}={stable_repr(getattr(value, field.name))}" for field in dataclasses.fields(value))
        return f"{type(value).__name__}({', '.join(parts)})"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(stable_repr(item) for item in value)) + "}"
    if isinstance(value, (tuple, list)):  # which may hold sets
        return "(" + ", ".join(stable_repr(item) for item in value) + ")"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return repr(value)


def result_key(data: bytes, settings: Settings, codes: Iterable[str], context: str = "", form: str = "") -> str:
    """The entry of a file holding ``data``, checked with ``settings`` and ``codes``.

    ``context`` holds what the result reads beyond the file (project facts; "" for a file checked
    alone). ``form`` says what the entry holds: each front end stores its own form of a result."""
    header = json.dumps([FORMAT, tool_identity(), _settings_text(settings), sorted(set(codes)), form, context])
    # JSON escapes a NUL, so the first NUL ends the header: no header and data run into each other.
    return hashlib.sha256(header.encode() + b"\0" + data).hexdigest()


@functools.lru_cache(maxsize=1024)
def _settings_text(settings: Settings) -> str:
    """``stable_repr`` of settings, once per distinct settings: the files of a package share theirs,
    and a warm run spends more on writing them out than on anything else it does per file. Equal
    settings (frozen, field by field) write out the same."""
    return stable_repr(settings)


def directory_from_environment(environ: Mapping[str, str] = os.environ) -> Path | None:
    value = environ.get(ENVIRONMENT_VARIABLE, "").strip()
    return Path(value).expanduser() if value else None


@dataclass(frozen=True)
class ResultCache:
    """The entries under ``directory`` (a ``.torchdevice_cache`` folder), which is made on the first store."""

    directory: Path

    @property
    def _results(self) -> Path:
        return self.directory / f"v{FORMAT}" / "results"

    def _entry(self, key: str) -> Path:
        return self._results / key[:2] / f"{key}.json"

    def load(self, key: str, path: str) -> list[Report] | None:
        """The reports stored under ``key``, as reports on ``path``; None for a miss of any kind."""
        entry = self._entry(key)
        try:
            with entry.open("rb") as file:
                status = os.fstat(file.fileno())
                # Sized first: read(n) would reserve n bytes, more than a worker's memory cap allows.
                data = file.read() if status.st_size <= _LARGEST_ENTRY else b""
        except (OSError, ValueError, MemoryError):
            return None
        reports = decoded(data, key, path)
        if reports is not None and status.st_mtime < time.time() - PRUNE_EVERY_SECONDS:
            # Read again: a fresh time keeps the entry from pruning. At most once a day, to write little.
            with contextlib.suppress(OSError):
                os.utime(entry)
        return reports

    def store(self, key: str, reports: Sequence[Report]) -> None:
        """Keep ``reports`` under ``key``; a cache that cannot be written is silently left alone."""
        entry = self._entry(key)
        with contextlib.suppress(OSError, ValueError):
            make_cache_directory(self.directory)
            entry.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(entry, encoded(key, reports))

    def prune(self, now: float | None = None) -> int:
        """Removes the entries not read for about 30 days, at most once a day; how many it removed."""
        now = time.time() if now is None else now
        marker = self.directory / f"v{FORMAT}" / "last-pruned"
        try:
            if marker.stat().st_mtime > now - PRUNE_EVERY_SECONDS:
                return 0
        except OSError:
            if not self._results.is_dir():
                return 0  # nothing stored yet, and no marker to write
        with contextlib.suppress(OSError):
            marker.touch()
            os.utime(marker, (now, now))
        return sum(_remove_older_than(shard, now - PRUNE_AFTER_SECONDS) for shard in _folders(self._results))


def make_cache_directory(directory: Path) -> None:
    """Made with its tags; a folder that exists is left as it is (``--cache-dir .`` must not
    write a ``.gitignore`` of ``*`` into a project)."""
    if directory.is_dir():
        return
    try:
        directory.mkdir(parents=True)
    except FileExistsError:
        return  # another run made it a moment ago, and tags it
    # Backup and search tools skip a folder tagged so; git ignores everything in it.
    write_atomically(directory / ".gitignore", "*\n")
    write_atomically(directory / "CACHEDIR.TAG", CACHEDIR_TAG)


def encoded(key: str, reports: Sequence[Report]) -> str:
    rows = [
        [report.cell, report.line, report.column, report.code, report.message, report.fix, report.confidence]
        for report in reports
    ]
    return json.dumps({"tool": TOOL, "key": key, "reports": rows})


def decoded(data: bytes, key: str, path: str) -> list[Report] | None:
    """The reports of an entry that is whole, ours and of this key; None for anything else."""
    try:
        entry = json.loads(data)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the parser
        return None
    if not isinstance(entry, dict) or entry.get("tool") != TOOL or entry.get("key") != key:
        return None
    rows = entry.get("reports")
    if not isinstance(rows, list) or not all(_is_report_row(row) for row in rows):
        return None
    return [Report(path, *row) for row in rows]


def _is_report_row(row: Any) -> bool:
    """``[cell, line, column, code, message, fix, confidence]`` with the types ``Report`` holds."""
    if not isinstance(row, list) or len(row) != 7:
        return False
    cell, line, column, code, message, fix, confidence = row
    return (
        (cell is None or type(cell) is int)  # bool is an int: not a cell number
        and type(line) is int
        and type(column) is int
        and all(isinstance(text, str) for text in (code, message, confidence))
        and (fix is None or isinstance(fix, str))
    )


def write_atomically(path: Path, text: str) -> None:
    """A reader sees the old file or the new one. Not flushed to disk: a lost entry is only a miss."""
    import tempfile  # with shutil, bz2, lzma and random: a warm run, which writes nothing, does without

    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _folders(directory: Path) -> list[Path]:
    try:
        with os.scandir(directory) as items:
            return [Path(item.path) for item in items if item.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _remove_older_than(folder: Path, oldest: float) -> int:
    """Entries, and temporary files a killed run left, last written or read before ``oldest``."""
    removed = 0
    with contextlib.suppress(OSError), os.scandir(folder) as items:
        for item in items:
            with contextlib.suppress(OSError):
                if item.is_file(follow_symlinks=False) and item.stat(follow_symlinks=False).st_mtime < oldest:
                    os.unlink(item.path)
                    removed += 1
    return removed
