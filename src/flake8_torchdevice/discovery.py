"""Which files a run lints: Python files and notebooks under the given paths, less the excluded ones.

Exclusion patterns (defaults, configuration, flags) are ``fnmatch`` globs, written the way
``.gitignore`` writes them: a pattern without a ``/`` matches a file or directory name at any depth;
one with a ``/`` matches the path from its root (the configuration's directory, or the working
directory for command-line patterns); a trailing ``/`` matches directories only; ``*`` also
matches ``/``.

``.gitignore`` files are read as git reads them (``pathspec``'s implementation of git's rules):
every ``.gitignore`` from the repository's root down to each directory walked, the deeper file
and the later line winning, ``!`` re-including what an earlier pattern ignored. A directory that
is ignored is not entered, so, as in git, nothing under it can be re-included.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import pathspec

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


@dataclass(frozen=True)
class GitIgnore:
    """The ``.gitignore`` files that apply in one directory: (directory holding it, its spec), root first."""

    files: Tuple[Tuple[Path, pathspec.GitIgnoreSpec], ...] = ()

    @classmethod
    def above(cls, directory: Path) -> "GitIgnore":
        """The files of the repository holding ``directory``, from its root down to ``directory``."""
        start = _absolute(directory)
        repository = next((folder for folder in (start, *start.parents) if (folder / ".git").exists()), start)
        ignores = cls()
        for folder in (*reversed(start.relative_to(repository).parents), start.relative_to(repository)):
            ignores = ignores.entering(repository / folder)
        return ignores

    def entering(self, directory: Path) -> "GitIgnore":
        try:
            lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return self
        return GitIgnore((*self.files, (_absolute(directory), pathspec.GitIgnoreSpec.from_lines(lines))))

    def ignores(self, path: Path, is_directory: bool) -> bool:
        """The deepest file with a pattern matching the path decides; within it, the last such pattern."""
        absolute = _absolute(path)
        for directory, spec in reversed(self.files):
            relative = absolute.relative_to(directory).as_posix() + ("/" if is_directory else "")
            decision: Optional[bool] = spec.check_file(relative).include
            if decision is not None:
                return decision
        return False


def discover(paths: Sequence[Path], excludes: Sequence[Pattern]) -> List[Path]:
    """Files to lint, in a stable order, each once. A directory given is walked even if it matches."""
    found: Dict[str, None] = {}
    for path in paths:
        if path.is_dir():
            found.update(dict.fromkeys(_walk(path, excludes, GitIgnore.above(path))))
        elif path.exists():
            if not _excluded(path, False, excludes):
                found[os.path.normpath(path)] = None
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")
    return [Path(name) for name in found]


def _walk(top: Path, excludes: Sequence[Pattern], top_ignores: GitIgnore) -> Iterator[str]:
    ignores_in = {os.path.normpath(top): top_ignores}
    for directory, subdirectories, files in os.walk(top):
        ignores = ignores_in.pop(os.path.normpath(directory))
        kept = []
        for name in sorted(subdirectories):
            path = Path(directory, name)
            if not (_excluded(path, True, excludes) or ignores.ignores(path, True)):
                kept.append(name)
                ignores_in[os.path.normpath(path)] = ignores.entering(path)
        subdirectories[:] = kept
        for name in sorted(files):
            path = Path(directory, name)
            if path.suffix in SOURCE_SUFFIXES and not (
                _excluded(path, False, excludes) or ignores.ignores(path, False)
            ):
                yield os.path.normpath(path)


def _excluded(path: Path, is_directory: bool, excludes: Sequence[Pattern]) -> bool:
    return any(pattern.matches(path, is_directory) for pattern in excludes)


def _absolute(path: Path) -> Path:
    """Absolute and normalised (``a/../b`` is ``b``) without resolving links, as git sees the tree."""
    return Path(os.path.abspath(path))
