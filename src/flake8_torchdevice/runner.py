"""Linting and fixing files for the command: read, run the engine, map positions back, write atomically.

Every file goes through the same engine as the flake8 plugin (``lint_source`` / ``fix_source``);
this module only reads files (Python source in its declared encoding, notebooks as virtual
modules), turns diagnostics into per-file reports, and spreads the files over processes.
"""

from __future__ import annotations

import ast
import difflib
import io
import os
import sys
import tempfile
import time
import tokenize
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TextIO

from .engine import Diagnostic, lint_source, unanalysable
from .fixes import fix_source
from .noqa import silencer
from .notebooks import NotANotebook, Notebook, parse_notebook, physical_lines
from .reports import Report
from .rules import Rule
from .settings import Settings

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 20


@dataclass
class FileResult:
    path: str
    reports: list[Report] = field(default_factory=list)
    fixed: int = 0  # fixes applied (or, with --diff, that would be)
    diff: str = ""
    note: str | None = None  # why fixes were left out of this file
    error: str | None = None  # the file could not be read or written


@dataclass(frozen=True)
class FixMode:
    unsafe: bool = False
    write: bool = True  # False for --diff: compute the diff, write nothing


@dataclass(frozen=True)
class RunOptions:
    settings: Settings
    rules: tuple[type[Rule], ...]
    codes: frozenset[str]
    fix: FixMode | None = None


@dataclass(frozen=True)
class _PythonFile:
    text: str
    encoding: str

    @property
    def source(self) -> str:
        return self.text

    def locate(self, line: int) -> tuple[int | None, int]:
        return None, line

    def rewritten(self, fixed_source: str) -> str | None:
        return fixed_source


_Document = _PythonFile | Notebook


class _Unreadable(ValueError):
    """The file's bytes are not text this command can analyse."""


def default_jobs(file_count: int) -> int:
    return (os.cpu_count() or 1) if file_count > PARALLEL_THRESHOLD else 1


def run(
    paths: Sequence[Path], options: RunOptions, jobs: int, progress: Callable[[], None] | None = None
) -> list[FileResult]:
    """One result per path, in the order given, whether the files ran in this process or in workers."""
    work = partial(process_file, options=options)
    if jobs <= 1 or len(paths) <= 1:
        return _collect(map(work, paths), progress)
    # Largest files first, one at a time: the last file to finish is then a small one, and the
    # workers end together (path-order batches left one worker alone with the biggest files).
    order = sorted(range(len(paths)), key=lambda index: _size(paths[index]), reverse=True)
    with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
        futures = {index: pool.submit(work, paths[index]) for index in order}
        results = _collect((futures[index].result() for index in order), progress)
    by_index = dict(zip(order, results))
    return [by_index[index] for index in range(len(paths))]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _collect(results: Iterable[FileResult], progress: Callable[[], None] | None) -> list[FileResult]:
    collected = []
    for result in results:
        collected.append(result)
        if progress is not None:
            progress()
    return collected


def process_file(path: Path, options: RunOptions) -> FileResult:
    display = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileResult(display, error=f"cannot read: {error.strerror or error}")
    try:
        document = _read_document(path, data)
    except _Unreadable as error:
        return FileResult(display, _unanalysable(display, str(error), options))
    if options.fix is None:
        return FileResult(display, _lint(display, document, options))
    return _fix(path, display, document, options, options.fix)


def _read_document(path: Path, data: bytes) -> _Document:
    if path.suffix == ".ipynb":
        try:
            return parse_notebook(data.decode("utf-8"))
        except (UnicodeDecodeError, NotANotebook) as error:
            raise _Unreadable(f"not a readable notebook: {error}") from error
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return _PythonFile(data.decode(encoding), encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise _Unreadable(f"cannot decode it: {error}") from error


def _lint(display: str, document: _Document, options: RunOptions) -> list[Report]:
    return _reports(display, document, lint_source(document.source, options.settings, options.rules), options)


def _reports(display: str, document: _Document, diagnostics: Sequence[Diagnostic], options: RunOptions) -> list[Report]:
    silenced = silencer(document.source)
    return [
        _report(display, *document.locate(diagnostic.line), diagnostic)
        for diagnostic in diagnostics
        if diagnostic.code in options.codes and not silenced(diagnostic)
    ]


def _unanalysable(display: str, reason: str, options: RunOptions) -> list[Report]:
    """The engine's TDV900 for a file that never reached it (unreadable text), when TDV900 is selected."""
    diagnostic = unanalysable(reason)
    return [_report(display, None, diagnostic.line, diagnostic)] if diagnostic.code in options.codes else []


def _report(display: str, cell: int | None, line: int, diagnostic: Diagnostic) -> Report:
    column = diagnostic.column + 1
    return Report(display, cell, line, column, diagnostic.code, diagnostic.message, diagnostic.fix)


def _fix(path: Path, display: str, document: _Document, options: RunOptions, mode: FixMode) -> FileResult:
    outcome = fix_source(document.source, options.settings, options.rules, unsafe=mode.unsafe)
    if outcome.source == document.source:
        return FileResult(display, _reports(display, document, outcome.remaining, options))
    text = document.rewritten(outcome.source)
    if text is None or _breaks_python(document.source, outcome.source):
        reason = "the fixed code would not parse" if text else "the notebook cannot be rewritten without other changes"
        return FileResult(display, _lint(display, document, options), note=f"fixes left out: {reason}")
    data = text.encode(document.encoding if isinstance(document, _PythonFile) else "utf-8")
    result = FileResult(display, _lint(display, _read_document(path, data), options), fixed=outcome.applied)
    if not mode.write:
        result.diff = unified_diff(document.text, text, display)
        return result
    try:
        write_atomically(path, data)
    except OSError as error:
        return FileResult(display, _lint(display, document, options), error=f"cannot write: {error}")
    return result


def _breaks_python(before: str, after: str) -> bool:
    """A defensive check behind fix_source's own: Python parsed the code before the fix and not after."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences and the like
        try:
            ast.parse(before)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        try:
            ast.parse(after)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return True
    return False


def write_atomically(path: Path, data: bytes) -> None:
    """Write a temporary file next to ``path``, flush it to disk, then rename it over ``path``.

    An interruption at any point leaves either the old file or the new one, never a mix. A symbolic
    link stays a link: the file it points to is replaced.
    """
    target = Path(os.path.realpath(path))
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, target.stat().st_mode & 0o7777)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def unified_diff(before: str, after: str, display: str) -> str:
    lines = difflib.unified_diff(physical_lines(before), physical_lines(after), fromfile=display, tofile=display)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


class ProgressBar:
    """A one-line bar on a terminal's stderr, for long runs only; silent in CI and when piped."""

    MINIMUM_FILES = 200
    _WIDTH = 30

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self._total = total
        self._stream = stream or sys.stderr
        self._done = 0
        self._drawn_at = 0.0

    @classmethod
    def wanted(cls, total: int, stream: TextIO | None = None) -> bool:
        terminal = (stream or sys.stderr).isatty()
        return total > cls.MINIMUM_FILES and terminal and not os.environ.get("CI")

    def advance(self) -> None:
        self._done += 1
        now = time.monotonic()
        if now - self._drawn_at >= 0.1 or self._done == self._total:
            self._drawn_at = now
            filled = self._WIDTH * self._done // self._total
            bar = "#" * filled + "." * (self._WIDTH - filled)
            self._stream.write(f"\r[{bar}] {self._done}/{self._total} files")
            self._stream.flush()

    def close(self) -> None:
        self._stream.write("\r" + " " * (self._WIDTH + 30) + "\r")
        self._stream.flush()
