"""What a type annotation says a value is: a tensor, a Python number, or an instance of a class
the project defines that is no ``nn.Module``. That last answer matters for methods tensors share
with wrappers: a ``batch: Batch`` whose class defines ``to()`` and ``detach()`` (they often work in
place and return ``self``) is no tensor, whatever ``batch.detach()`` suggests. A class the
analysis does not know (another library's, a name that may be a type alias) says nothing."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..knowledge import api
from .domain import Kind
from .imports import ImportTable

_PYTHON_NUMBERS = frozenset({"float", "int", "bool"})
_UNIONS = frozenset({"typing.Union", "typing.Optional", "typing_extensions.Union", "typing_extensions.Optional"})


def annotation_kind(
    annotation: cst.BaseExpression, imports: ImportTable, plain_class: Callable[[cst.BaseExpression], bool]
) -> Kind | None:
    """``torch.Tensor`` annotates a tensor, ``float`` a Python number, a class for which
    ``plain_class`` holds (this file's or the project's, no module) an :attr:`Kind.OBJECT`, and so
    does a union of such classes (``Batch | None``); None when the annotation does not say."""
    members = _union_members(annotation, imports)
    if len(members) == 1 and members[0] is annotation:  # no union
        kind = _member_kind(annotation, imports, plain_class)
        return None if kind is Kind.NONE else kind
    # Of unions only this: ``Optional[Tensor]`` may be None, which the analysis does not narrow yet.
    kinds = {_member_kind(member, imports, plain_class) for member in members} - {Kind.NONE}
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


def _member_kind(
    member: cst.BaseExpression, imports: ImportTable, plain_class: Callable[[cst.BaseExpression], bool]
) -> Kind | None:
    if type(member) is cst.Name and member.value == "None":
        return Kind.NONE
    if imports.qualify(member) in api.TENSOR_TYPES:
        return Kind.TENSOR
    if type(member) is cst.Name and member.value in _PYTHON_NUMBERS:
        return Kind.SCALAR
    return Kind.OBJECT if type(member) in (cst.Name, cst.Attribute) and plain_class(member) else None
