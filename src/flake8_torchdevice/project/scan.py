"""Read a whole project: index every Python file under its root and infer its beliefs.

No file is imported or executed; each is read as text (at most ``MAX_INDEXED_BYTES``; larger
ones are generated data, not the code that decides) and parsed with ``ast``.
"""

from __future__ import annotations

from pathlib import Path

from .beliefs import ProjectBeliefs, file_belief, infer, readme_evidence
from .index import FileIndex, index_source
from .layout import package_of, project_files

MAX_INDEXED_BYTES = 2 * 1024 * 1024


def index_file(root: Path, path: Path) -> FileIndex:
    relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
    package = package_of(root, path)
    try:
        if path.stat().st_size > MAX_INDEXED_BYTES:
            return FileIndex(relative, package)
        source = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return FileIndex(relative, package)
    return index_source(source, relative, package)


def read_project(root: Path) -> ProjectBeliefs:
    indexes = [index_file(root, path) for path in project_files(root)]
    packages = {index.package for index in indexes}
    files = {index.path: belief for index in indexes if (belief := file_belief(index)) is not None}
    return ProjectBeliefs(root, infer(indexes, readme_evidence(root, packages)), files)
