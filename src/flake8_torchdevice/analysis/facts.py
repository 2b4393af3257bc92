"""The facts the analysis records for rules to read.

Each fact points at the CST node it describes and carries what the walker knew
at that point of the program (guards, values), so a rule never re-walks the tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .imports import ImportTable
from .values import UNKNOWN, Value


@dataclass
class Scope:
    """What the walk learns about a function (or the module) by the time it ends."""

    # Names unpacked with ``**name``: mappings (a ``BatchEncoding``), not tensors.
    mapping_names: set[str] = field(default_factory=set)
    # Names used as a device: ``.to(name)``, ``device=name``, ``torch.device(name)``...
    # A use inside a nested function counts for every enclosing scope.
    placement_names: set[str] = field(default_factory=set)


@dataclass
class CallSite:
    node: cst.Call
    # ``torch.cuda.synchronize`` for a call of an imported name, else None.
    qualified: str | None
    # ``to`` for ``x.to(...)``: the attribute called on a receiver that is not an import.
    method: str | None
    receiver: cst.BaseExpression | None
    receiver_value: Value
    value: Value
    # Under a CUDA availability or device check (see ``guards``).
    guarded: bool
    # The expression statement this call is the whole of: its result is discarded.
    statement: cst.Expr | None = None
    scope: Scope = field(default_factory=Scope)
    # Values of the arguments, in order (elements of a literal list or tuple argument included).
    argument_values: tuple[Value, ...] = ()
    # What the called name holds, for ``model(x)``-style calls of a local value.
    callee_value: Value = UNKNOWN


@dataclass
class Operation:
    """A binary operator applied to two values (``w + b``, ``x @ w``)."""

    node: cst.BinaryOperation
    left: Value
    right: Value


@dataclass
class ParameterDefault:
    param: cst.Param
    default: cst.BaseExpression
    guarded: bool
    scope: Scope  # the function's own


@dataclass
class Assignment:
    """``target = value`` for a name or attribute target (``device = "cuda"``)."""

    target: str
    value: cst.BaseExpression
    guarded: bool
    scope: Scope


@dataclass
class ModuleAnalysis:
    module: cst.Module
    imports: ImportTable
    calls: list[CallSite] = field(default_factory=list)
    parameter_defaults: list[ParameterDefault] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    operations: list[Operation] = field(default_factory=list)
    _calls_by_node: dict[int, CallSite] = field(default_factory=dict)

    @property
    def uses_torch(self) -> bool:
        return self.imports.imports_torch()

    def add_call(self, site: CallSite) -> None:
        self.calls.append(site)
        self._calls_by_node[id(site.node)] = site

    def call_at(self, node: cst.CSTNode) -> CallSite | None:
        return self._calls_by_node.get(id(node))
