"""What another of the project's files says of the class a call builds or initialises: the class
called (``Pipeline(device=d)``), or the bases a ``super().__init__(...)`` runs. The project index
reads it (project/classes.py) and hands each file the classes it imports (``ImportedClass``)."""

from __future__ import annotations

import libcst as cst

from ..imported import ImportedClass
from .definitions import Definitions, FunctionInfo
from .imports import dotted_name


def classes_initialised(definitions: Definitions, call: cst.Call, function: FunctionInfo | None) -> list[ImportedClass]:
    """The imported classes whose ``__init__`` the call runs."""
    func = call.func
    if type(func) is cst.Attribute and func.attr.value == "__init__" and _is_super(func.value):
        owner = definitions.owner(function) if function is not None else None
        # ``super().__init__`` runs the first base's (in the order of the bases, as the MRO does).
        called = [owner.node.bases[0].value] if owner is not None and owner.node.bases else []
    else:
        called = [func]
    return [found for node in called if (found := definitions.imported_class(node)) is not None]


def replaced_without_cuda(definitions: Definitions, call: cst.Call, function: FunctionInfo | None) -> frozenset[str]:
    """The keywords of the call that the class it builds or initialises replaces where CUDA is not
    available (``if not torch.cuda.is_available(): device = "cpu"`` in its ``__init__``)."""
    if not definitions.project_classes:  # asked of every placement: most files import no class
        return frozenset()
    found = classes_initialised(definitions, call, function)
    return frozenset(name for imported in found for name in imported.replaces_without_cuda)


def _is_super(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Call and dotted_name(node.func) == "super"
