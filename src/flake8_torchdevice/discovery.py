"""Which files a run lints: Python files and notebooks under the given paths, less the excluded ones.

Exclusion patterns are ``fnmatch`` globs, written the way ``.gitignore`` writes them: a pattern
without a ``/`` matches a file or directory name at any depth; one with a ``/`` matches the path
from its root (the configuration's directory, the working directory for command-line patterns, or
the directory holding the ``.gitignore``); a trailing ``/`` matches directories only. From a
``.gitignore``, only the one at the root of each directory given is read, and negations (``!``) are
skipped. ``*`` also matches ``/``.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Sequence, Tuple

SOURCE_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Pattern:
    glob: str  # matched against a name, or against the absolute path when anchored
    anchored: bool
    directory_only: bool

    def matches(self, path: Path, is_directory: bool) -> bool:
        if self.directory_only and not is_directory:
            return False
        return fnmatch.fnmatch(path.absolute().as_posix() if self.anchored else path.name, self.glob)


def exclude_pattern(text: str, root: Path) -> Pattern:
    directory_only = text.endswith("/")
    text = text.rstrip("/")
    while text.startswith(("**/", "./")):
        text = text[3:] if text.startswith("**/") else text[2:]
    if "/" not in text:
        return Pattern(text, anchored=False, directory_only=directory_only)
    anchored = glob.escape(root.absolute().as_posix().rstrip("/")) + "/" + text.lstrip("/")
    return Pattern(anchored, anchored=True, directory_only=directory_only)


def exclude_patterns(texts: Iterable[str], root: Path) -> Tuple[Pattern, ...]:
    return tuple(exclude_pattern(text, root) for text in texts if text.strip("/"))


DEFAULT_EXCLUDES: Tuple[Pattern, ...] = exclude_patterns(
    (
        f"{name}/"
        for name in (
            ".git .hg .svn .venv venv .tox .nox build dist __pycache__ node_modules .eggs *.egg-info site-packages"
        ).split()
    ),
    Path("."),
)


def gitignore_patterns(directory: Path) -> Tuple[Pattern, ...]:
    """The supported subset of ``directory/.gitignore`` (no negations, no nested files)."""
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ()
    kept = (line.rstrip() for line in lines if line.strip() and not line.startswith(("#", "!")))
    return exclude_patterns((line[1:] if line.startswith("\\") else line for line in kept), directory)


def discover(paths: Sequence[Path], excludes: Sequence[Pattern]) -> List[Path]:
    """Files to lint, in a stable order, each once. A directory given is walked even if it matches."""
    found: Dict[str, None] = {}
    for path in paths:
        if path.is_dir():
            found.update(dict.fromkeys(_walk(path, (*excludes, *gitignore_patterns(path)))))
        elif path.exists():
            if not _excluded(path, False, excludes):
                found[os.path.normpath(path)] = None
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")
    return [Path(name) for name in found]


def _walk(top: Path, excludes: Sequence[Pattern]) -> Iterator[str]:
    for directory, subdirectories, files in os.walk(top):
        subdirectories[:] = sorted(
            name for name in subdirectories if not _excluded(Path(directory, name), True, excludes)
        )
        for name in sorted(files):
            path = Path(directory, name)
            if path.suffix in SOURCE_SUFFIXES and not _excluded(path, False, excludes):
                yield os.path.normpath(path)


def _excluded(path: Path, is_directory: bool, excludes: Sequence[Pattern]) -> bool:
    return any(pattern.matches(path, is_directory) for pattern in excludes)
