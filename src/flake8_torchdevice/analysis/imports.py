"""Which local names refer to which imported objects.

We resolve names from the module's own import statements instead of libcst's
``QualifiedNameProvider``: that provider builds scopes for the whole file and costs
several times a bare parse, while a dictionary of import aliases answers every
question our rules ask ("is this ``torch.device``?").
"""

from __future__ import annotations

from typing import cast

import libcst as cst


def dotted_name(node: cst.CSTNode) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    # Exact types: libcst's node classes are ABCs, slow to ``isinstance``, and never subclassed.
    kind = type(node)
    if kind is cst.Name:  # most often asked, answered without building a list
        return cast(cst.Name, node).value
    if kind is not cst.Attribute:
        return None
    parts = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _module_path(node: cst.BaseExpression) -> str:
    return dotted_name(node) or ""


_CONVENTIONAL_NAMES = {"torch": "torch", "nn": "torch.nn", "np": "numpy"}


class ImportTable:
    """Maps local names to the fully qualified names they were imported as."""

    def __init__(self) -> None:
        self._aliases: dict[str, str] = {}
        # ``qualify``'s answers by node (the same calls are evaluated in loops and summaries again),
        # valid until the next import is recorded. The node is kept with its answer, so that its id
        # cannot be reused by another node meanwhile.
        self._qualified: dict[int, tuple[cst.BaseExpression, str | None]] = {}
        # Per function being walked: the module names its imports rebound, and what they were.
        self._shadowed: list[dict[str, str | None]] = []

    def enter_function(self) -> None:
        """A function's walk begins: its own imports of names the module defines (``record``'s
        ``defined_here``) bind them until ``leave_function``; elsewhere the name is the module's."""
        self._shadowed.append({})

    def leave_function(self) -> None:
        for name, before in self._shadowed.pop().items():
            self._qualified.clear()
            if before is None:
                self._aliases.pop(name, None)
            else:
                self._aliases[name] = before

    def record(self, statement: cst.CSTNode, defined_here: frozenset[str] = frozenset()) -> None:
        """Learn the names bound by an ``import`` or ``from ... import`` statement; those in
        ``defined_here`` only until the function being walked ends (``leave_function``)."""
        self._qualified.clear()
        if isinstance(statement, cst.Import):
            for alias in statement.names:
                module = _module_path(alias.name)
                if alias.asname is not None:
                    local = _module_path(alias.asname.name)
                    self._bind(local, module, defined_here)
                else:
                    # ``import torch.nn`` binds ``torch``, which then reaches ``torch.nn``.
                    root = module.split(".", 1)[0]
                    self._aliases[root] = root
        elif isinstance(statement, cst.ImportFrom):
            if statement.relative or statement.module is None:
                return
            if isinstance(statement.names, cst.ImportStar):
                # ``from utils import *`` may bind anything; the names code conventionally gives
                # torch and NumPy mean them, as a reader takes them, unless imported otherwise.
                for local, module in _CONVENTIONAL_NAMES.items():
                    self._aliases.setdefault(local, module)
                return
            module = _module_path(statement.module)
            for alias in statement.names:
                imported = _module_path(alias.name)
                local = _module_path(alias.asname.name) if alias.asname else imported
                self._bind(local, f"{module}.{imported}", defined_here)

    def _bind(self, local: str, target: str, defined_here: frozenset[str]) -> None:
        if local in defined_here:
            if not self._shadowed:
                return  # no function scope to end it: the module's own name stays
            self._shadowed[-1].setdefault(local, self._aliases.get(local))
        self._aliases[local] = target

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """The qualified name an expression refers to, when it starts at an import.

        ``T.cuda.is_available`` after ``import torch as T`` gives
        ``torch.cuda.is_available``; a name that was never imported gives None.
        """
        known = self._qualified.get(id(node))
        if known is not None:
            return known[1]
        qualified = self._qualify(node)
        self._qualified[id(node)] = (node, qualified)
        return qualified

    def _qualify(self, node: cst.BaseExpression) -> str | None:
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        target = self._aliases.get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def imports_torch(self) -> bool:
        return any(target == "torch" or target.startswith("torch.") for target in self._aliases.values())


def imported_name(node: cst.Import | cst.ImportFrom, alias: cst.ImportAlias) -> str:
    """What an import's alias names in full: ``a.b`` of ``import a.b``, ``pkg.mod`` of ``from pkg import mod``."""
    module = dotted_name(node.module) if type(node) is cst.ImportFrom and node.module is not None else None
    return ".".join(part for part in (module, dotted_name(alias.name)) if part)


def bound_name(alias: cst.ImportAlias) -> str:
    """The local name an import binds: its ``as`` name, else the first part of what it imports."""
    if alias.asname is not None:
        return dotted_name(alias.asname.name) or ""
    return (dotted_name(alias.name) or "").split(".", 1)[0]
