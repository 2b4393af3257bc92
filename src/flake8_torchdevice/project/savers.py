"""Which of the project's callables save a file under an argument, read with ``ast``: plain data.

A training loop often hands its checkpoint directory to a helper of another module
(``early_stopping(val_loss, model, path)``, ``save_checkpoint(state, run_dir)``) and, once the
loop is done, loads the best checkpoint from that directory: a file this run wrote, on this
machine, not one from elsewhere. One file cannot see that the helper saves; the index reads it
from each top-level function and from each top-level class's ``__call__`` (an instance called
like a function), through calls of the class's own methods (``self.save_checkpoint(model,
path)``).

A parameter is saved under when ``torch.save`` (``torch.jit.save``) writes to a path that
mentions it, directly (``path + "/checkpoint.pth"``, ``os.path.join(path, name)``) or through a
local name such an expression bound. The summary is in terms of the call's own arguments, by
position (``self`` left out) and by name, so a file substitutes what it passes.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from ..knowledge import api
from .names import qualified
from .nodes import descendants, own_nodes

# How many rounds of "a method saves under what it passes to another saving method" to follow.
_METHOD_ROUNDS = 3


@dataclass(frozen=True)
class SaverEntry:
    """A top-level function, or a class whose instances save when called, of one file."""

    name: str
    # The parameters it saves under: (position among the call's positional arguments, name).
    saves_under: tuple[tuple[int, str], ...]


def read_savers(tree: ast.Module, aliases: Mapping[str, str]) -> tuple[SaverEntry, ...]:
    """The savers among a parsed file's top-level functions and classes (its imports are ``aliases``)."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            saved = _saved_parameters(node, aliases, {})
            if saved:
                found.append(SaverEntry(node.name, _positions(node, saved, method=False)))
        elif isinstance(node, ast.ClassDef):
            call = _called_instance_saves(node, aliases)
            if call is not None:
                found.append(call)
    return tuple(found)


def _called_instance_saves(node: ast.ClassDef, aliases: Mapping[str, str]) -> SaverEntry | None:
    methods = {item.name: item for item in node.body if isinstance(item, ast.FunctionDef)}
    if "__call__" not in methods:
        return None
    saving: dict[str, tuple[str, ...]] = {}  # method -> its positional parameters that it saves under
    for _ in range(_METHOD_ROUNDS):
        found = {name: _saved_parameters(method, aliases, saving) for name, method in methods.items()}
        now = {name: _positional(methods[name], saved) for name, saved in found.items() if saved}
        if now == saving:
            break
        saving = now
    saved = found["__call__"]
    return SaverEntry(node.name, _positions(methods["__call__"], saved, method=True)) if saved else None


def _saved_parameters(
    function: ast.FunctionDef, aliases: Mapping[str, str], methods: Mapping[str, tuple[str, ...]]
) -> frozenset[str]:
    """The parameters of ``function`` that a path it saves to mentions; ``methods`` are the saving
    methods of its class, by name, with the parameters each saves under (``self.m(...)`` calls)."""
    parameters = {arg.arg for arg in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]}
    nodes = own_nodes(function)
    bound = _bindings(nodes)
    saved: set[str] = set()
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        for path in _written_paths(node, aliases, methods):
            saved |= _mentioned(path, bound) & parameters
    return frozenset(saved)


def _written_paths(
    call: ast.Call, aliases: Mapping[str, str], methods: Mapping[str, tuple[str, ...]]
) -> list[ast.expr]:
    """The paths a call writes: ``torch.save(obj, path)`` (or ``f=path``), or what a call of a
    saving method of the same class passes where that method saves (``self.save(model, path)``)."""
    if qualified(call.func, aliases) in api.SAVES:
        path = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "f"), None)
        return [path] if path is not None else []
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        saved = methods.get(func.attr, ())
        positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
        return [arg for position, arg in enumerate(positional) if position < len(saved) and saved[position]] + [
            keyword.value for keyword in call.keywords if keyword.arg is not None and keyword.arg in saved
        ]
    return []


def _positional(function: ast.FunctionDef, saved: frozenset[str]) -> tuple[str, ...]:
    """A method's positional parameters after ``self``, each its name where it is saved under, else ""."""
    names = [arg.arg for arg in [*function.args.posonlyargs, *function.args.args]][1:]
    return tuple(name if name in saved else "" for name in names)


def _positions(
    function: ast.FunctionDef | ast.AsyncFunctionDef, saved: frozenset[str], method: bool
) -> tuple[tuple[int, str], ...]:
    """The parameters named in ``saved`` as (position among the positional arguments a call passes,
    ``self`` aside for a method; -1 for a keyword-only one, name)."""
    names = [arg.arg for arg in [*function.args.posonlyargs, *function.args.args]][1 if method else 0 :]
    keyword_only = sorted(arg.arg for arg in function.args.kwonlyargs if arg.arg in saved)
    return tuple((position, name) for position, name in enumerate(names) if name in saved) + tuple(
        (-1, name) for name in keyword_only
    )


def _bindings(nodes: list[ast.AST]) -> dict[str, list[ast.expr]]:
    """What each plain local name is assigned: ``best = path + "/checkpoint.pth"``."""
    bound: dict[str, list[ast.expr]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
    return bound


def _mentioned(path: ast.expr, bound: Mapping[str, list[ast.expr]]) -> set[str]:
    """The names a path mentions, and those mentioned by what the local names in it were assigned."""
    names = {node.id for node in descendants(path) if isinstance(node, ast.Name)}
    for name in list(names):
        for value in bound.get(name, []):
            names |= {node.id for node in descendants(value) if isinstance(node, ast.Name)}
    return names
