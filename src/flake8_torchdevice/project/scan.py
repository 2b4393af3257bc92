"""Read a whole project: index every Python file under its root, infer its beliefs, and find what
the calls of its definitions have in common (read in a second pass, from the files that may call one).

No file is imported or executed; each is read as the command reads the files it lints (regular
files only, never a FIFO or a device; no larger than the memory budget allows) and parsed with
``ast``. A file that cannot be read shows nothing.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from ..callers import NO_CALLERS, FileCallers
from ..notebooks import OWN_COMMENT, NotANotebook, Notebook, parse_notebook
from ..sources import DEFAULT_MEMORY_BUDGET_MIB, TooLarge, largest_file, read_limited
from .beliefs import NO_ACCELERATOR, Belief, ProjectBeliefs
from .callers import project_callers
from .calls import NO_CALLS, FileCalls, Wanted, read_calls, wanted
from .classes import imported_classes
from .evidence import ASKS_FOR_A_GPU, NOT_READ, SUPPORTS, Evidence
from .index import FileIndex, index_source
from .index_store import IndexStore
from .inference import (
    checkpoints_saved,
    file_beliefs,
    imported_by_others,
    infer,
    readme_evidence,
    words_outside_the_code,
)
from .layout import module_name, package_of, project_files, stamp
from .names import dotted
from .references import ProjectReferences

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
    text = _read(path, limit)
    if text is None:  # too large or unreadable: what it saves is not known
        return FileIndex(relative, package, (Evidence(NOT_READ, relative, 1),))
    notebook = _notebook(path, text)
    if notebook is None:
        return index_source(text, relative, package)
    # A notebook counts for what a project needs and for naming devices, not for its CPU support:
    # tutorials teach a fallback in one cell and the CUDA API, on purpose, in the next.
    # The module's own comments (cell ends, IPython placeholders) name no device; lines stay put.
    index = index_source(notebook.source.replace(OWN_COMMENT, "#"), relative, package)
    needs = tuple(_in_its_cell(item, notebook) for item in index.evidence if item.kind not in SUPPORTS)
    asks = (Evidence(ASKS_FOR_A_GPU, relative, 1),) if _asks_for_a_gpu(notebook.document) else ()
    return replace(index, evidence=needs + asks)


def _asks_for_a_gpu(document: dict[str, object]) -> bool:
    """Colab's ``"accelerator": "GPU"`` (or a ``gpuType``) in the notebook's metadata: it is written
    for a GPU runtime, as a notebook named for the GPU is."""
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return False
    colab = metadata.get("colab")
    gpu_type = colab.get("gpuType") if isinstance(colab, dict) else None
    return str(metadata.get("accelerator", "")).upper() == "GPU" or bool(gpu_type)


def _in_its_cell(item: Evidence, notebook: Notebook) -> Evidence:
    """Evidence of a notebook, cited as ruff and the command name a place in one: ``nb.ipynb:cell 3:4``."""
    cell, line = notebook.locate(item.line)
    return item if cell is None else replace(item, path=f"{item.path}:cell {cell}", line=line)


def calls_in_file(path: Path, index: FileIndex, searched: Wanted, limit: int = MAX_INDEXED_BYTES) -> FileCalls:
    """The calls of ``searched``'s definitions in one file: parsed only if it defines one, or may
    call one."""
    text = _read(path, limit)
    notebook = _notebook(path, text) if text is not None else None
    source = notebook.source if notebook is not None else text
    if source is None or not (index.definitions or searched.may_call(source)):
        return NO_CALLS
    return read_calls(source, index.path, searched)


def _read(path: Path, limit: int) -> str | None:
    try:
        return read_limited(path, limit).decode("utf-8", errors="replace")
    except (OSError, TooLarge):
        return None


def _notebook(path: Path, text: str) -> Notebook | None:
    """A notebook's code cells as one module (``notebooks``), as the linter reads them; None for
    Python source. A notebook that cannot be read shows nothing."""
    if path.suffix != ".ipynb":
        return None
    try:
        return parse_notebook(text)
    except NotANotebook:
        return Notebook(text, {}, (), "", ())


def read_project(
    root: Path, memory_budget: int = DEFAULT_MEMORY_BUDGET_MIB, cache_dir: Path | None = None
) -> ProjectBeliefs:
    """The project's beliefs; with ``cache_dir``, the index of each file unchanged since the last
    run is taken from there instead of read again."""
    limit = min(MAX_INDEXED_BYTES, largest_file(memory_budget))
    store = IndexStore(cache_dir, root) if cache_dir is not None else None
    paths = list(project_files(root))
    indexes = [_indexed(root, path, limit, store) for path in paths]
    searched = wanted((module_name(index.path), item.name) for index in indexes for item in index.definitions)
    calls = {}
    if searched.definitions:  # a project that defines none has no calls to find
        calls = {index.path: _calls(path, index, searched, limit, store) for path, index in zip(paths, indexes)}
    if store is not None:
        store.save({index.path for index in indexes})
    packages = {index.package for index in indexes}
    library = is_library(root)
    if _a_whole_application(library, indexes) and not any(index.mentions_accelerator for index in indexes):
        return ProjectBeliefs(root, dict.fromkeys(packages, CPU_ONLY_APPLICATION))
    files = file_beliefs(indexes, _a_whole_application(library, indexes))
    beliefs = infer(indexes, readme_evidence(root, packages))
    references = None
    if library or _a_whole_application(library, indexes):  # a lone file or a few may be called from code not there
        found = ((index.path, index.references) for index in indexes)
        references = ProjectReferences(found, words_outside_the_code(root, packages), library)
    callers = project_callers(indexes, calls, library, references)
    if references is not None:
        callers = _with_unreferenced(callers, indexes, references)
    for path in imported_by_others(indexes):
        callers[path] = replace(callers.get(path, NO_CALLERS), imported=True)
    classes = imported_classes((index.path, index.classes) for index in indexes)
    return ProjectBeliefs(root, beliefs, files, callers, classes, checkpoints_saved(indexes))


def _with_unreferenced(
    callers: dict[str, FileCallers], indexes: list[FileIndex], references: ProjectReferences
) -> dict[str, FileCallers]:
    """``callers``, with the top-level definitions of each file that nothing in the project refers to."""
    for index in indexes:
        names = references.unreferenced(index.path)
        if names:
            callers[index.path] = replace(callers.get(index.path, NO_CALLERS), unreferenced=names)
    return callers


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


def _calls(path: Path, index: FileIndex, searched: Wanted, limit: int, store: IndexStore | None) -> FileCalls:
    found = store.calls(index.path, searched) if store is not None else None
    if found is None:
        found = calls_in_file(path, index, searched, limit)
        if store is not None:
            store.put_calls(index.path, searched, found)
    return found


def _a_whole_application(library: bool, indexes: list[FileIndex]) -> bool:
    """A program of several files that nothing installs: what its files never do, it never does.
    A lone file, or a folder of a few, may take its device from code that is not there."""
    return len(indexes) >= MIN_APPLICATION_FILES and not library


# ``setup(...)`` as setup.py calls it, and the keywords that name modules to install.
_SETUP_CALLS = frozenset({"setup", "setuptools.setup", "distutils.core.setup"})
_INSTALLS = frozenset({"packages", "py_modules", "package_dir"})


def is_library(root: Path) -> bool:
    """A project others install (it has packaging metadata, or is an installed or unpacked
    distribution): its users may put its modules on a GPU even if its own code never does. Not a
    ``setup.py`` that only builds extensions (a research repository's CUDA ops: no packages)."""
    return (
        (root / "setup.cfg").is_file()
        or _installs_modules(root / "setup.py")
        or _declares_a_project(root / "pyproject.toml")
        or any(root.glob("*.dist-info"))
        or any(root.glob("*.egg-info"))
    )


def _installs_modules(setup_py: Path) -> bool:
    """A ``setup.py`` that installs modules: its ``setup(...)`` names them (``packages=``,
    ``py_modules=``) or leaves setuptools to find them; not one that builds only ``ext_modules``.
    One that cannot be read as such (no ``setup`` call, ``setup(**config)``) counts as installing."""
    try:
        tree = ast.parse(setup_py.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return setup_py.is_file()
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and dotted(node.func) in _SETUP_CALLS]
    keywords = {keyword.arg for call in calls for keyword in call.keywords}
    return not calls or None in keywords or bool(keywords & _INSTALLS) or "ext_modules" not in keywords


def _declares_a_project(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.strip() in ("[project]", "[tool.poetry]", "[tool.flit.metadata]") for line in text.splitlines())
