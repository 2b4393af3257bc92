"""What the project's helper functions return, read with ``ast``: plain data for the files that import them.

A helper in another module often says where a value lives: ``load_batch()`` builds CPU tensors,
``to_gpu(x)`` moves ``x`` to CUDA only when a GPU is there. One file cannot see that; the index
reads it from each top-level function of every file, in two shapes a reader recognises at a
glance (anything else says nothing):

- **makes CPU tensors**: every ``return`` gives a tensor made from host data or by a factory
  without ``device=`` (``torch.from_numpy(...)``, ``torch.tensor(...)``, ``torch.zeros(n)``), or
  brought to the CPU (``x.cpu()``), directly or through a name only such calls bind;
- **moves its first argument to CUDA when one is there**: every ``return`` gives that argument,
  moved or not, and the function moves it (``.cuda()``, ``.to("cuda")``) only under a test that
  mentions CUDA (``if torch.cuda.is_available(): x = x.cuda()``, ``x.cuda() if use_cuda else x``);
- **moves an argument to the device another names, or to CUDA**: ``to_device(batch, device)``
  in its usual forms (project/moves.py).

The summary is in terms of the call's own parameters, so a file substitutes what it passes.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from ..imported import MAKES_CPU_TENSORS, MOVES_TO_CUDA, MOVES_TO_CUDA_WHEN_AVAILABLE, MOVES_TO_ITS_DEVICE_ARGUMENT
from ..knowledge import api
from .cuda_tests import runs_with_cuda
from .moves import Move, Parameter, read_move, returned_values
from .names import qualified
from .nodes import descendants, own_nodes

# Calls that make a tensor on the CPU when given no ``device=``.
_CPU_MAKERS = (
    api.HOST_DATA_FACTORIES
    | api.LEGACY_CPU_CONSTRUCTORS
    | frozenset(
        f"torch.{name}" for name in "zeros ones empty full arange linspace eye rand randn randint randperm".split()
    )
)


# Tensor methods that may put their result elsewhere: any other keeps its receiver's device.
_MAY_MOVE = api.MOVE_METHODS | {"type", "type_as", "new_tensor", "pin_memory"}


@dataclass(frozen=True)
class HelperEntry:
    """A top-level function of one file whose result the index could read."""

    name: str
    returns: str  # what it returns, as imported.py names it
    # The parameters it is about: the one returned moved, then the one naming the device.
    parameters: tuple[Parameter, ...] = ()
    kinds: tuple[str, ...] = ()  # of the moved value, where the move holds (empty: any)


def read_helpers(tree: ast.Module, aliases: Mapping[str, str]) -> tuple[HelperEntry, ...]:
    """The helpers among a parsed file's top-level functions (its imports are ``aliases``)."""
    functions = [(node, own_nodes(node)) for node in tree.body if isinstance(node, ast.FunctionDef)]
    # The movers first, so that one handing its batch to another of the file's counts as one,
    # wherever in the file that one is (one level: a chain of three reads its last two).
    movers = {
        function.name: move for function, nodes in functions if (move := read_move(function, nodes, {})) is not None
    }
    found = []
    for function, nodes in functions:
        entry = _entry(function, nodes, aliases, movers)
        if entry is not None:
            found.append(entry)
    return tuple(found)


def _entry(
    function: ast.FunctionDef, nodes: list[ast.AST], aliases: Mapping[str, str], movers: Mapping[str, Move]
) -> HelperEntry | None:
    values = returned_values(nodes)
    if not values:
        return None
    if all(_makes_cpu_tensor(value, nodes, aliases) for value in values):
        return HelperEntry(function.name, MAKES_CPU_TENSORS)
    if _moves_first_argument_when_cuda(function, nodes, values, aliases):
        return HelperEntry(function.name, MOVES_TO_CUDA_WHEN_AVAILABLE)
    move = movers.get(function.name) or read_move(function, nodes, movers)
    if move is None:
        return None
    if move.device is None:
        return HelperEntry(function.name, MOVES_TO_CUDA, (move.moved,), move.kinds)
    return HelperEntry(function.name, MOVES_TO_ITS_DEVICE_ARGUMENT, (move.moved, move.device), move.kinds)


def _makes_cpu_tensor(value: ast.expr, nodes: list[ast.AST], aliases: Mapping[str, str]) -> bool:
    """``value`` (a returned expression; ``nodes``, its function's own) is a CPU tensor."""
    if isinstance(value, ast.Name):  # ``batch = torch.from_numpy(a)`` ... ``return batch``
        bound = [node.value for node in nodes if isinstance(node, ast.Assign) and _assigns(node, value.id)]
        updates = (node.target for node in nodes if isinstance(node, (ast.AugAssign, ast.AnnAssign)))
        rebound = any(_names(target, value.id) for target in updates)
        return bool(bound) and not rebound and all(_cpu_call(node, aliases) for node in bound)
    return _cpu_call(value, aliases)


def _assigns(node: ast.Assign, name: str) -> bool:
    return any(_names(target, name) for target in node.targets)


def _names(target: ast.expr, name: str) -> bool:
    return isinstance(target, ast.Name) and target.id == name


def _cpu_call(node: ast.expr, aliases: Mapping[str, str]) -> bool:
    """A call that makes a CPU tensor, or a method of one that keeps it there (``.float()``)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "cpu" and not node.args:
        return True
    if isinstance(func, ast.Attribute) and func.attr not in _MAY_MOVE and _cpu_call(func.value, aliases):
        return True
    made_by = qualified(func, aliases)
    return made_by in _CPU_MAKERS and all(keyword.arg != "device" for keyword in node.keywords)


def _moves_first_argument_when_cuda(
    function: ast.FunctionDef, nodes: list[ast.AST], values: list[ast.expr], aliases: Mapping[str, str]
) -> bool:
    arguments = [*function.args.posonlyargs, *function.args.args]
    if not arguments:
        return False
    name = arguments[0].arg
    if not all(_is_argument(value, name) or _guarded_move_of(value, name, aliases) for value in values):
        return False
    moves = [node for node in nodes if _moved(node, name)]
    guarded = {id(node) for node in _moves_under_a_cuda_test(nodes, name, aliases)}
    guarded.update(id(value.body) for value in values if isinstance(value, ast.IfExp))
    return bool(moves) and all(id(node) in guarded for node in moves)


def _is_argument(value: ast.expr, name: str) -> bool:
    return isinstance(value, ast.Name) and value.id == name


def _moved(node: ast.AST, name: str) -> bool:
    """``name.cuda(...)`` or ``name.to("cuda...")``."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if not _is_argument(node.func.value, name):
        return False
    if node.func.attr == "cuda":
        return True
    first = node.args[0] if node.args else None
    return node.func.attr == "to" and isinstance(first, ast.Constant) and str(first.value).startswith("cuda")


def _guarded_move_of(value: ast.expr, name: str, aliases: Mapping[str, str]) -> bool:
    """``name.cuda() if torch.cuda.is_available() else name``."""
    return (
        isinstance(value, ast.IfExp)
        and runs_with_cuda(value.test, aliases) is True
        and _moved(value.body, name)
        and _is_argument(value.orelse, name)
    )


def _moves_under_a_cuda_test(nodes: list[ast.AST], name: str, aliases: Mapping[str, str]) -> list[ast.AST]:
    """The moves of ``name`` in the body of an ``if`` whose true branch runs only with CUDA."""
    return [
        inner
        for node in nodes
        if isinstance(node, ast.If) and runs_with_cuda(node.test, aliases) is True
        for statement in node.body
        for inner in descendants(statement)
        if _moved(inner, name)
    ]
