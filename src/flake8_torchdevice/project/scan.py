"""Read a whole project: index every Python file under its root and infer its beliefs.

No file is imported or executed; each is read as the command reads the files it lints (regular
files only, never a FIFO or a device; no larger than the memory budget allows) and parsed with
``ast``. A file that cannot be read shows nothing.
"""

from __future__ import annotations

from pathlib import Path

from ..sources import DEFAULT_MEMORY_BUDGET_MIB, TooLarge, largest_file, read_limited
from .beliefs import NO_ACCELERATOR, Belief, ProjectBeliefs, file_belief, infer, readme_evidence
from .index import FileIndex, index_source
from .index_store import IndexStore, stamp
from .layout import package_of, project_files

CPU_ONLY_APPLICATION = Belief(
    NO_ACCELERATOR, note="no file names a device, CUDA, MPS or a GPU, and nothing installs it"
)
# Fewer files than this are a fragment of a program, not a whole one.
MIN_APPLICATION_FILES = 5
# Larger files are generated data, not the code that shows what the project believes.
MAX_INDEXED_BYTES = 2 * 1024 * 1024


def index_file(root: Path, path: Path, limit: int = MAX_INDEXED_BYTES) -> FileIndex:
    relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
    package = package_of(root, path)
    try:
        data = read_limited(path, limit)
    except (OSError, TooLarge):
        return FileIndex(relative, package)
    return index_source(data.decode("utf-8", errors="replace"), relative, package)


def read_project(
    root: Path, memory_budget: int = DEFAULT_MEMORY_BUDGET_MIB, cache_dir: Path | None = None
) -> ProjectBeliefs:
    """The project's beliefs; with ``cache_dir``, the index of each file unchanged since the last
    run is taken from there instead of read again."""
    limit = min(MAX_INDEXED_BYTES, largest_file(memory_budget))
    store = IndexStore(cache_dir, root) if cache_dir is not None else None
    indexes = [_indexed(root, path, limit, store) for path in project_files(root)]
    if store is not None:
        store.save({index.path for index in indexes})
    packages = {index.package for index in indexes}
    if _a_whole_application(root, indexes) and not any(index.mentions_accelerator for index in indexes):
        return ProjectBeliefs(root, dict.fromkeys(packages, CPU_ONLY_APPLICATION))
    files = {index.path: belief for index in indexes if (belief := file_belief(index)) is not None}
    return ProjectBeliefs(root, infer(indexes, readme_evidence(root, packages)), files)


def _indexed(root: Path, path: Path, limit: int, store: IndexStore | None) -> FileIndex:
    if store is None:
        return index_file(root, path, limit)
    relative = path.relative_to(root).as_posix()
    stamped = stamp(path)
    index = store.get(relative, stamped)
    if index is None:
        index = index_file(root, path, limit)
        store.put(relative, stamped, index)
    return index


def _a_whole_application(root: Path, indexes: list[FileIndex]) -> bool:
    """A program of several files that nothing installs: what its files never do, it never does.
    A lone file, or a folder of a few, may take its device from code that is not there."""
    return len(indexes) >= MIN_APPLICATION_FILES and not is_library(root)


def is_library(root: Path) -> bool:
    """A project others install (it has packaging metadata): its users may put its modules on a
    GPU even if its own code never does."""
    return any((root / name).is_file() for name in ("setup.py", "setup.cfg")) or _declares_a_project(
        root / "pyproject.toml"
    )


def _declares_a_project(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.strip() in ("[project]", "[tool.poetry]", "[tool.flit.metadata]") for line in text.splitlines())
