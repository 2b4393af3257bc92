"""Which of a project's top-level functions and classes nothing in the project refers to: code
that never runs, where a finding is a guess that it will.

Each file's index keeps the names it defines at its top level (``def`` and ``class`` statements
without decorators, which may register them), every identifier it refers to (a name it reads, an
attribute, an imported name, a word of a string: ``__all__``, an entry point, a name a registry is
given), and the modules whose names it may reach by a name computed as it runs (its own, where it
calls ``eval`` or ``globals()``; one it asks ``getattr(models, args.arch)``). The project then calls
a definition unreferenced when no file refers to its name and no file may reach its module's
names, and says nothing at all where a file imports modules by a computed name
(``importlib.import_module``, Hydra's ``instantiate``): a configuration may name any class.

Left out as entry points: tests (a runner calls them), ``hubconf.py`` (``torch.hub`` calls its
functions by name), dunder names, and, in a library (``is_library``), every public name: its
users call them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .layout import module_name
from .names import dotted, qualified, read_through

# Calls that reach a module's names by a name computed as the program runs: any module's, or the
# calling module's own.
_IMPORTS_BY_NAME = frozenset(
    {
        "__import__",
        "importlib.import_module",
        "importlib.util.spec_from_file_location",
        "pydoc.locate",
        "hydra.utils.instantiate",
        "hydra.utils.call",
        "hydra.utils.get_class",
        "hydra.utils.get_method",
    }
)
_EVALUATES = frozenset({"eval", "exec", "globals", "vars"})
_WORD = re.compile(r"[A-Za-z_]\w*")
# Strings that name a definition are short (``"pkg.cli:main"``, an ``__all__`` entry, a registry
# key); longer ones are prose (docstrings, messages), which mentions names without calling them.
_NAMING_STRING = 200


@dataclass(frozen=True)
class FileReferences:
    # Its top-level functions and classes that nothing but a reference can run (no decorator).
    defined: tuple[str, ...] = ()
    # The names it reads: its own module's, and those of the modules it imports with ``*``.
    local: frozenset[str] = frozenset()
    # Attributes it asks for and words of its strings, of any module (``utils.train``, ``__all__``,
    # an entry point, a name a registry is given).
    anywhere: frozenset[str] = frozenset()
    # What its ``from m import name`` imports stand for (``pkg.utils.train``), and the modules it
    # imports with ``*``.
    imported: tuple[str, ...] = ()
    stars: tuple[str, ...] = ()
    # Modules (dotted names) whose every top-level name it may reach by a name computed as it runs:
    # its own where it calls ``eval`` or ``globals()``, with those it imports with ``*``; one whose
    # attribute it asks with ``getattr(models, args.arch)``.
    reached: tuple[str, ...] = ()
    # It imports modules by a computed name (``importlib.import_module``, Hydra's ``instantiate``):
    # any definition of the project may run.
    reaches_any: bool = False


NO_REFERENCES = FileReferences()


def read_references(
    tree: ast.Module,
    nodes: Iterable[ast.AST],
    aliases: Mapping[str, str],
    module: str,
    stars: Sequence[str],
    called_by_name: bool,
) -> FileReferences:
    """The references of a parsed file (``nodes``: every node of ``tree``, ``nodes.descendants``), the
    module ``module``, whose imports are ``aliases`` and which imports every name of the modules
    ``stars``; where something outside the code calls its definitions by name (``called_by_name``:
    tests, ``hubconf.py``), none of them is a candidate."""
    local: set[str] = set()
    anywhere: set[str] = set()
    reached: set[str] = set()
    reaches_any = False
    for node in nodes:
        if isinstance(node, ast.Name):
            local.add(node.id)
        elif isinstance(node, ast.Attribute):
            anywhere.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) <= _NAMING_STRING:
            anywhere.update(_WORD.findall(node.value))
        elif isinstance(node, ast.Call):
            called = qualified(node.func, aliases)
            if called in _IMPORTS_BY_NAME:
                reaches_any = True
            elif called in _EVALUATES and (called != "vars" or not node.args):
                reached.update((module, *stars))  # ``vars(opt)`` reads an object, not the module
            elif called == "getattr" and len(node.args) >= 2 and not isinstance(node.args[1], ast.Constant):
                reached.add(read_through(dotted(node.args[0]) or "", aliases) or "")
    defined = () if called_by_name else tuple(_candidates(tree.body))
    imported = tuple(sorted(set(aliases.values())))
    computed = tuple(sorted(reached - {""}))
    return FileReferences(defined, frozenset(local), frozenset(anywhere), imported, tuple(stars), computed, reaches_any)


def _candidates(body: list[ast.stmt]) -> Iterable[str]:
    definitions = (node for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    for definition in definitions:
        if not definition.decorator_list and not definition.name.startswith("__"):
            yield definition.name


def unreferenced(
    files: Iterable[tuple[str, FileReferences]], library: bool, documented: frozenset[str] = frozenset()
) -> dict[str, tuple[str, ...]]:
    """The top-level definitions nothing in the project refers to, by the path of their file;
    none where a file imports modules by a computed name. In a library, only private ones (``_name``);
    none that the README (``documented``: its words) names, which a user calls by hand.
    An import's module is matched by its last parts (``from models.common import C`` in a script
    that puts ``detector/`` on its path reaches ``detector.models.common.C``)."""
    files = list(files)
    if any(found.reaches_any for _, found in files):
        return {}
    anywhere = documented.union(*(found.anywhere for _, found in files))
    imported = frozenset(target for _, found in files for target in found.imported)
    reached = frozenset(module for _, found in files for module in found.reached)
    starred: dict[str, set[str]] = {}
    for _, found in files:
        for star in found.stars:
            starred.setdefault(star, set()).update(found.local)
    dead = {}
    for path, found in files:
        module = module_name(path)
        suffixes = _suffixes(module)
        if not reached.isdisjoint(suffixes):
            continue
        reading = found.local.union(*(starred[suffix] for suffix in suffixes if suffix in starred))
        names = [
            name
            for name in found.defined
            if name not in anywhere
            and name not in reading
            and imported.isdisjoint(_suffixes(f"{module}.{name}"))
            and (not library or name.startswith("_"))
        ]
        if names:
            dead[path] = tuple(names)
    return dead


def _suffixes(dotted_name: str) -> list[str]:
    """``a.b.c``, ``b.c``, ``c``: the names a module may be imported by, from folders put on the path."""
    parts = dotted_name.split(".")
    return [".".join(parts[index:]) for index in range(len(parts))]
