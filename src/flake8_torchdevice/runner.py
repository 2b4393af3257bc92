"""Linting and fixing files for the command: read, run the engine, map positions back, write back.

Every file goes through the same engine as the flake8 plugin (``lint_source`` / ``fix_source``);
this module only reads files (Python source in its declared encoding, notebooks as virtual
modules), turns diagnostics into per-file reports, and spreads the files over processes.

One file never takes down the run: a file that cannot be read, is not a regular file or is too
large for the memory budget (sources.py), one that kills its worker process (workers.py), even a
bug of ours on one file, each gives one line for that file, and the others are linted as usual.
"""

from __future__ import annotations

import ast
import difflib
import os
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeAlias, TypeVar

from .mentions import python_line_name, renamed
from .noqa import silencer
from .project.beliefs import Projects
from .project.cache import ResultCache, result_key
from .reports import Report
from .settings import Settings, in_project
from .sources import (
    DEFAULT_MEMORY_BUDGET_MIB,
    MIB,
    NOTEBOOK_MEMORY_PER_BYTE,
    PYTHON_MEMORY_PER_BYTE,
    TooLarge,
    Undecodable,
    decode_python,
    largest_file,
    oversized,
    read_limited,
    too_large_reason,
)

# What only a file the cache does not answer needs (the engine and the rules, with libcst and the
# analysis; the fixes; notebooks; writing back) and what only a parallel run needs (the workers,
# with multiprocessing) is imported where it is used: a warm run, every file answered by the
# cache, does without them, most of what it would cost.
if TYPE_CHECKING:
    from .engine import Diagnostic
    from .notebooks import Notebook

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 20

_Collected = TypeVar("_Collected")


@dataclass
class FileResult:
    path: str
    reports: list[Report] = field(default_factory=list)
    fixed: int = 0  # fixes applied (or, with --diff, that would be)
    diff: str = ""
    fixed_data: bytes | None = None  # the fixed file, when it is not written back (--diff, standard input)
    note: str | None = None  # why fixes were left out of this file
    error: str | None = None  # the file could not be read or written, or we failed on it


@dataclass(frozen=True)
class FixMode:
    unsafe: bool = False
    write: bool = True  # False for --diff and standard input: the fixed text is returned, not written


@dataclass(frozen=True)
class RunOptions:
    settings: Settings
    # The codes reported; the rules among them run on the files the cache does not answer.
    codes: frozenset[str]
    fix: FixMode | None = None
    memory_budget: int = DEFAULT_MEMORY_BUDGET_MIB  # MiB for one file (sources.py)
    # What each project linted believes about running without CUDA, per package (project/beliefs.py), and
    # what the calls of each file's functions have in common; None where no project was read.
    beliefs: Projects | None = None
    # Where a checked file's reports are kept by content; None when fixing or when turned off.
    cache: ResultCache | None = None
    # Of ``codes``, those run only to be counted (the rules off by default on a run that chose
    # none): a rule among them that fails loses its own findings, never the file's.
    counted: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _PythonFile:
    text: str
    encoding: str

    @property
    def source(self) -> str:
        return self.text

    def locate(self, line: int) -> tuple[int | None, int]:
        return None, line

    def line_name(self, line: int, seen_from: int | None) -> str:
        return python_line_name(line)

    def rewritten(self, fixed_source: str) -> str | None:
        return fixed_source


_Document: TypeAlias = "_PythonFile | Notebook"


class _Unanalysable(ValueError):
    """The file's bytes are not text this command can analyse."""


def default_jobs(file_count: int) -> int:
    return (os.cpu_count() or 1) if file_count > PARALLEL_THRESHOLD else 1


def run(
    paths: Sequence[Path], options: RunOptions, jobs: int, progress: Callable[[], None] | None = None
) -> list[FileResult]:
    """One result per path, in the order given, whether the files ran in this process or in workers.

    In workers, a file that kills its worker gets a TDV900 and the run goes on; each worker may
    use the memory budget on top of what it holds at its start.
    """
    work = partial(checked_file, options=options)
    if jobs <= 1 or len(paths) <= 1:
        return _collect(map(work, paths), progress)
    # Largest files first, one at a time: the last file to finish is then a small one, and the
    # workers end together (path-order batches left one worker alone with the biggest files).
    order = sorted(range(len(paths)), key=lambda index: _size(paths[index]), reverse=True)
    from .workers import run_in_workers

    died = partial(_died, options=options)
    finished = run_in_workers(work, [paths[index] for index in order], jobs, options.memory_budget * MIB, died)
    by_index = dict(_collect(((order[position], result) for position, result in finished), progress))
    return [by_index[index] for index in range(len(paths))]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _collect(results: Iterable[_Collected], progress: Callable[[], None] | None) -> list[_Collected]:
    collected = []
    for result in results:
        collected.append(result)
        if progress is not None:
            progress()
    return collected


def checked_file(path: Path, options: RunOptions) -> FileResult:
    """``process_file``, with an exception it raises (a bug of ours) reported for its file alone."""
    return _checked(str(path), partial(process_file, path, options))


def checked_stdin(data: bytes, name: str, options: RunOptions) -> FileResult:
    """``process_stdin``, with an exception it raises reported as ``checked_file`` reports it."""
    return _checked(name, partial(process_stdin, data, name, options))


def _checked(display: str, work: Callable[[], FileResult]) -> FileResult:
    try:
        return work()
    except Exception:
        return FileResult(display, error="internal error, please report it:\n" + traceback.format_exc().rstrip())


def process_file(path: Path, options: RunOptions) -> FileResult:
    display = str(path)
    try:
        data = read_limited(path, _largest(path, options.memory_budget))
    except TooLarge as error:
        reason = too_large_reason(error.size, error.limit, options.memory_budget)
        return FileResult(display, _unanalysable(display, reason, options))
    except OSError as error:
        return FileResult(display, error=f"cannot read: {error.strerror or error}")
    options = _for_file(path, options)
    if options.cache is None or options.fix is not None:
        return _process(path, display, data, options)
    return _cached(path, display, data, options, options.cache)


def _for_file(path: Path, options: RunOptions) -> RunOptions:
    """The options for one file: the settings with what the project says of it (``in_project``)."""
    if options.beliefs is None:
        return options
    return replace(options, settings=in_project(options.settings, options.beliefs, path))


def _cached(path: Path, display: str, data: bytes, options: RunOptions, cache: ResultCache) -> FileResult:
    """The reports stored for these bytes, or ``_process``'s, then stored. Standard input is never
    cached: an editor sends a new buffer each time, which would only fill the cache."""
    key = result_key(data, options.settings, options.codes, form=_cache_form(path, options))
    reports = cache.load(key, display)
    if reports is not None:
        return FileResult(display, reports)
    result = _process(path, display, data, options)
    cache.store(key, result.reports)
    return result


def _cache_form(path: Path, options: RunOptions) -> str:
    """What a command's entry holds: the reports after ``# noqa``, of a notebook or of Python code,
    within a memory budget (a notebook's code cells can be too large for it)."""
    kind = "notebook" if path.suffix == ".ipynb" else "python"
    return f"command reports, {kind}, memory budget {options.memory_budget} MiB"


def process_stdin(data: bytes, name: str, options: RunOptions) -> FileResult:
    """Standard input, as the file ``name`` shows it (``x.ipynb``: a notebook), linted or fixed;
    fixed, it is never written: the result carries the fixed bytes."""
    path = Path(name)
    limit = _largest(path, options.memory_budget)
    if len(data) > limit:
        return FileResult(name, _unanalysable(name, too_large_reason(len(data), limit, options.memory_budget), options))
    fix = None if options.fix is None else replace(options.fix, write=False)
    return _process(path, name, data, replace(_for_file(path, options), fix=fix))


def _process(path: Path, display: str, data: bytes, options: RunOptions) -> FileResult:
    try:
        document = _read_document(path, data, options.memory_budget)
    except _Unanalysable as error:
        return FileResult(display, _unanalysable(display, str(error), options))
    if options.fix is None:
        return FileResult(display, _lint(display, document, options))
    return _fix(path, display, data, document, options, options.fix)


def _largest(path: Path, budget: int) -> int:
    """The most bytes of this file the budget allows: a notebook's JSON costs far less than code."""
    per_byte = NOTEBOOK_MEMORY_PER_BYTE if path.suffix == ".ipynb" else PYTHON_MEMORY_PER_BYTE
    return largest_file(budget, per_byte)


def _read_document(path: Path, data: bytes, budget: int) -> _Document:
    if path.suffix != ".ipynb":
        try:
            return _PythonFile(*decode_python(data))
        except Undecodable as error:
            raise _Unanalysable(str(error)) from error
    from .notebooks import NotANotebook, parse_notebook

    try:
        notebook = parse_notebook(data.decode("utf-8"))
    except (UnicodeDecodeError, NotANotebook) as error:
        raise _Unanalysable(f"not a readable notebook: {error}") from error
    too_large = oversized(notebook.source, budget)
    if too_large:
        raise _Unanalysable(f"its code cells: {too_large}")
    return notebook


def _died(path: Path, how: str, options: RunOptions) -> FileResult:
    reason = f"the process analysing it {how}: a crash, or more memory than the budget of {options.memory_budget} MiB"
    return FileResult(str(path), _unanalysable(str(path), reason, options))


def _lint(display: str, document: _Document, options: RunOptions) -> list[Report]:
    from .engine import lint_source
    from .rules import selected_rules

    rules, counted = selected_rules(options.codes - options.counted), selected_rules(options.counted)
    diagnostics = lint_source(document.source, options.settings, rules, counted)
    return _reports(display, document, diagnostics, options)


def _reports(display: str, document: _Document, diagnostics: Sequence[Diagnostic], options: RunOptions) -> list[Report]:
    silenced = silencer(document.source)
    return [
        _report(display, document, diagnostic)
        for diagnostic in diagnostics
        if diagnostic.code in options.codes and not silenced(diagnostic)
    ]


def _unanalysable(display: str, reason: str, options: RunOptions) -> list[Report]:
    """The engine's TDV900 for a file that never reached it (unreadable text), when TDV900 is selected."""
    from .engine import unanalysable

    diagnostic = unanalysable(reason)
    return [_report(display, None, diagnostic)] if diagnostic.code in options.codes else []


def _report(display: str, document: _Document | None, diagnostic: Diagnostic) -> Report:
    """The diagnostic where the user looks: a notebook's cell, and lines counted in its cells."""
    cell, line = document.locate(diagnostic.line) if document is not None else (None, diagnostic.line)
    message = diagnostic.message
    if document is not None:
        message = renamed(message, diagnostic.mentions, partial(document.line_name, seen_from=cell))
    column = diagnostic.column + 1
    return Report(display, cell, line, column, diagnostic.code, message, diagnostic.fix, diagnostic.confidence)


def _fix(path: Path, display: str, read: bytes, document: _Document, options: RunOptions, mode: FixMode) -> FileResult:
    """Fix, and write back if the file still holds the bytes ``read``."""
    from .fixes import fix_source
    from .rules import selected_rules
    from .writing import ChangedSinceRead, write_back

    outcome = fix_source(document.source, options.settings, selected_rules(options.codes), unsafe=mode.unsafe)
    if outcome.source == document.source:
        return FileResult(display, _reports(display, document, outcome.remaining, options))
    text = document.rewritten(outcome.source)
    if text is None or _breaks_python(document.source, outcome.source):
        reason = "the fixed code would not parse" if text else "the notebook cannot be rewritten without other changes"
        return FileResult(display, _lint(display, document, options), note=f"fixes left out: {reason}")
    data = text.encode(document.encoding if isinstance(document, _PythonFile) else "utf-8")
    fixed_document = _read_document(path, data, options.memory_budget)
    result = FileResult(display, _lint(display, fixed_document, options), fixed=outcome.applied)
    if not mode.write:
        result.diff = unified_diff(document.text, text, display)
        result.fixed_data = data
        return result
    try:
        write_back(path, read, data)
    except ChangedSinceRead as error:
        note = f"not fixed: {error}; run fix again"
        return FileResult(display, _lint(display, document, options), note=note)
    except OSError as error:
        reason = error.strerror or str(error)
        return FileResult(display, _lint(display, document, options), error=f"cannot write: {reason}; not fixed")
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


def unified_diff(before: str, after: str, display: str) -> str:
    from .notebooks import physical_lines

    lines = difflib.unified_diff(physical_lines(before), physical_lines(after), fromfile=display, tofile=display)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


class ProgressBar:
    """A one-line bar on a terminal's stderr for a run that takes a while: drawn once the run has
    taken ``DELAY`` seconds, it says the phase and the files done of the total
    (``checking [#####.....] 120/3000 files``). Never in CI or when stderr is not a terminal."""

    DELAY = 2.0  # seconds: a shorter run ends before a bar would be read
    _WIDTH = 30

    def __init__(
        self, total: int, phase: str, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._total = total
        self._phase = phase
        self._stream = stream or sys.stderr
        self._clock = clock
        self._done = 0
        self._started = clock()
        self._drawn_at: float | None = None

    @staticmethod
    def wanted(stream: TextIO | None = None) -> bool:
        return (stream or sys.stderr).isatty() and not os.environ.get("CI")

    def advance(self) -> None:
        self._done += 1
        now = self._clock()
        if now - self._started < self.DELAY:
            return
        if self._drawn_at is None or now - self._drawn_at >= 0.1 or self._done == self._total:
            self._drawn_at = now
            filled = self._WIDTH * self._done // self._total
            bar = "#" * filled + "." * (self._WIDTH - filled)
            self._stream.write(f"\r{self._phase} [{bar}] {self._done}/{self._total} files")
            self._stream.flush()

    def close(self) -> None:
        """Clears the bar, if it was drawn: what follows starts on a clean line."""
        if self._drawn_at is not None:
            self._stream.write("\r" + " " * (len(self._phase) + self._WIDTH + 40) + "\r")
            self._stream.flush()
