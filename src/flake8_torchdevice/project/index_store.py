"""The project index kept between runs: one JSON file per project root, each file's index under
its path with the modification time and size it was read at (as ruff keys its cache): a warm run
stats every file and reads again only those that changed. Beside a file's index, its calls of the
project's definitions (project/calls.py), with the digest of the definitions they were searched
for: read again when the file changes, or when the project's definitions do.

It lives in the result cache's folder (``project/cache.py``), is written atomically and only when
something changed, and anything unreadable in it (another version's, damaged) is read as absent.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from ..imported import decoded_parameters
from .cache import FORMAT, TOOL, make_cache_directory, tool_identity, write_atomically
from .calls import CallSite, FileCalls, Wanted
from .classes import ClassEntry, FileClasses
from .evidence import Evidence
from .helpers import HelperEntry
from .index import Definition, FileIndex
from .layout import Stamp
from .references import FileReferences
from .savers import SaverEntry


class IndexStore:
    def __init__(self, cache_dir: Path, root: Path) -> None:
        self._cache_dir = cache_dir
        name = hashlib.sha256(str(root).encode()).hexdigest()[:32]
        self._path = cache_dir / f"v{FORMAT}" / "index" / f"{name}.json"
        self._entries = self._load()
        self._changed = False

    def get(self, relative: str, stamped: Stamp | None) -> FileIndex | None:
        entry = self._entries.get(relative)
        if stamped is None or entry is None or tuple(entry[0]) != stamped:
            return None
        with contextlib.suppress(ValueError, TypeError, KeyError, IndexError):
            return decoded_index(entry[1])
        return None

    def put(self, relative: str, stamped: Stamp | None, index: FileIndex) -> None:
        if stamped is not None:
            self._entries[relative] = [list(stamped), encoded_index(index), None, None]
            self._changed = True

    def calls(self, relative: str, searched: Wanted) -> FileCalls | None:
        """The file's calls, kept with its index (``get`` checked that it is current) when they
        were searched for the same definitions."""
        entry = self._entries.get(relative)
        if entry is None or entry[2] != searched.digest:
            return None
        with contextlib.suppress(ValueError, TypeError, KeyError, IndexError):
            return decoded_calls(entry[3])
        return None

    def put_calls(self, relative: str, searched: Wanted, calls: FileCalls) -> None:
        entry = self._entries.get(relative)
        if entry is not None:
            entry[2:] = [searched.digest, encoded_calls(calls)]
            self._changed = True

    def save(self, kept: set[str]) -> None:
        """Write the entries of the files still there, if any was added or removed."""
        gone = self._entries.keys() - kept
        if not self._changed and not gone:
            return
        for relative in gone:
            del self._entries[relative]
        document = {"tool": TOOL, "identity": tool_identity(), "files": self._entries}
        with contextlib.suppress(OSError, ValueError):
            make_cache_directory(self._cache_dir)
            self._path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self._path, json.dumps(document))

    def _load(self) -> dict[str, Any]:
        try:
            with self._path.open("rb") as file:
                document = json.loads(file.read())
        except (OSError, ValueError, RecursionError, MemoryError):
            return {}
        ours = isinstance(document, dict) and document.get("tool") == TOOL
        if not ours or document.get("identity") != tool_identity():
            return {}
        files = document.get("files")
        return files if isinstance(files, dict) else {}


def encoded_index(index: FileIndex) -> list[Any]:
    evidence = [[item.kind, item.path, item.line] for item in index.evidence]
    imports = [[name, line] for name, line in index.imports]
    definitions = [
        [item.name, list(item.parameters), item.positional, list(item.cuda_defaults), item.uses_cuda]
        for item in index.definitions
    ]
    return [
        index.path,
        index.package,
        evidence,
        index.cuda_uses,
        index.guarded_cuda_uses,
        index.mentions_accelerator,
        imports,
        definitions,
        _encoded_classes(index.classes),
        _encoded_references(index.references),
        [[name, line] for name, line in index.module_imports],
        [[name, line] for name, line in index.other_imports],
        index.runs_as_a_script,
    ]


def _encoded_classes(classes: FileClasses) -> list[Any]:
    entries = [
        [
            entry.name,
            list(entry.bases),
            entry.places_itself,
            entry.keeps_no_tensors,
            list(entry.replaces_without_cuda),
        ]
        for entry in classes.entries
    ]
    helpers = [
        [helper.name, helper.returns, [list(pair) for pair in helper.parameters], list(helper.kinds)]
        for helper in classes.helpers
    ]
    savers = [[saver.name, [list(pair) for pair in saver.saves_under]] for saver in classes.savers]
    return [entries, [list(pair) for pair in classes.uses], [list(pair) for pair in classes.exports], helpers, savers]


def _decoded_classes(row: list[Any]) -> FileClasses:
    entries, uses, exports, helpers, savers = row
    found = tuple(
        ClassEntry(str(name), _strings(bases), bool(places), bool(plain), _strings(replaces))
        for name, bases, places, plain, replaces in entries
    )
    saving = tuple(SaverEntry(str(name), decoded_parameters(under)) for name, under in savers)
    helping = tuple(
        HelperEntry(str(name), str(returns), decoded_parameters(about), _strings(kinds))
        for name, returns, about, kinds in helpers
    )
    return FileClasses(found, _pairs(uses), _pairs(exports), helping, saving)


def _named_lines(rows: list[Any]) -> tuple[tuple[str, int], ...]:
    return tuple((str(name), int(line)) for name, line in rows)


def _pairs(rows: list[Any]) -> tuple[tuple[str, str], ...]:
    return tuple((str(first), str(second)) for first, second in rows)


def decoded_index(row: list[Any]) -> FileIndex:
    """The index ``encoded_index`` wrote; ValueError or TypeError for anything else."""
    path, package, evidence, cuda_uses, guarded, mentions, imports, definitions, classes, references, *rest = row
    loaded, others, script = rest
    found = tuple(Evidence(str(kind), str(where), int(line)) for kind, where, line in evidence)
    defined = tuple(
        Definition(str(name), _strings(parameters), int(positional), _strings(defaults), bool(uses))
        for name, parameters, positional, defaults, uses in definitions
    )
    return FileIndex(
        str(path),
        str(package),
        found,
        int(cuda_uses),
        int(guarded),
        bool(mentions),
        _named_lines(imports),
        defined,
        _decoded_classes(classes),
        _decoded_references(references),
        _named_lines(loaded),
        _named_lines(others),
        bool(script),
    )


def _encoded_references(found: FileReferences) -> list[Any]:
    names = [sorted(found.local), sorted(found.anywhere), list(found.imported), list(found.stars), list(found.reached)]
    read_in = [[name, sorted(reads)] for name, reads in found.read_in]
    return [list(found.defined), *names, found.reaches_any, read_in]


def _decoded_references(row: list[Any]) -> FileReferences:
    defined, local, anywhere, imported, stars, reached, reaches_any, read_in = row
    return FileReferences(
        _strings(defined),
        frozenset(_strings(local)),
        frozenset(_strings(anywhere)),
        _strings(imported),
        _strings(stars),
        _strings(reached),
        bool(reaches_any),
        tuple((str(name), frozenset(_strings(reads))) for name, reads in read_in),
    )


def encoded_calls(calls: FileCalls) -> list[Any]:
    sites = [
        [site.callee, site.caller, site.guarded, site.positional, list(site.keywords), site.unpacks]
        for site in calls.sites
    ]
    exports = [list(pair) for pair in calls.exports]
    return [sites, list(calls.references), exports, list(calls.unread)]


def decoded_calls(row: list[Any]) -> FileCalls:
    """The calls ``encoded_calls`` wrote; ValueError or TypeError for anything else."""
    sites, references, exports, unread = row
    found = tuple(
        CallSite(str(callee), _optional(caller), bool(guarded), int(count), _strings(names), bool(unpacks))
        for callee, caller, guarded, count, names, unpacks in sites
    )
    return FileCalls(found, _strings(references), _pairs(exports), _strings(unread))


def _optional(text: Any) -> str | None:
    return None if text is None else str(text)


def _strings(items: list[Any]) -> tuple[str, ...]:
    return tuple(str(item) for item in items)
