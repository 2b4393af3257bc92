"""What a type annotation says a value is: a tensor, a Python number, or an instance of another
class. That last answer matters for methods tensors share with wrappers: a ``batch: Batch``
whose class defines ``to()`` and ``detach()`` (they often work in place and return ``self``) is
no tensor, whatever ``batch.detach()`` suggests."""

from __future__ import annotations

from collections.abc import Collection

import libcst as cst

from ..knowledge import api
from .domain import Kind
from .imports import ImportTable, dotted_name

_PYTHON_NUMBERS = frozenset({"float", "int", "bool"})
_UNIONS = frozenset({"typing.Union", "typing.Optional", "typing_extensions.Union", "typing_extensions.Optional"})
# Where an annotation names a type that may be a tensor after all (``Any``, ``object``, a torch or
# typing alias, jaxtyping's and torchtyping's tensor types) or a container of them.
_MAY_HOLD_A_TENSOR = ("torch", "typing", "typing_extensions", "collections", "builtins", "jaxtyping", "torchtyping")


def annotation_kind(annotation: cst.BaseExpression, imports: ImportTable, classes: Collection[str]) -> Kind | None:
    """``torch.Tensor`` annotates a tensor, ``float`` a Python number, a class of this project or
    of another library an :attr:`Kind.OBJECT`, and so does a union of such classes (``Batch |
    None``); None when the annotation does not say (``Any``, a string, a generic)."""
    members = _union_members(annotation, imports)
    if len(members) == 1 and members[0] is annotation:  # no union
        kind = _member_kind(annotation, imports, classes)
        return None if kind is Kind.NONE else kind
    # Of unions only this: ``Optional[Tensor]`` may be None, which the analysis does not narrow yet.
    kinds = {_member_kind(member, imports, classes) for member in members} - {Kind.NONE}
    return Kind.OBJECT if kinds == {Kind.OBJECT} else None


def _union_members(annotation: cst.BaseExpression, imports: ImportTable) -> list[cst.BaseExpression]:
    """``A | B``, ``Union[A, B]`` and ``Optional[A]``: each type; anything else: itself."""
    if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:
        return _union_members(annotation.left, imports) + _union_members(annotation.right, imports)
    if type(annotation) is cst.Subscript and imports.qualify(annotation.value) in _UNIONS:
        indexes = [element.slice for element in annotation.slice]
        members = [index.value for index in indexes if type(index) is cst.Index]
        return [type_ for member in members for type_ in _union_members(member, imports)]
    return [annotation]


def _member_kind(member: cst.BaseExpression, imports: ImportTable, classes: Collection[str]) -> Kind | None:
    if type(member) is cst.Name and member.value == "None":
        return Kind.NONE
    qualified = imports.qualify(member)
    if qualified in api.TENSOR_TYPES:
        return Kind.TENSOR
    if type(member) is cst.Name and member.value in _PYTHON_NUMBERS:
        return Kind.SCALAR
    name = dotted_name(member)
    if name is None or "Tensor" in name:  # a tensor alias or type of some library's
        return None
    if qualified is None:  # a class of this file or the project's, or a builtin or local alias
        return Kind.OBJECT if name in classes or name in imports.from_the_project else None
    return None if qualified.split(".")[0] in _MAY_HOLD_A_TENSOR else Kind.OBJECT
