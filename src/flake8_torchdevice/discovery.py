"""Which files a run lints: Python files and notebooks under the given paths, less the excluded ones.

Exclusion patterns (defaults, configuration, flags) are ``fnmatch`` globs, written the way
``.gitignore`` writes them: a pattern without a ``/`` matches a file or directory name at any depth;
one with a ``/`` matches the path from its root (the configuration's directory, or the working
directory for command-line patterns); a trailing ``/`` matches directories only; ``*`` also
matches ``/``.

``.gitignore`` files are read as git reads them (``pathspec``'s implementation of git's rules):
every ``.gitignore`` from the repository's root down to each directory walked, the deeper file
and the later line winning, ``!`` re-including what an earlier pattern ignored. A directory that
is ignored is not entered, so, as in git, nothing under it can be re-included. A directory named on
the command line is searched even when a ``.gitignore`` above it ignores it (a Python installed
under a repository that ignores it): the lines still apply to what is inside it.

A directory that cannot be listed, and a path that cannot be examined, are collected, not raised:
the run lints the rest and names them.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


# Folders of other people's code, build products and tools' caches, never the project's own code:
# neither linted by default nor read into a project's index (``project.layout``).
NOT_PROJECT_FOLDERS: tuple[str, ...] = tuple(
    (
        ".git .hg .svn .venv venv .tox .nox build dist __pycache__ node_modules .eggs *.egg-info site-packages "
        ".mypy_cache .pytest_cache .ruff_cache .torchdevice_cache "
        ".ipynb_checkpoints"  # Jupyter's autosaved copies of the notebooks beside them
    ).split()
)
DEFAULT_EXCLUDES: tuple[Pattern, ...] = exclude_patterns((f"{name}/" for name in NOT_PROJECT_FOLDERS), Path("."))


def is_not_project_folder(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in NOT_PROJECT_FOLDERS)


@dataclass(frozen=True)
class _IgnoreLine:
    """One pattern line of a ``.gitignore`` file."""

    pattern: Any  # pathspec's compiled pattern
    directory_only: bool  # the line ends with "/"
    basename_only: bool  # no "/" before a trailing one: git matches the name alone, at any depth

    @classmethod
    def parse(cls, line: str) -> _IgnoreLine | None:
        """The line's pattern; None for comments and blanks, and for a line pathspec rejects (``!``
        alone, a trailing backslash, ``[z-a]``), which git skips too."""
        # Imported by the first .gitignore line read: pathspec costs a run without one a tenth of
        # what a warm run costs.
        import pathspec

        try:
            (pattern,) = pathspec.GitIgnoreSpec.from_lines([line]).patterns
        except (ValueError, re.error):
            return None
        if pattern.include is None:
            return None
        text = line.strip().removeprefix("!").rstrip("/")
        return cls(pattern, line.rstrip().endswith("/"), "/" not in text)

    def matches(self, relative: str, is_directory: bool) -> bool:
        """Whether the line matches the path itself, as git matches it (name by name down the tree).

        pathspec also matches what is inside a matching directory (``build/`` matches
        ``build/x.py``); the walk decides directories on its own as it enters them, so a match
        through a directory above the path is not this path's. A directory named on the command
        line is then searched even where a ``.gitignore`` above it ignores it or a parent of it.
        """
        if self.directory_only and not is_directory:
            return False
        if self.basename_only:
            return self._match(relative.rpartition("/")[2], is_directory)
        parents = relative.split("/")[:-1]
        return self._match(relative, is_directory) and not any(
            self._match("/".join(parents[: count + 1]), True) for count in range(len(parents))
        )

    def _match(self, path: str, is_directory: bool) -> bool:
        return self.pattern.match_file(path + "/" if is_directory and self.directory_only else path) is not None


@dataclass(frozen=True)
class GitIgnore:
    """The ``.gitignore`` files that apply in one directory: (directory holding it, its lines),
    from the repository's root down. ``respected`` False reads none (``--no-respect-gitignore``)."""

    files: tuple[tuple[Path, tuple[_IgnoreLine, ...]], ...] = ()
    respected: bool = True

    @classmethod
    def above(cls, directory: Path, respected: bool = True) -> GitIgnore:
        """The files of the repository holding ``directory``, from its root down to ``directory``."""
        if not respected:
            return cls(respected=False)
        start = _absolute(directory)
        repository = next((folder for folder in (start, *start.parents) if _is_repository(folder)), start)
        ignores = cls()
        for folder in (*reversed(start.relative_to(repository).parents), start.relative_to(repository)):
            ignores = ignores.entering(repository / folder)
        return ignores

    def entering(self, directory: Path) -> GitIgnore:
        """The files for a subdirectory; a nested repository (a submodule) starts afresh, as in git."""
        if not self.respected:
            return self
        inherited = () if _is_repository(directory) else self.files
        try:
            lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return GitIgnore(inherited)
        parsed = tuple(line for line in map(_IgnoreLine.parse, lines) if line is not None)
        return GitIgnore((*inherited, (_absolute(directory), parsed)))

    def ignores(self, path: Path, is_directory: bool) -> bool:
        """The deepest file with a line matching the path decides; within it, the last such line
        (a ``!`` line re-includes)."""
        if not self.files:
            return False
        absolute = _absolute(path)
        for directory, lines in reversed(self.files):
            relative = absolute.relative_to(directory).as_posix()
            deciding = next((line for line in reversed(lines) if line.matches(relative, is_directory)), None)
            if deciding is not None:
                return bool(deciding.pattern.include)
        return False


def _is_repository(directory: Path) -> bool:
    # A folder, or a file in a worktree or submodule. os.path: an unreadable directory is no
    # repository, where Path.exists() would raise PermissionError.
    return os.path.exists(directory / ".git")


@dataclass
class Discovery:
    """What a run lints, and what it could not look at or was told to skip."""

    files: list[Path] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (path, why it could not be read)
    ignored_by_git: int = 0  # Python files, notebooks and directories a .gitignore hid
    excluded: int = 0  # those the exclude patterns hid


def discover(paths: Sequence[Path], excludes: Sequence[Pattern], respect_gitignore: bool = True) -> Discovery:
    """Files to lint, in a stable order, each once. A directory given is walked even if it matches an
    exclude pattern or a ``.gitignore`` line; a file given is checked against the exclude patterns only."""
    found: dict[str, None] = {}
    discovery = Discovery()
    for path in paths:
        try:
            is_directory = stat.S_ISDIR(os.stat(path).st_mode)
        except FileNotFoundError:
            raise FileNotFoundError(f"no such file or directory: {path}") from None
        except OSError as error:  # a path inside a directory we may not enter
            discovery.unreadable.append((str(path), error.strerror or str(error)))
            continue
        if is_directory:
            found.update(dict.fromkeys(_walk(path, excludes, GitIgnore.above(path, respect_gitignore), discovery)))
        elif excluded_file(path, excludes):
            discovery.excluded += 1
        else:
            found[os.path.normpath(path)] = None
    discovery.files = [Path(name) for name in found]
    return discovery


def _walk(top: Path, excludes: Sequence[Pattern], top_ignores: GitIgnore, discovery: Discovery) -> Iterator[str]:
    def unreadable(error: OSError) -> None:
        discovery.unreadable.append((os.path.normpath(error.filename or top), error.strerror or str(error)))

    ignores_in = {os.path.normpath(top): top_ignores}
    for directory, subdirectories, files in os.walk(top, onerror=unreadable):
        ignores = ignores_in.pop(os.path.normpath(directory))
        kept = []
        for name in sorted(subdirectories):
            path = Path(directory, name)
            if _skipped(path, True, excludes, ignores, discovery):
                continue
            kept.append(name)
            ignores_in[os.path.normpath(path)] = ignores.entering(path)
        subdirectories[:] = kept
        for name in sorted(files):
            path = Path(directory, name)
            if path.suffix in SOURCE_SUFFIXES and not _skipped(path, False, excludes, ignores, discovery):
                yield os.path.normpath(path)


def _skipped(
    path: Path, is_directory: bool, excludes: Sequence[Pattern], ignores: GitIgnore, discovery: Discovery
) -> bool:
    """Excluded or ignored, counted as such."""
    if _excluded(path, is_directory, excludes):
        discovery.excluded += 1
        return True
    if ignores.ignores(path, is_directory):
        discovery.ignored_by_git += 1
        return True
    return False


def excluded_file(path: Path, excludes: Sequence[Pattern]) -> bool:
    """A file the user names (on the command line, or with ``--stdin-filename``) that the exclude
    patterns exclude; ``.gitignore`` does not count, as git lets you name an ignored file."""
    return _excluded(path, False, excludes)


def _excluded(path: Path, is_directory: bool, excludes: Sequence[Pattern]) -> bool:
    return any(pattern.matches(path, is_directory) for pattern in excludes)


def _absolute(path: Path) -> Path:
    """Absolute and normalised (``a/../b`` is ``b``) without resolving links, as git sees the tree."""
    return Path(os.path.abspath(path))
