"""Which names each scope binds, noted by the collector's one walk (``Evidence.bound``).

A name a fix writes into the code (``map_location=device``) must resolve where it is written: a
parameter, a local, a name of an enclosing function or of the module. Class bodies are apart:
their names are not visible in their methods. Each scope keeps a name's first binding, so a
query can tell whether it comes before a use.

It also names each definition with its *key*: its qualified name, as Python's ``__qualname__``
(``C.forward``, ``build.<locals>.Head``), and ``#2``, ``#3``... for a name defined again in the
same scope (``class Stats`` in both branches of an ``if``). Plain data, unique in the file, and
unchanged by edits outside the scope (an ordinal in the whole file would change).
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from .definitions import ClassInfo, Definitions, FunctionInfo
from .syntax import all_params


class BindingRecorder:
    def __init__(self, definitions: Definitions) -> None:
        self.definitions = definitions
        # The module's or a function's names; None in a class body.
        self.scopes: list[dict[str, cst.CSTNode] | None] = [definitions.module_evidence.bound]
        self.functions: list[FunctionInfo] = []
        self.prefixes = [""]  # what qualifies a name defined here: "", "C.", "f.<locals>."
        self.keys: Counter[str] = Counter()

    def key(self, node: cst.FunctionDef | cst.ClassDef) -> str:
        """The key of a definition in the current scope."""
        qualified = self.prefixes[-1] + node.name.value
        self.keys[qualified] += 1
        count = self.keys[qualified]
        return qualified if count == 1 else f"{qualified}#{count}"

    def note(self, name: str, node: cst.CSTNode) -> None:
        bound = self.scopes[-1]
        if bound is not None and name not in bound:
            bound[name] = node

    def enter_function(self, info: FunctionInfo) -> None:
        """``def f(...)`` binds ``f`` where it stands, and opens a scope holding its parameters."""
        self.note(info.name, info.node)
        if self.functions:
            self.definitions.enclosing[id(info.node)] = self.functions[-1]
        for param in all_params(info.node.params):
            info.evidence.bound.setdefault(param.name.value, param)
        self.scopes.append(info.evidence.bound)
        self.functions.append(info)
        self.prefixes.append(f"{info.key}.<locals>.")

    def exit_function(self) -> None:
        self.scopes.pop()
        self.functions.pop()
        self.prefixes.pop()

    def enter_class(self, info: ClassInfo) -> None:
        self.note(info.name, info.node)
        self.scopes.append(None)
        self.prefixes.append(f"{info.key}.")

    def exit_class(self) -> None:
        self.scopes.pop()
        self.prefixes.pop()
