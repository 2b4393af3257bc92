"""Where a project starts, which package each of its files belongs to, which files it has, and
the stamp by which a run knows a file is as the last one read it.

A project's root is the nearest directory above a file that holds ``pyproject.toml``,
``setup.cfg``, ``setup.py`` or ``.git``. Beliefs are per package: the first directory under the
root (under ``src/`` in a src layout) that holds the file, because ``examples/`` and
``benchmarks/`` often require a GPU while the library beside them does not. Files at the root
itself (a research repository's ``train.py``) form the package ``.``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from ..discovery import is_not_project_folder

# Modification time in nanoseconds, size in bytes: a file with the same stamp is taken to hold
# what it held (as ruff keys its cache); what keeps what was read from it keys it by its stamp.
Stamp = tuple[int, int]

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
TOP_PACKAGE = "."
_SATELLITES = re.compile(r"^(examples?|benchmarks?|demos?|tutorials?|notebooks?|docs?|scripts?|tools)$", re.IGNORECASE)
# Satellites whose folders are sub-projects each (``examples/mnist``, ``examples/imagenet``).
_EXAMPLES = re.compile(r"^(examples?|demos?)$", re.IGNORECASE)
# A package's own file named as one of them is a script of its own too (``pkg/benchmark.py``), not
# a helper named after one (``pkg/benchmark_utils.py``).
_SATELLITE_SCRIPTS = re.compile(r"^(examples?|benchmarks?|demos?)$", re.IGNORECASE)

# More files than a project index reads: beyond it, a folder is someone's whole disk.
MAX_PROJECT_FILES = 20_000


def find_root(start: Path, marked: Callable[[Path], bool] | None = None) -> Path:
    """The project root above ``start`` (a file or a folder): the nearest folder with a marker,
    else the folder holding ``start``'s outermost package (an unpacked wheel: ``site/pkg/sub``
    belongs to ``site``'s project, whose package is ``pkg``), else ``start``'s own folder (a
    directory of scripts is a project too). ``marked`` stands for ``has_marker`` (a run that
    finds many roots asks it once per folder)."""
    marked = marked or has_marker
    folder = start if start.is_dir() else start.parent
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        if marked(candidate):
            return candidate
    while (folder / "__init__.py").exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def has_marker(folder: Path) -> bool:
    """Whether ``folder`` says it is a project's root (``pyproject.toml``, ``.git``...)."""
    return any((folder / marker).exists() for marker in ROOT_MARKERS)


def package_of(root: Path, path: Path) -> str:
    """The package a file belongs to, for beliefs: its first folder under the root (under
    ``src/`` in a src layout), a satellite folder inside it (``pkg/benchmarks``), or ``.`` for a
    file at the root."""
    try:
        parts = path.resolve().relative_to(root).parts
    except ValueError:
        return TOP_PACKAGE
    return package_at(parts)


def package_at(parts: tuple[str, ...]) -> str:
    """``package_of`` a file whose path under the root is ``parts``. A folder of examples holds
    independent sub-projects, each one of its own (``examples/mnist``, ``pkg/examples/MMPT``):
    fairseq's MMPT toolkit needs a GPU where its speech-synthesis recipes fall back to the CPU."""
    if len(parts) > 2 and parts[0] == "src":
        parts = parts[1:]
    if len(parts) > 3 and _EXAMPLES.match(parts[1]):
        return "/".join(parts[:3])
    if len(parts) > 2 and _SATELLITES.match(parts[1]):  # ``pkg/benchmarks`` inside an unpacked wheel
        return f"{parts[0]}/{parts[1]}"
    if len(parts) > 2 and _EXAMPLES.match(parts[0]):
        return "/".join(parts[:2])
    script = parts[-1].removesuffix(".py")
    if len(parts) > 1 and _SATELLITE_SCRIPTS.match(script):  # ``sam2/benchmark.py``: a script beside the modules
        return "/".join((*parts[:-1], script))
    return parts[0] if len(parts) > 1 else TOP_PACKAGE


def is_satellite(package: str) -> bool:
    """``examples``, ``benchmarks``, ``pkg/benchmarks``...: code beside a library, which often
    needs a GPU where the library does not; its belief is its own, both ways."""
    return any(_SATELLITES.match(part) for part in package.split("/"))


def module_name(relative: str) -> str:
    """The dotted name a file of the project is imported by, from its path under the root:
    ``pkg/utils.py`` is ``pkg.utils``, ``pkg/__init__.py`` is ``pkg``, ``src/pkg/a.py`` is ``pkg.a``."""
    parts = relative.removesuffix(".py").split("/")
    if len(parts) > 1 and parts[0] == "src":
        parts = parts[1:]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def importing_package(relative: str) -> str:
    """The package a file's relative imports start from (``from . import x``): its own folder's."""
    module = module_name(relative)
    return module if relative.endswith("__init__.py") else module.rpartition(".")[0]


def project_files(root: Path) -> Iterator[Path]:
    """Every Python file and notebook of the project, in a stable order, skipping virtual environments, build
    products, hidden folders and, in a folder that is no project itself, the projects it holds
    (``nested_roots``); at most ``MAX_PROJECT_FILES``."""
    count = 0
    nested: list[Path] | None = [] if not has_marker(root) else None
    for folder, files in _own_folders(root, nested):
        for name in sorted(files):
            if name.endswith((".py", ".ipynb")):  # notebooks show what a project believes too
                yield Path(folder) / name
                count += 1
                if count >= MAX_PROJECT_FILES:
                    return


def nested_roots(folder: Path) -> list[Path]:
    """The roots of the projects inside ``folder``, a folder that is no project itself: each folder
    below it with a marker of its own, the nearest ones (an unpacked sdist in a download folder,
    checkouts side by side), as ``find_root`` reads any file of them. A project keeps the projects it
    holds (Deformable DETR's ``models/ops/setup.py`` builds its CUDA kernels). At most
    ``MAX_PROJECT_FILES`` folders are looked at."""
    found: list[Path] = []
    for looked_at, _ in enumerate(_own_folders(folder, found)):
        if looked_at >= MAX_PROJECT_FILES:
            break
    return sorted(found)


def _own_folders(root: Path, nested: list[Path] | None) -> Iterator[tuple[str, list[str]]]:
    """Each folder under ``root`` with its files, in a stable order: not those of other people's
    code, build products or hidden folders; given a ``nested`` list, not the projects under it
    either, which are added to the list instead."""
    for folder, subfolders, files in os.walk(root):
        kept = []
        for name in sorted(subfolders):
            if name.startswith(".") or is_not_project_folder(name) or _is_virtual_environment(Path(folder, name)):
                continue
            if nested is not None and has_marker(Path(folder, name)):
                nested.append(Path(folder, name))
            else:
                kept.append(name)
        subfolders[:] = kept
        yield folder, files


def _is_virtual_environment(folder: Path) -> bool:
    """A virtual environment of any name (``env/``, ``py311/``) holds ``pyvenv.cfg``; an ``env/``
    without one is the project's own (a reinforcement-learning project's environments)."""
    return (folder / "pyvenv.cfg").exists()


def stamp(path: Path | str) -> Stamp | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size
