"""Where one file calls the project's definitions (``index.Definition``), read with ``ast``: plain data.

A definition's callers may sit in any file, and most files call none: a file is parsed only when
``may_call`` finds in its text a definition's name together with an import of it, or of its
module (every call from another file needs one), and in a parsed file only the statements whose
lines name one are walked. What a file records depends on which definitions the project has
(``Wanted``), so the index store keeps it with their digest.

A call is *guarded* where it runs only with CUDA: in the true branch of a CUDA check (``if
torch.cuda.is_available():``, ``if args.cuda:``, ``x if torch.cuda.is_available() else y``, the
right side of ``torch.cuda.is_available() and ...``), in the false branch of a check against it
(``if not ...``, ``if args.no_cuda:``), after an early exit without CUDA (``if not
torch.cuda.is_available(): return``), or in a function named for CUDA or decorated with a CUDA
check (``@pytest.mark.skipif(not torch.cuda.is_available(), ...)``). Unlike the belief's
statistics (``index``), which count a use next to any CUDA test, this tells the two branches apart.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from .cuda_tests import mentions_cuda, runs_with_cuda
from .index import (
    exits,
    lines_with_words,
    names_a_word,
    read_imports,
    skips,
)
from .layout import importing_package, module_name
from .names import qualified
from .nodes import DEFINITIONS


@dataclass(frozen=True)
class CallSite:
    # The callee's dotted name, its first part read through the file's imports or its own
    # top-level names: ``pkg.utils.to_device`` for ``utils.to_device(...)`` or ``to_device(...)``.
    callee: str
    # The top-level function (or top-level class, for its ``__init__``) the call is in, by dotted
    # name: guarded wherever that one's every call is. None for the module's own code and elsewhere.
    caller: str | None
    guarded: bool
    positional: int  # arguments passed by position
    keywords: tuple[str, ...]  # and by keyword
    unpacks: bool  # ``*args`` or ``**kwargs``: it may pass anything


@dataclass(frozen=True)
class FileCalls:
    sites: tuple[CallSite, ...] = ()
    # Dotted names of definitions used other than by calling them: handed on (``pool.map(f, xs)``),
    # subclassed, or reached through (``Trainer.from_config(...)``). Their calls are not all seen.
    references: tuple[str, ...] = ()
    # The file's imports of the wanted names (local name, dotted name): a package's ``__init__``
    # that re-exports a definition, read through by ``from pkg import name``.
    exports: tuple[tuple[str, str], ...] = ()
    # Wanted names in a file too deeply nested to walk: their calls there are unknown.
    unread: tuple[str, ...] = ()


NO_CALLS = FileCalls()


@dataclass(frozen=True)
class Wanted:
    """The project's definitions, as the files are searched for them: each name with the parts
    of each module that defines it (``pkg`` and ``utils`` for ``pkg.utils``)."""

    definitions: tuple[tuple[str, str], ...]  # (module, name), sorted

    @cached_property
    def names(self) -> frozenset[str]:
        return frozenset(name for _, name in self.definitions)

    @cached_property
    def digest(self) -> str:
        """What a file's record depends on: it is read again when this changes."""
        return hashlib.sha256(repr(self.definitions).encode()).hexdigest()[:32]

    @cached_property
    def _searches(self) -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
        modules: dict[str, set[str]] = {}
        for module, name in self.definitions:
            # ``import face_detection`` then ``face_detection.FaceAlignment(...)``: a package above
            # the module may re-export the name, so each part of the module's name counts.
            modules.setdefault(name, set()).update(module.split("."))
        return [(name, _imported([name]), _imported(sorted(found))) for name, found in sorted(modules.items())]

    def may_call(self, text: str) -> bool:
        """Whether another file's ``text`` may use a definition: it names one, and an import
        statement names it (``from .utils import to_device``, also re-exported: ``from pkg import
        to_device``) or names its module or a package above it, used with a dot (``from pkg import
        utils``, ``import pkg.utils as u``, then ``u.to_device``; ``import pkg``, then
        ``pkg.to_device``). A call from another file needs one of them."""
        for name, imports_it, imports_module in self._searches:
            if name not in text:
                continue
            if imports_it.search(text) or (f".{name}" in text and imports_module.search(text)):
                return True
        return False


def _imported(words: list[str]) -> re.Pattern[str]:
    """An import statement naming one of ``words``, on one line or in parentheses."""
    alternatives = "|".join(re.escape(word) for word in words)
    return re.compile(rf"(?:from|import)(?:[^\n;]*?|\s*\([^)]*?)\b(?:{alternatives})\b")


def wanted(definitions: Iterable[tuple[str, str]]) -> Wanted:
    return Wanted(tuple(sorted(set(definitions))))


def read_calls(source: str, path: str, searched: Wanted) -> FileCalls:
    """The calls of and references to ``searched``'s definitions in one file (relative ``path``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return NO_CALLS
    module = module_name(path)
    aliases = read_imports(tree, importing_package(path)).aliases
    names = searched.names
    renamed = [local for local, dotted in aliases.items() if dotted.rsplit(".", 1)[-1] in names]
    reader = _CallReader(
        module,
        aliases,
        {node.name for node in tree.body if isinstance(node, DEFINITIONS)},
        names,
        lines_with_words(source, [*names, *renamed]),
    )
    exports = tuple(sorted((local, aliases[local]) for local in renamed))
    try:
        reader.block(tree.body, False)
    except Exception:  # deeper than Python's own limit, or a fault of the reader: what was not read is unknown
        return FileCalls(exports=exports, unread=tuple(sorted(name for name in names if name in source)))
    return FileCalls(tuple(reader.sites), tuple(reader.references), exports)


def _leaves_without_cuda(statement: ast.stmt, aliases: dict[str, str]) -> bool:
    """``if not torch.cuda.is_available(): return`` (or raise, skip, exit), ``assert
    torch.cuda.is_available()``: what follows in the block runs only with CUDA."""
    if isinstance(statement, ast.Assert):
        return runs_with_cuda(statement.test, aliases) is True
    if not isinstance(statement, ast.If) or runs_with_cuda(statement.test, aliases) is not False:
        return False
    body = statement.body
    leaves = any(isinstance(item, (ast.Return, ast.Raise, ast.Continue, ast.Break)) for item in body)
    return leaves or exits(body, aliases) or skips(body, aliases)


# Fields that hold no code that runs: a type annotation names a class without constructing it.
_NOT_RUN = frozenset({"annotation", "returns", "type_comment"})


@dataclass
class _CallReader:
    module: str
    aliases: dict[str, str]
    top_level: set[str]  # the module's own functions and classes
    names: frozenset[str]
    counts: list[int]  # lines_with_words of the names
    sites: list[CallSite] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    _caller: str | None = None  # CallSite.caller of the calls walked
    _depth: int = 0  # functions and classes around the current statement
    _class: str | None = None  # the top-level class walked
    _in_class: bool = False  # directly in a class's body

    def block(self, statements: list[ast.stmt], guarded: bool) -> None:
        for statement in statements:
            if names_a_word(statement, self.counts):
                self.statement(statement, guarded)
            guarded = guarded or _leaves_without_cuda(statement, self.aliases)

    def statement(self, statement: ast.stmt, guarded: bool) -> None:
        if isinstance(statement, ast.If):
            self.visit(statement.test, guarded)
            branch = runs_with_cuda(statement.test, self.aliases)
            self.block(statement.body, guarded or branch is True)
            self.block(statement.orelse, guarded or branch is False)
        elif isinstance(statement, DEFINITIONS):
            self.definition(statement, guarded)
        else:
            self.parts(statement, guarded)

    def definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, guarded: bool) -> None:
        """Its decorators, defaults and bases run where it is defined, its body where it is called;
        either way, only where it is defined (under a CUDA check, after an exit without CUDA)."""
        head = [*node.decorator_list, *(node.bases if isinstance(node, ast.ClassDef) else [node.args])]
        for part in head:
            self.visit(part, guarded)
        decorated = any(mentions_cuda(decorator, self.aliases) for decorator in node.decorator_list)
        marked = decorated or runs_with_cuda(ast.Name(node.name), self.aliases) is True  # ``def _cuda_step``
        outer = (self._caller, self._class, self._in_class)
        self._caller = self._caller_in(node)
        if isinstance(node, ast.ClassDef) and self._depth == 0:
            self._class = node.name
        self._in_class = isinstance(node, ast.ClassDef)
        self._depth += 1
        self.block(node.body, guarded or marked)
        self._depth -= 1
        self._caller, self._class, self._in_class = outer

    def _caller_in(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str | None:
        """Whose calls decide whether the body of ``node`` runs with CUDA: a top-level function's
        own, a top-level class's for its ``__init__``, the enclosing function's for a nested one."""
        if isinstance(node, ast.ClassDef):
            return None  # its body runs where it is defined
        if self._depth == 0:
            return f"{self.module}.{node.name}"
        if self._in_class:
            constructor = self._depth == 1 and node.name == "__init__" and self._class is not None
            return f"{self.module}.{self._class}" if constructor else None
        return self._caller

    def parts(self, node: ast.AST, guarded: bool) -> None:
        for name, value in ast.iter_fields(node):
            if name in _NOT_RUN:
                continue
            items = value if isinstance(value, list) else [value]
            statements = [item for item in items if isinstance(item, ast.stmt)]
            if statements:
                self.block(statements, guarded)
            for item in items:
                if isinstance(item, ast.AST) and not isinstance(item, ast.stmt):
                    self.visit(item, guarded)

    def visit(self, node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.IfExp):
            self.visit(node.test, guarded)
            branch = runs_with_cuda(node.test, self.aliases)
            self.visit(node.body, guarded or branch is True)
            self.visit(node.orelse, guarded or branch is False)
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                self.visit(value, guarded)
                # ``torch.cuda.is_available() and f()``, ``not torch.cuda.is_available() or f()``
                guarded = guarded or runs_with_cuda(value, self.aliases) is isinstance(node.op, ast.And)
        elif isinstance(node, ast.Call):
            self.call(node, guarded)
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            self.reference(node, guarded)
        else:
            self.parts(node, guarded)

    def call(self, node: ast.Call, guarded: bool) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "super":
            return  # ``super(Block, self)`` names its own class to reach the base's methods: no use of it
        callee = self.dotted(node.func)
        if callee is not None:
            positional = sum(not isinstance(arg, ast.Starred) for arg in node.args)
            keywords = tuple(keyword.arg for keyword in node.keywords if keyword.arg is not None)
            unpacks = positional < len(node.args) or len(keywords) < len(node.keywords)
            self.sites.append(CallSite(callee, self._caller, guarded, positional, keywords, unpacks))
        else:
            self.visit(node.func, guarded)
        for part in [*node.args, *node.keywords]:
            self.visit(part, guarded)

    def reference(self, node: ast.Name | ast.Attribute, guarded: bool) -> None:
        dotted = self.dotted(node)
        if dotted is not None:
            self.references.append(dotted)
        elif isinstance(node, ast.Attribute):
            self.visit(node.value, guarded)  # ``make().to_device``: what ``make`` is called

    def dotted(self, node: ast.expr) -> str | None:
        """The dotted name of a chain that names a wanted definition, read through the imports
        (``u.to_device`` -> ``pkg.utils.to_device``) or the module's own names; None otherwise."""
        name = qualified(node, self.aliases)
        if name is None or not self.names.intersection(name.split(".")):
            return None
        head = name.split(".", 1)[0]
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.aliases:
            return name
        return f"{self.module}.{name}" if head in self.top_level else None
