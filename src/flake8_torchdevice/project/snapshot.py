"""The project's beliefs kept between runs, read back while nothing they were read from changed.

Even warm, reading a project (scan.py) decodes every file's index, finds the calls again and
infers the beliefs, and it imports the readers that do it (index, calls, inference): together
more than a warm run's own work. So the beliefs a run read are kept with what they were read
from, and the next run takes them as they are when all of it is as it was:

- the tool (``tool_identity``: a new reader or inference reads again) and the memory budget
  (which decides the largest file indexed);
- every Python file and notebook of the project, by its path under the root, modification time and size (as
  the index store keys each file's index, and ruff its cache);
- the entries of the root's folder and of each package's: the READMEs the beliefs quote, the
  packaging metadata that makes the project a library (``setup.py``, ``pyproject.toml``,
  ``*.dist-info``), the configuration files whose words name what the code does not call. A new
  input of ``read_project`` outside these must be added here.

What is read now is recorded before the project is read, so an edit made while it is read gives
the next run a mismatch, never a belief older than its key. One JSON file per project root,
beside its index, written atomically; anything unreadable in it is read as absent.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..callers import CallFacts, FileCallers
from ..imported import ImportedClass, ImportedClasses, ImportedHelper, ImportedSaver, decoded_parameters
from .beliefs import Belief, ProjectBeliefs
from .cache import FORMAT, TOOL, make_cache_directory, tool_identity, write_atomically
from .evidence import Evidence
from .layout import TOP_PACKAGE, package_at, project_files, stamp


class KeptBeliefs:
    """The beliefs kept for the project at ``root``, and what the project holds now."""

    def __init__(self, cache_dir: Path, root: Path, memory_budget: int) -> None:
        self._cache_dir = cache_dir
        self._root = root
        name = hashlib.sha256(str(root).encode()).hexdigest()[:32]
        self._path = cache_dir / f"v{FORMAT}" / "beliefs" / f"{name}.json"
        files = hashlib.sha256()
        folders = {TOP_PACKAGE}
        for path in project_files(root):
            parts = path.relative_to(root).parts
            files.update(json.dumps(["/".join(parts), stamp(path)]).encode())
            folders.add(package_at(parts))
        self._folders = {folder: _listing(root / folder, cache_dir) for folder in sorted(folders)}
        self._inputs = {
            "identity": tool_identity(),
            "root": str(root),
            "memory budget": memory_budget,
            "files": files.hexdigest(),
            "folders": self._folders,
        }

    def load(self) -> ProjectBeliefs | None:
        """The beliefs kept, if they were read from what the project holds now."""
        try:
            with self._path.open("rb") as file:
                document = json.loads(file.read())
            if document["tool"] != TOOL or document["inputs"] != self._inputs:
                return None
            return decoded_beliefs(self._root, document["beliefs"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError, MemoryError):
            return None

    def save(self, beliefs: ProjectBeliefs) -> None:
        """Keep ``beliefs``, read after this store was made, with what the project held then;
        not kept when they rest on a folder it did not list (a file linked in from elsewhere)."""
        if not beliefs.packages.keys() <= self._folders.keys():
            return
        document = {"tool": TOOL, "inputs": self._inputs, "beliefs": encoded_beliefs(beliefs)}
        with contextlib.suppress(OSError, ValueError):
            make_cache_directory(self._cache_dir)
            self._path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self._path, json.dumps(document))


def _listing(folder: Path, cache_dir: Path) -> str:
    """A digest of a folder's entries: each one's name, and a file's stamp. Hidden ones are left
    out, as none is read, and so is the cache's own folder, which the first run makes."""
    digest = hashlib.sha256()
    cache = os.path.abspath(cache_dir)
    with contextlib.suppress(OSError), os.scandir(folder) as scanned:
        entries = [item for item in scanned if not item.name.startswith(".") and os.path.abspath(item.path) != cache]
        for entry in sorted(entries, key=lambda entry: entry.name):
            with contextlib.suppress(OSError):
                status = None if entry.is_dir() else stamp(entry.path)
                digest.update(json.dumps([entry.name, status]).encode())
    return digest.hexdigest()


def encoded_beliefs(beliefs: ProjectBeliefs) -> dict[str, Any]:
    return {
        "packages": _encoded(beliefs.packages),
        "files": _encoded(beliefs.files),
        "checkpoints": _encoded_belief(beliefs.checkpoints),
        "callers": {
            path: [
                [[name, *_encoded_calls(calls)] for name, calls in found.facts],
                list(found.unreferenced),
                found.imported,
            ]
            for path, found in beliefs.callers.items()
        },
        "classes": {
            path: [
                [_encoded_class(name, found) for name, found in classes.classes],
                [_encoded_helper(name, helper) for name, helper in classes.helpers],
                [[name, [list(pair) for pair in saver.saves_under], saver.path] for name, saver in classes.savers],
            ]
            for path, classes in beliefs.classes.items()
        },
    }


def _encoded_helper(name: str, helper: ImportedHelper) -> list[Any]:
    return [name, helper.returns, helper.path, [list(pair) for pair in helper.parameters], list(helper.kinds)]


def _encoded_class(name: str, found: ImportedClass) -> list[Any]:
    return [name, found.module, found.places_itself, found.holds_no_tensors, list(found.replaces_without_cuda)]


def _encoded(beliefs: Mapping[str, Belief]) -> dict[str, Any]:
    return {name: _encoded_belief(belief) for name, belief in beliefs.items()}


def _encoded_belief(belief: Belief) -> list[Any]:
    return [belief.verdict, [[item.kind, item.path, item.line] for item in belief.evidence], belief.stated, belief.note]


def _encoded_calls(calls: CallFacts) -> list[Any]:
    return [calls.calls, sorted(calls.passed), calls.guarded, calls.only_here, calls.public, calls.api]


def decoded_beliefs(root: Path, document: Mapping[str, Any]) -> ProjectBeliefs:
    """The beliefs ``encoded_beliefs`` wrote; ValueError, TypeError, KeyError or AttributeError
    for anything else."""
    callers = {
        str(path): FileCallers(
            tuple(
                (
                    str(name),
                    CallFacts(
                        int(calls), frozenset(map(str, passed)), bool(guarded), bool(here), bool(public), bool(api)
                    ),
                )
                for name, calls, passed, guarded, here, public, api in rows
            ),
            tuple(map(str, unreferenced)),
            bool(imported),
        )
        for path, (rows, unreferenced, imported) in document["callers"].items()
    }
    classes = {
        str(path): ImportedClasses(
            tuple(
                (str(name), ImportedClass(bool(module), bool(places), bool(plain), tuple(map(str, replaces))))
                for name, module, places, plain, replaces in rows
            ),
            tuple(
                (str(name), ImportedHelper(str(returns), str(where), decoded_parameters(about), tuple(map(str, kinds))))
                for name, returns, where, about, kinds in helpers
            ),
            tuple((str(name), ImportedSaver(decoded_parameters(under), str(where))) for name, under, where in savers),
        )
        for path, (rows, helpers, savers) in document["classes"].items()
    }
    checkpoints = _decoded_belief(document["checkpoints"])
    return ProjectBeliefs(
        root, _decoded(document["packages"]), _decoded(document["files"]), callers, classes, checkpoints
    )


def _decoded(rows: Mapping[str, Any]) -> dict[str, Belief]:
    return {str(name): _decoded_belief(row) for name, row in rows.items()}


def _decoded_belief(row: Any) -> Belief:
    verdict, found, stated, note = row
    return Belief(str(verdict), _evidence(found), bool(stated), str(note))


def _evidence(rows: Iterable[Any]) -> tuple[Evidence, ...]:
    return tuple(Evidence(str(kind), str(path), int(line)) for kind, path, line in rows)
