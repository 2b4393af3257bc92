"""Which keywords of a call the callee replaces with the CPU where CUDA is not available, so that a
CUDA default passed there is safe: for a function or class of this file, read from its body; for a
class of another of the project's files (the class called, ``Pipeline(device=d)``, or the bases a
``super().__init__(...)`` runs), from what the project index says of it (project/classes.py reads
it with ``ast`` and hands each file the classes it imports as ``ImportedClass``)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..knowledge.api import AVAILABILITY_CHECKS
from .definitions import Definitions, FunctionInfo
from .imports import ImportTable, dotted_name
from .literals import names_the_cpu
from .syntax import every_node, statements


def replaced_without_cuda(
    definitions: Definitions, imports: ImportTable, call: cst.Call, function: FunctionInfo | None
) -> frozenset[str]:
    """The keywords of the call that the function it runs (a class's ``__init__`` for a class)
    replaces where CUDA is not available (``if not torch.cuda.is_available(): device = "cpu"``)
    before reading them."""
    if not any(arg.keyword is not None for arg in call.args):  # asked of every placement
        return frozenset()
    local = _local_callee(definitions, call, function)
    if local is not None:
        return _replaced_before_read(local, imports)
    if not definitions.project_classes:  # most files import no class of the project
        return frozenset()
    found = (found for node in _called(definitions, call, function) if (found := definitions.imported_class(node)))
    return frozenset(name for imported in found for name in imported.replaces_without_cuda)


def _called(definitions: Definitions, call: cst.Call, function: FunctionInfo | None) -> list[cst.BaseExpression]:
    """What the call names as its callee; for ``super().__init__(...)``, the first base (in the
    order of the bases, as the MRO runs them)."""
    func = call.func
    if type(func) is cst.Attribute and func.attr.value == "__init__" and _is_super(func.value):
        owner = definitions.owner(function) if function is not None else None
        return [owner.node.bases[0].value] if owner is not None and owner.node.bases else []
    return [func]


def _local_callee(definitions: Definitions, call: cst.Call, function: FunctionInfo | None) -> FunctionInfo | None:
    """The function of this file the call runs: a top-level function, or the ``__init__`` of a
    class built or initialised through ``super()``."""
    for node in _called(definitions, call, function):
        name = dotted_name(node)
        if name in definitions.top_functions:
            return definitions.top_functions[name]
        if name in definitions.classes:
            return definitions.classes[name].methods.get("__init__")
    return None


def _replaced_before_read(function: FunctionInfo, imports: ImportTable) -> frozenset[str]:
    """The parameters a call may pass by keyword that the body sets to the CPU where CUDA is not
    available before anything reads them (the same reading as the index's, project/classes.py)."""
    params = function.node.params
    by_keyword = {param.name.value for param in [*params.params, *params.kwonly_params]} - {function.self_name}
    replaced: set[str] = set()
    read: set[str] = set()
    for statement in statements(function.node.body):
        replaced |= _set_to_the_cpu_without_cuda(statement, imports) & (by_keyword - read)
        read |= _names_read(statement)
    return frozenset(replaced)


def _names_read(statement: cst.BaseStatement) -> set[str]:
    """The names a statement reads or binds: not an attribute's name (``cfg.device``) nor a
    keyword's (``f(device=d)``), as the index reads them with ``ast``."""
    nodes = list(every_node(statement))
    others = {id(node.attr) for node in nodes if type(node) is cst.Attribute}
    others |= {id(node.keyword) for node in nodes if type(node) is cst.Arg and node.keyword is not None}
    return {node.value for node in nodes if type(node) is cst.Name and id(node) not in others}


def _set_to_the_cpu_without_cuda(statement: cst.BaseStatement, imports: ImportTable) -> set[str]:
    """``if not torch.cuda.is_available(): device = "cpu"``, or ``device = device if
    torch.cuda.is_available() else "cpu"``: the names set to the CPU where CUDA is missing."""
    if type(statement) is cst.If and _tests_cuda_missing(statement.test, imports):
        return {name for line in statements(statement.body) for name in _names_set(line, names_the_cpu)}
    return _names_set(statement, lambda value: _chosen_by_availability(value, imports))


def _names_set(statement: cst.BaseStatement, chosen: Callable[[cst.BaseExpression], bool]) -> set[str]:
    if type(statement) is not cst.SimpleStatementLine:
        return set()
    assigned = (small for small in statement.body if type(small) is cst.Assign and chosen(small.value))
    return {target.target.value for small in assigned for target in small.targets if type(target.target) is cst.Name}


def _tests_cuda_missing(test: cst.BaseExpression, imports: ImportTable) -> bool:
    """``not torch.cuda.is_available()``, alone or with ``and`` beside comparisons (``"cuda" in
    device``): not beside another condition, which may be false."""
    parts = _conjuncts(test)
    missing = [part for part in parts if type(part) is cst.UnaryOperation and type(part.operator) is cst.Not]
    missing = [part for part in missing if _is_availability_check(part.expression, imports)]
    return len(missing) == 1 and all(part in missing or _tests_the_device(part) for part in parts)


def _tests_the_device(test: cst.BaseExpression) -> bool:
    """A comparison about CUDA or a device: ``"cuda" in device``, ``device.type != "cpu"``."""
    if type(test) is not cst.Comparison:
        return False
    words = [node.value.lower() for node in every_node(test) if isinstance(node, (cst.Name, cst.SimpleString))]
    return any("device" in word or "cuda" in word for word in words)


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _chosen_by_availability(value: cst.BaseExpression, imports: ImportTable) -> bool:
    return type(value) is cst.IfExp and _is_availability_check(value.test, imports) and names_the_cpu(value.orelse)


def _is_availability_check(node: cst.BaseExpression, imports: ImportTable) -> bool:
    return type(node) is cst.Call and imports.qualify(node.func) in AVAILABILITY_CHECKS


def _is_super(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Call and dotted_name(node.func) == "super"
