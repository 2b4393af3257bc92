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
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def exclude_patterns(texts: Iterable[str], root: Path) -> tuple[Pattern, ...]:
    return tuple(exclude_pattern(text, root) for text in texts if text.strip("/"))


DEFAULT_EXCLUDES: tuple[Pattern, ...] = exclude_patterns(
    (
        f"{name}/"
        for name in (
            ".git .hg .svn .venv venv .tox .nox build dist __pycache__ node_modules .eggs *.egg-info site-packages"
        ).split()
    ),
    Path("."),
)


# A pathspec pattern, and whether its line ends with ``/`` (it then matches directories only).
_IgnoreLine = tuple[Any, bool]


@dataclass(frozen=True)
class GitIgnore:
    """The ``.gitignore`` files that apply in one directory: (directory holding it, its patterns),
    from the repository's root down."""

    files: tuple[tuple[Path, tuple[_IgnoreLine, ...]], ...] = ()

    @classmethod
    def above(cls, directory: Path) -> GitIgnore:
        """The files of the repository holding ``directory``, from its root down to ``directory``."""
        start = _absolute(directory)
        repository = next((folder for folder in (start, *start.parents) if _is_repository(folder)), start)
        ignores = cls()
        for folder in (*reversed(start.relative_to(repository).parents), start.relative_to(repository)):
            ignores = ignores.entering(repository / folder)
        return ignores

    def entering(self, directory: Path) -> GitIgnore:
        """The files for a subdirectory; a nested repository (a submodule) starts afresh, as in git."""
        inherited = () if _is_repository(directory) else self.files
        try:
            lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return GitIgnore(inherited)
        return GitIgnore((*inherited, (_absolute(directory), _patterns(lines))))

    def ignores(self, path: Path, is_directory: bool) -> bool:
        """The deepest file with a pattern matching the path decides; within it, the last such pattern."""
        absolute = _absolute(path)
        for directory, patterns in reversed(self.files):
            decision = _decision(patterns, absolute.relative_to(directory).as_posix(), is_directory)
            if decision is not None:
                return decision
        return False


def _is_repository(directory: Path) -> bool:
    return (directory / ".git").exists()  # a folder, or a file in a worktree or submodule


def _patterns(lines: Sequence[str]) -> tuple[_IgnoreLine, ...]:
    """Each line's pattern; a line pathspec rejects (``!`` alone, a trailing backslash, ``[z-a]``)
    is skipped, as git skips it."""
    patterns = []
    for line in lines:
        try:
            patterns.extend(pathspec.GitIgnoreSpec.from_lines([line]).patterns)
        except (ValueError, re.error):
            continue
    return tuple(
        (pattern, str(pattern.pattern).rstrip().endswith("/"))
        for pattern in patterns
        if pattern.include is not None  # not comments or blanks
    )


def _decision(patterns: Sequence[_IgnoreLine], relative: str, is_directory: bool) -> bool | None:
    """Ignored (True), re-included (False) or not mentioned (None): the last matching pattern decides.

    pathspec matches file paths; for a directory, a pattern that ends with ``/`` is matched against
    ``dir/`` and any other against ``dir``, so that ``foo/**`` ignores what is inside ``foo`` but
    not ``foo`` itself, and ``!*/`` re-includes every directory, as in git.
    """
    decision = None
    for pattern, directory_only in patterns:
        if pattern.match_file(relative + "/" if is_directory and directory_only else relative) is not None:
            decision = pattern.include
    return decision


def discover(paths: Sequence[Path], excludes: Sequence[Pattern]) -> list[Path]:
    """Files to lint, in a stable order, each once. A directory given is walked even if it matches."""
    found: dict[str, None] = {}
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
