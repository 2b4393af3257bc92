"""Which of a project's top-level functions and classes no code that may run refers to: code
that never runs, where a finding is a guess that it will.

Each file's index keeps the names it defines at its top level (``def`` and ``class`` statements
without decorators, which may register them), every identifier it refers to (a name it reads, an
attribute, an imported name, a word of a string: ``__all__``, an entry point, a name a registry is
given), and the modules whose names it may reach by a name computed as it runs (its own, where it
calls ``eval`` or ``globals()``; one it asks ``getattr(models, args.arch)``). The project then calls
a definition unreferenced when no code that may run refers to its name (a file's top-level code,
and the definitions such code refers to, to a fixed point) and no file may reach its module's
names, and says nothing at all where a file imports modules by a computed name
(``importlib.import_module``, Hydra's ``instantiate``): a configuration may name any class.

Left out as entry points: tests (a runner calls them), ``hubconf.py`` (``torch.hub`` calls its
functions by name), dunder names, and, in a library (``is_library``), every public name: its
users call them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..knowledge import api
from .layout import module_name
from .names import IDENTIFIER, NOT_THE_PROJECT, dotted, qualified, read_through
from .nodes import DEFINITIONS

# Calls that reach a module's names by a name computed as the program runs: any module's, or the
# calling module's own.
_IMPORTS_BY_NAME = frozenset(
    {
        "__import__",
        "sys.modules.get",
        "importlib.import_module",
        "importlib.util.spec_from_file_location",
        "pydoc.locate",
        "hydra.utils.instantiate",
        "hydra.utils.call",
        "hydra.utils.get_class",
        "hydra.utils.get_method",
    }
)
# Calls that reach their own module's names: ``globals()[name]``, ``locals()`` at the top level,
# ``fire.Fire()`` (every function of the module becomes a command).
_EVALUATES = frozenset({"eval", "exec", "globals", "locals", "vars", "fire.Fire"})
# Bases whose methods nothing but the class's own code calls by name: ``object``, and ``nn.Module``,
# which calls its own methods only (``forward`` through ``__call__``).
_PLAIN_BASES = frozenset({"object", "torch.nn.Module", "torch.nn.modules.module.Module"})
# Metaclasses that register nothing.
_PLAIN_METACLASSES = frozenset({"abc.ABCMeta", "ABCMeta", "type", "enum.EnumMeta", "typing.Protocol"})
# Strings that name a definition are short (``"pkg.cli:main"``, an ``__all__`` entry, a registry
# key); longer ones are prose (docstrings, messages), which mentions names without calling them.
_NAMING_STRING = 200


@dataclass(frozen=True)
class FileReferences:
    # Its top-level functions and classes that nothing but a reference can run (no decorator).
    defined: tuple[str, ...] = ()
    # The names it reads (its own module's, and those of the modules it imports with ``*``) in code
    # that runs whether or not anything refers to its candidates: all but their functions' bodies.
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
    # The names each of its top-level candidates reads (``local`` holds those the rest of the file
    # reads): they count only where that definition may run (``ProjectReferences``).
    read_in: tuple[tuple[str, frozenset[str]], ...] = ()


NO_REFERENCES = FileReferences()


def read_references(
    tree: ast.Module,
    parts: Sequence[Iterable[ast.AST]],
    aliases: Mapping[str, str],
    imported: Iterable[str],
    module: str,
    stars: Sequence[str],
    called_by_name: bool,
) -> FileReferences:
    """The references of a parsed file (``parts``: the nodes of each statement of ``tree.body``,
    ``nodes.descendants``), the module ``module``, whose imports are ``aliases`` (by local name)
    and ``imported`` (every one, ``index.FileImports.every``) and which imports
    every name of the modules ``stars``; where something outside the code calls its definitions by
    name (``called_by_name``: tests, ``hubconf.py``), none of them is a candidate. A definition's
    own name read inside it (``super(VGGLoss, self)``, a recursive call) refers to nothing else."""
    local: set[str] = set()
    anywhere: set[str] = set()
    reached: set[str] = set()
    read_in: list[tuple[str, frozenset[str]]] = []
    reaches_any = False
    for statement, part in zip(tree.body, parts):
        itself = statement.name if isinstance(statement, DEFINITIONS) else None
        names, words, reached_here, reaches = _read(part, aliases, module, stars)
        if itself is not None and not called_by_name and _a_candidate(statement):
            at_import, _, _, _ = _read(_run_at_import(statement), aliases, module, stars)
            read_in.append((itself, frozenset(names - at_import - {itself})))
            local |= at_import - {itself}
        else:
            local |= names - {itself}
        anywhere |= words
        reached |= reached_here
        reaches_any = reaches_any or reaches
    # ``getattr(self, "forward_" + mode)``, ``dir(self)`` reach no module (""): any method of the file.
    defined = () if called_by_name else tuple(_candidates(tree.body, aliases, methods="" not in reached))
    every = tuple(sorted(set(aliases.values()) | set(imported)))
    computed = tuple(sorted(reached - {""}))
    return FileReferences(
        defined, frozenset(local), frozenset(anywhere), every, tuple(stars), computed, reaches_any, tuple(read_in)
    )


def _run_at_import(definition: ast.stmt) -> list[ast.AST]:
    """The nodes of a definition that run as the module is imported, referred to or not: all but
    the bodies of its functions (methods included), so a class body (``table = build_table()``),
    defaults, decorators and bases. One pass, that does not enter a function's body."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = [definition]
    while pending:
        node = pending.pop()
        found.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            pending.extend([*node.decorator_list, node.args, *([node.returns] if node.returns else [])])
        else:
            pending.extend(ast.iter_child_nodes(node))
    return found


def _a_candidate(definition: ast.stmt) -> bool:
    """A top-level definition only a reference can run: no decorator (which may register it), no
    dunder name."""
    return (
        isinstance(definition, DEFINITIONS) and not definition.decorator_list and not definition.name.startswith("__")
    )


def _read(
    nodes: Iterable[ast.AST], aliases: Mapping[str, str], module: str, stars: Sequence[str]
) -> tuple[set[str], set[str], set[str], bool]:
    """What ``nodes`` refer to: the names they read, the attributes and words of strings they
    name, the modules they may reach by a computed name, and whether they may reach any module's."""
    local: set[str] = set()
    anywhere: set[str] = set()
    reached: set[str] = set()
    reaches_any = False
    for node in nodes:
        if isinstance(node, ast.Name):
            local.add(node.id)
        elif _registers_classes(node, aliases):
            reaches_any = True  # a registry may hand out any class made
        elif isinstance(node, ast.Attribute):
            if not _of_another_package(node.value, aliases):  # ``torch.cuda.set_device`` is not ours
                anywhere.add(node.attr)
            if node.attr == "__dict__":  # ``models.__dict__[args.arch]``
                reached.add(_module_named(node.value, aliases))
        elif isinstance(node, ast.Subscript) and dotted(node.value) == "sys.modules":
            reaches_any = True  # ``sys.modules[name]``, not ``"google.colab" in sys.modules``
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) <= _NAMING_STRING:
            anywhere.update(IDENTIFIER.findall(node.value))
        elif isinstance(node, ast.Call):
            called = qualified(node.func, aliases)
            if called in _IMPORTS_BY_NAME:
                reaches_any = True
            elif called == "vars" and node.args:  # ``vars(models)[name]``; ``vars(opt)`` reaches no module
                reached.add(_module_named(node.args[0], aliases))
            elif called in _EVALUATES:  # ``eval(spec)``, ``globals()``: any name the module sees
                reached.update((module, *stars))
            elif _asks_by_a_computed_name(called, node):  # ``getattr(models, name)``, ``dir(self)``
                reached.add(_module_named(node.args[0], aliases))
    return local, anywhere, reached, reaches_any


def _of_another_package(owner: ast.expr, aliases: Mapping[str, str]) -> bool:
    """Is ``owner`` an imported module of torch, NumPy or the standard library (``torch.cuda`` of
    ``torch.cuda.set_device``)? Its attributes name its functions, never the project's."""
    spelled = dotted(owner)
    if spelled is None or spelled.partition(".")[0] not in aliases:
        return False
    return (read_through(spelled, aliases) or "").partition(".")[0] in NOT_THE_PROJECT


def _registers_classes(node: ast.AST, aliases: Mapping[str, str]) -> bool:
    """Is the node a way to register classes as they are made, for a name to pick them later: an
    ``__init_subclass__``, a class with a metaclass of its own (not ``abc.ABCMeta``),
    ``Base.__subclasses__``? A class such a registry holds runs where nothing names it in the code."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name == "__init_subclass__"
    if isinstance(node, ast.Attribute):
        return node.attr == "__subclasses__"
    if isinstance(node, ast.ClassDef):
        metaclasses = (qualified(keyword.value, aliases) for keyword in node.keywords if keyword.arg == "metaclass")
        return any(metaclass not in _PLAIN_METACLASSES for metaclass in metaclasses)
    return False


def _asks_by_a_computed_name(called: str | None, call: ast.Call) -> bool:
    """``getattr(obj, name)`` with a name computed as the program runs, or ``dir(obj)``: any
    attribute of ``obj`` may be asked for."""
    if called == "dir":
        return bool(call.args)
    return called == "getattr" and len(call.args) >= 2 and not isinstance(call.args[1], ast.Constant)


def _module_named(node: ast.expr, aliases: Mapping[str, str]) -> str:
    """The imported module an expression names (``models``), or "" for anything else."""
    return read_through(dotted(node) or "", aliases) or ""


def _candidates(body: list[ast.stmt], aliases: Mapping[str, str], methods: bool) -> Iterable[str]:
    """The top-level definitions only a reference can run, and (with ``methods``: the file asks for
    no attribute by a computed name) the methods of the classes whose methods only the project
    calls (``Class.method``)."""
    classes = {node.name: node for node in body if isinstance(node, ast.ClassDef)}
    for definition in (node for node in body if isinstance(node, DEFINITIONS)):
        if _a_candidate(definition):
            yield definition.name
        if methods and isinstance(definition, ast.ClassDef) and _only_the_project_calls(definition, aliases, classes):
            for method in definition.body:
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and _called_by_name_only(method):
                    yield f"{definition.name}.{method.name}"


def _only_the_project_calls(cls: ast.ClassDef, aliases: Mapping[str, str], classes: Mapping[str, ast.ClassDef]) -> bool:
    """Are the class's methods called only by names the project writes? An undecorated class (a
    registry may hand it to a framework) whose bases are plain or ``nn.Module``, or classes of the
    file that are so themselves: no framework base calls a hook of it by name (a Lightning module's
    ``training_step``, a Hugging Face model's ``_init_weights``), and ``nn.Module`` calls only its
    own methods, which an override keeps (``_called_by_name_only``)."""
    seen: set[str] = set()
    pending = [cls]
    while pending:
        current = pending.pop()
        if current.keywords or current.decorator_list or current.name in seen:  # ``metaclass=...``
            return False
        seen.add(current.name)
        for base in (qualified(base, aliases) or "" for base in current.bases):
            if base in classes and base != current.name:
                pending.append(classes[base])
            elif base not in _PLAIN_BASES:
                return False
    return True


def _called_by_name_only(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A method that runs only where code asks for it by its name: no decorator (a property, a
    registered hook), no dunder, no override of ``nn.Module``'s (``train``, which ``eval()`` calls)."""
    name = method.name
    called_by_torch = name in api.MODULE_OWN_METHODS or name in api.MODULE_HOOKS_CALLED_BY_NAME
    return not method.decorator_list and not name.startswith("__") and not called_by_torch


class ProjectReferences:
    """Which files refer to each top-level definition of the project, from every file's references,
    counting only the code that may run: a file's top-level code and its definitions something
    that may run refers to (in a ``library``, its public ones too, which its users call). A
    function only a dead one calls is dead too (GraphRNN's ``sample_sigmoid_supervised``, called
    only by ``train_graph_completion``, whose one call is commented out)."""

    def __init__(
        self,
        files: Iterable[tuple[str, FileReferences]],
        documented: frozenset[str] = frozenset(),
        library: bool = False,
    ) -> None:
        self._files = dict(files)
        self._documented = documented
        self._library = library
        # A module may be imported by computed names: nothing is known of who refers to what.
        self.unknown = any(found.reaches_any for found in self._files.values())
        self._anywhere = _by_item((path, found.anywhere) for path, found in self._files.items())
        self._imported = _by_item((path, found.imported) for path, found in self._files.items())
        self._reached = _by_item((path, found.reached) for path, found in self._files.items())
        self._names: dict[str, set[str]] = {}  # ``_names_of``, by module
        self._starred: dict[str, list[str]] = {}
        for path, found in self._files.items():
            for star in found.stars:
                self._starred.setdefault(star, []).append(path)
        # The names each file reads in code that may run, grown to a fixed point (``_live_reads``).
        self._live: dict[str, set[str]] = {path: set(found.local) for path, found in self._files.items()}
        if not self.unknown:
            self._live_reads()

    def _live_reads(self) -> None:
        """Add to ``_live`` what each definition that may run reads, until none is left to add: a
        definition may run where code that may run refers to it. A worklist: a definition found
        dead is asked again only when its name becomes read."""
        waiting: dict[str, list[tuple[str, frozenset[str]]]] = {}  # by name: (path, reads) not known live
        asked = [(path, name, reads) for path, found in self._files.items() for name, reads in found.read_in]
        while asked:
            path, name, reads = asked.pop()
            public = self._library and not name.startswith("_")
            if not (public or name in self._documented or self._referrers(path, name)):
                waiting.setdefault(name, []).append((path, reads))
                continue
            for read in reads - self._live[path]:
                self._live[path].add(read)
                asked.extend((other, read, their) for other, their in waiting.pop(read, ()))

    def unreferenced(self, path: str) -> tuple[str, ...]:
        """The file's top-level definitions, and methods (``Class.method``), nothing that may run
        refers to (in a library, private ones only)."""
        found = self._files.get(path)
        if self.unknown or found is None:
            return ()
        candidates = (name for name in found.defined if not self._library or name.rpartition(".")[2].startswith("_"))
        return tuple(name for name in candidates if not self._referred_to(path, name))

    def _referred_to(self, path: str, name: str) -> bool:
        owner, _, method = name.rpartition(".")
        if owner:  # a method: asked for as an attribute, or named in a string, anywhere
            return method in self._documented or method in self._anywhere or method in self._live[path]
        return name in self._documented or bool(self._referrers(path, name))

    def only_here(self, path: str, name: str) -> bool:
        """Whether only the defining file refers to ``name`` (nothing else may call it)."""
        return not self.unknown and name not in self._documented and self._referrers(path, name) <= {path}

    def _referrers(self, path: str, name: str) -> set[str]:
        referrers = {path} if name in self._live[path] else set()
        referrers |= self._anywhere.get(name, set())
        for module in self._names_of(module_name(path)):
            for spelled in _suffixes(f"{module}.{name}"):
                referrers |= self._imported.get(spelled, set())
            for spelled in _suffixes(module):
                referrers |= {star for star in self._starred.get(spelled, ()) if name in self._live[star]}
            # A module reached by a computed name, or a package above it, which may import it:
            # ``eval("CLRec.CLRec")`` after ``from models.developing import *`` (whose ``__all__``
            # lists its modules).
            for package in _packages_of(module):
                for spelled in _suffixes(package):
                    referrers |= self._reached.get(spelled, set())
        return referrers

    def _names_of(self, module: str) -> set[str]:
        """The module's dotted name, and those of the modules that re-export its names with ``*``
        (``pkg/__init__.py``'s ``from .core import *`` makes ``pkg.build`` name ``pkg.core.build``)."""
        known = self._names.get(module)
        if known is not None:
            return known
        names = self._names[module] = {module}
        pending = [module]
        while pending:
            spelled = _suffixes(pending.pop())
            for importer in (star for name in spelled for star in self._starred.get(name, ())):
                importer_module = module_name(importer)
                if importer_module not in names:
                    names.add(importer_module)
                    pending.append(importer_module)
        return names


def _by_item(files: Iterable[tuple[str, Iterable[str]]]) -> dict[str, set[str]]:
    """Each item (a name, a module) -> the files that hold it."""
    found: dict[str, set[str]] = {}
    for path, items in files:
        for item in items:
            found.setdefault(item, set()).add(path)
    return found


def _packages_of(module: str) -> list[str]:
    """``a.b.c``, ``a.b``, ``a``: a module and the packages above it."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


def _suffixes(dotted_name: str) -> list[str]:
    """``a.b.c``, ``b.c``, ``c``: the names a module may be imported by, from folders put on the path."""
    parts = dotted_name.split(".")
    return [".".join(parts[index:]) for index in range(len(parts))]
