"""How many dimensions a value has, where the code shows it: the shape facts that decide whether a
CPU tensor is 0-dim, a number to any device (semantics/holds_zero_dim_cpu_tensor_meets_any_device.py),
or a tensor that must be where the others are.

Pure functions over the syntax and the values: the interpreter's parts ask them where a value is
made (a factory given literal data or a literal shape), combined (elementwise arithmetic,
``torch.cat``) or indexed (``betas[i]`` of a 1-dim tensor is 0-dim).
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from .domain import ARRAY_KINDS, Kind, Value

# NumPy's factories whose first argument is the shape.
_SHAPED_FACTORIES = frozenset({"zeros", "ones", "empty", "full"})
# Functions that join tensors of one rank into one of the same rank.
CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})


def shape_rank(qualified: str, node: cst.Call, shape: Value) -> int | None:
    """``np.zeros((n, 1))``: an array of a literal shape has that many dimensions, and one of a
    number (``np.zeros(n)``) one; ``np.zeros(x.shape)`` has as many as ``x``, which is not shown."""
    if qualified.rsplit(".", 1)[-1] not in _SHAPED_FACTORIES or not node.args:
        return None
    literal = node.args[0].value
    if type(literal) is cst.Tuple or type(literal) is cst.List:
        return len(literal.elements)
    return 1 if shape.kind is Kind.SCALAR else None


def data_rank(data: Value) -> int | None:
    """``torch.tensor([0.5, 1.0])``, ``torch.Tensor([[x, y]])``: data made of numbers (or 0-dim
    tensors) has one dimension per level of lists around them. A value whose parts the code does
    not show (``[box[0]]`` of a parameter: a number or a row) says nothing, and neither does data
    that is no list (``torch.tensor(3.0)`` is 0-dim, which ``Value.scalar`` says)."""
    if data.kind in ARRAY_KINDS and data.rank is not None:  # ``torch.tensor(np.zeros((n, 1)))``
        return data.rank
    return _nested_rank(data) if data.kind is Kind.SEQUENCE else None


def shaped_by_data(made: Value, data: Value, number: bool, qualified: str) -> Value:
    """A tensor ``made`` from ``data`` (``number``: a literal one) by the function ``qualified``: a
    number makes a 0-dim tensor, lists one dimension per level (``data_rank``). Data the code does
    not show, that a function copies (``torch.tensor(self.lower)``), is a number as often as a
    list: maybe 0-dim."""
    scalar = number or data.kind is Kind.SCALAR or data.scalar
    rank = data_rank(data)
    shown = data.kind in ARRAY_KINDS and not data.may_be_scalar  # a tensor copied keeps its shape
    maybe = qualified in _COPIES_DATA and not (scalar or shown) and rank is None
    return replace(made, scalar=scalar, may_be_scalar=maybe, rank=rank)


_COPIES_DATA = frozenset({"torch.tensor", "torch.as_tensor"})


def _nested_rank(data: Value) -> int | None:
    if data.kind is Kind.SCALAR or data.scalar:
        return 0
    if data.kind is not Kind.SEQUENCE:
        return None
    ranks = {_nested_rank(part) for part in _parts(data)}
    rank = ranks.pop() if len(ranks) == 1 else None
    return None if rank is None else rank + 1


def shapeless(value: Value) -> bool:
    """A 0-dim tensor or a Python number: combined, they stay 0-dim."""
    return value.scalar or value.kind is Kind.SCALAR


def maybe_shapeless(value: Value) -> bool:
    """Shapeless, or maybe a 0-dim tensor: combined, they may stay 0-dim."""
    return shapeless(value) or value.may_be_scalar


def common_rank(values: list[Value], concatenated: bool = False) -> int | None:
    """The rank of an elementwise result: that of its tensors that are not 0-dim, where they agree
    (numbers and 0-dim tensors broadcast without adding a dimension). Tensors joined by
    ``torch.cat`` all have one rank: any of them shown tells it."""
    ranks = {value.rank for value in values if not shapeless(value)}
    if concatenated:
        ranks.discard(None)
    return ranks.pop() if len(ranks) == 1 else None


def concatenated_rank(pieces: Value) -> int | None:
    """``torch.cat([a, b])``: the rank of its pieces."""
    return common_rank(list(_parts(pieces)), concatenated=True)


def _parts(sequence: Value) -> tuple[Value, ...]:
    """What a list holds: its elements where the code shows each, else the one any of them is."""
    return sequence.elements or ((sequence.item,) if sequence.item is not None else ())


def row(owner: Value, picked: Value) -> Value:
    """``picked``, one row of ``owner`` (``owner[i]`` for a number ``i``, or what ``for x in
    owner`` binds), with its shape facts: a row of a 1-dim tensor is 0-dim; of a tensor whose rank
    the code does not show, maybe, but not of a model's output, more often a tuple."""
    if owner.rank is None:
        maybe = owner.kind is not Kind.OUTPUT or owner.may_be_scalar
        return replace(picked, scalar=False, may_be_scalar=maybe, rank=None)
    return replace(picked, scalar=owner.rank == 1, rank=owner.rank - 1 if owner.rank > 1 else None)


def indexed(owner: Value, index: Value | None, picked: Value) -> Value:
    """``picked``, the value of ``owner[index]`` for one index (``None``: a slice), with its shape
    facts: a number picks a row (``row``), a slice keeps every dimension, and a list of numbers
    picks rows of a 1-dim tensor. An index the code does not show may be a number: of a 1-dim
    tensor, or of one whose rank is not shown (not a model's output), it may leave a 0-dim one."""
    if index is not None and index.kind is Kind.SCALAR:
        return row(owner, picked)
    maybe_number = index is not None and index.kind is Kind.UNKNOWN
    if owner.rank is None:
        maybe = (maybe_number and owner.kind is not Kind.OUTPUT) or owner.may_be_scalar
        return replace(picked, scalar=False, may_be_scalar=maybe, rank=None)
    if index is None:
        return replace(picked, scalar=False, rank=owner.rank)
    if owner.rank == 1 and index.kind is Kind.SEQUENCE and index.element().kind is Kind.SCALAR:
        return replace(picked, scalar=False, rank=1)
    return replace(picked, scalar=False, may_be_scalar=maybe_number and owner.rank == 1, rank=None)
