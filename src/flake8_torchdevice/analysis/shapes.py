"""How many dimensions a value has, where the code shows it: the shape facts that decide whether a
CPU tensor is 0-dim, a number to any device (semantics/holds_zero_dim_cpu_tensor_meets_any_device.py),
or a tensor that must be where the others are.

Pure functions over the syntax and the values: the interpreter's parts ask them where a value is
made (a factory given literal data or a literal shape), combined (elementwise arithmetic,
``torch.cat``) or indexed (``betas[i]`` of a 1-dim tensor is 0-dim).
"""

from __future__ import annotations

import libcst as cst

from .domain import Kind, Value

# NumPy's factories whose first argument is the shape.
_SHAPED_FACTORIES = frozenset({"zeros", "ones", "empty", "full"})
# Functions that join tensors of one rank into one of the same rank.
CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})


def shape_rank(qualified: str, node: cst.Call) -> int | None:
    """``np.zeros((n, 1))``: an array of a literal shape has that many dimensions."""
    if qualified.rsplit(".", 1)[-1] not in _SHAPED_FACTORIES or not node.args:
        return None
    shape = node.args[0].value
    if type(shape) is cst.Tuple or type(shape) is cst.List:
        return len(shape.elements)
    return 1 if type(shape) in (cst.Integer, cst.Name, cst.Call, cst.Attribute) else None


def data_rank(data: cst.BaseExpression | None) -> int | None:
    """``torch.tensor([0.5, 1.0])``, ``torch.Tensor([x[0]])``: a list of numbers (or of items
    picked out of something) is 1-dim, a list of such lists 2-dim. A name or a call could hold a
    list or a row: it says nothing."""
    if type(data) is not cst.List and type(data) is not cst.Tuple:
        return None
    elements = [element.value for element in data.elements if type(element) is cst.Element]
    if len(elements) != len(data.elements) or not elements:
        return None  # ``[*rows]``: unpacked, of any shape; ``[]``: 1-dim, but rarely worth knowing
    inner = {_element_rank(element) for element in elements}
    rank = inner.pop() if len(inner) == 1 else None
    return None if rank is None else rank + 1


def _element_rank(element: cst.BaseExpression) -> int | None:
    if type(element) is cst.UnaryOperation:
        element = element.expression
    if type(element) in (cst.Integer, cst.Float, cst.Subscript):
        return 0
    return data_rank(element)


def common_rank(values: list[Value], concatenated: bool = False) -> int | None:
    """The rank of an elementwise result: that of its tensors that are not 0-dim, where they agree
    (numbers and 0-dim tensors broadcast without adding a dimension). Tensors joined by
    ``torch.cat`` all have one rank: any of them shown tells it."""
    ranks = {value.rank for value in values if value.kind is not Kind.SCALAR and not value.scalar}
    if concatenated:
        ranks.discard(None)
    return ranks.pop() if len(ranks) == 1 else None


def concatenated_rank(pieces: Value) -> int | None:
    """``torch.cat([a, b])``: the rank of its pieces."""
    parts = pieces.elements or ((pieces.item,) if pieces.item is not None else ())
    return common_rank(list(parts), concatenated=True)


def indexed(owner: Value, index: Value | None) -> tuple[bool, int | None]:
    """(0-dim, rank) of ``owner[index]`` for one index (``None``: a slice): a number takes one
    dimension away (of a 1-dim tensor, a 0-dim one is left), a slice keeps them all, and a list of
    numbers picks rows of a 1-dim tensor. An index the code does not show decides nothing."""
    if owner.rank is None:
        return False, None
    if index is None:
        return False, owner.rank
    if index.kind is Kind.SCALAR:
        return owner.rank == 1, owner.rank - 1 if owner.rank > 1 else None
    if owner.rank == 1 and index.kind is Kind.SEQUENCE and index.element().kind is Kind.SCALAR:
        return False, 1
    return False, None
