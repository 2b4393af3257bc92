"""The facts the rules read, written once per node from the final flow state.

The interpreter evaluates code several times (each loop to a fixpoint, each function summary
at its call sites) but keeps only what its *recording* pass saw, where every node is seen with
the state that holds there for good (a loop's passes record into drafts, and the last pass's
draft is kept). A later recording pass over the same node (a class whose
attributes were learned late) replaces the earlier fact, so each node has one fact.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .definitions import FunctionInfo
from .domain import Origin, Value


@dataclass(frozen=True, slots=True)
class Scope:
    """Where a fact was seen: the enclosing function (None at module level) and its context."""

    function: FunctionInfo | None
    # The function or class is named for CUDA, or decorated with a CUDA check.
    cuda_specific: bool = False
    # An ``nn.Module`` method.
    in_module: bool = False


@dataclass(frozen=True, slots=True)
class Called:
    """A call as the interpreter evaluates it, before what it returns: how its callee is named, and
    what the receiver, the callee and each argument hold."""

    node: cst.Call
    qualified: str | None  # ``torch.cuda.synchronize`` for a call of an imported name, else None
    method: str | None  # ``to`` for ``x.to(...)``: the attribute called on a receiver that is not an import
    receiver: cst.BaseExpression | None
    receiver_value: Value
    callee: Value  # what the called expression holds (``model`` in ``model(x)``)
    arguments: tuple[Value, ...]  # one value per argument, in order


@dataclass(frozen=True, slots=True)
class CallFact:
    node: cst.Call
    # ``torch.cuda.synchronize`` for a call of an imported name, else None.
    qualified: str | None
    # ``to`` for ``x.to(...)``: the attribute called on a receiver that is not an import.
    method: str | None
    receiver: cst.BaseExpression | None
    receiver_value: Value
    # What the called expression holds (``model`` in ``model(x)``).
    callee: Value
    # One value per argument, in order; ``**kwargs`` gives an unknown value.
    arguments: tuple[Value, ...]
    result: Value
    guarded: bool
    # Runs only where CUDA is not in use (``else`` of ``if use_cuda:``).
    without_cuda: bool
    grad_enabled: bool
    scope: Scope
    # The expression statement this call is the whole of: its result is discarded.
    statement: cst.Expr | None
    # The flag default whose CUDA branch this call is in (``use_gpu=True``), if any.
    cuda_by_default: Origin | None = None
    # Runs only after the function used CUDA where nothing checked for it (``model.cuda()`` above).
    cuda_required: bool = False


@dataclass(frozen=True, slots=True)
class OperationFact:
    """``left <op> right`` (``w + b``, ``x @ w``); ``in_place`` for ``x += y``; for a subscript
    ``t[i]`` by a tensor, ``left`` is the indexed tensor and ``right`` the indices."""

    node: cst.BinaryOperation | cst.AugAssign | cst.Subscript
    left: Value
    right: Value
    in_place: bool
    without_cuda: bool
    scope: Scope


@dataclass(frozen=True, slots=True)
class StoreFact:
    """``container[index] = value``: written into a tensor, an array, a list or a dict."""

    node: cst.Subscript
    container: Value
    value: Value
    scope: Scope


@dataclass(frozen=True, slots=True)
class DefaultFact:
    """A parameter default, with what the function does with the parameter."""

    param: cst.Param
    function: FunctionInfo
    guarded: bool
    scope: Scope


@dataclass(frozen=True, slots=True)
class LiteralFact:
    """A device literal (``"cuda"``, ``torch.device("cuda")``) where it was written."""

    node: cst.BaseExpression
    guarded: bool
    scope: Scope


class Facts:
    def __init__(self) -> None:
        self.calls: dict[int, CallFact] = {}
        self.operations: dict[int, OperationFact] = {}
        self.stores: dict[int, StoreFact] = {}
        self.defaults: dict[int, DefaultFact] = {}
        self.literals: dict[int, LiteralFact] = {}
        self.values: dict[int, Value] = {}
        # ``"cpu"`` written where CUDA is known not to be in use (the ``else`` of a CUDA check,
        # ``"cuda" if torch.cuda.is_available() else "cpu"``): the code falls back to the CPU.
        self.cpu_fallbacks: dict[int, cst.BaseExpression] = {}
        # The file's functions as its own calls run them (``contexts``), each with facts of its own.
        self.contexts: list[CallContext] = []
        # The functions whose contexts are every way they run (their keys).
        self.closed_functions: frozenset[str] = frozenset()

    def update(self, other: Facts) -> None:
        """Take ``other``'s facts, replacing these for the same nodes."""
        self.calls.update(other.calls)
        self.operations.update(other.operations)
        self.stores.update(other.stores)
        self.defaults.update(other.defaults)
        self.literals.update(other.literals)
        self.values.update(other.values)
        self.cpu_fallbacks.update(other.cpu_fallbacks)


@dataclass(frozen=True)
class CallContext:
    """The facts of a function's body as the call ``site`` runs it (contexts.py walks them)."""

    site: cst.Call
    facts: Facts
