"""What a move makes of a value: ``.to()`` of a tensor or a collection (part of the interpreter),
and a helper of another of the project's files that moves, read as data (project/helpers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import libcst as cst

from ..imported import (
    MAKES_CPU_TENSORS,
    MAPPING,
    MOVES_TO_CUDA,
    MOVES_TO_CUDA_WHEN_AVAILABLE,
    SEQUENCE,
    TENSOR,
    ImportedHelper,
)
from .domain import CPU, UNKNOWN, Kind, Origin, Place, Value, accelerator, tensor
from .imports import dotted_name

# The kinds of value a helper that moves tells apart, as the analysis knows them. A model's output
# is left out (it may be a ``ModelOutput``, no tensor), and a mapping answers a ``Mapping`` test
# only, never a ``dict`` one (a ``BatchEncoding`` is no ``dict``).
_HELPER_KINDS = {Kind.TENSOR: TENSOR, Kind.MAPPING: MAPPING, Kind.SEQUENCE: SEQUENCE}

# Where ``.to(node)`` puts a value given what ``node`` holds: the interpreter's ``device_places``.
DevicePlaces = Callable[[cst.BaseExpression, Value], "frozenset[Place] | None"]


def placed_throughout(value: Value, places: frozenset[Place], origin: Origin) -> Value:
    """``value.to(device)``: a tensor moved, or a dict / BatchEncoding with every tensor in it moved."""
    kind = Kind.TENSOR if value.kind is Kind.ARRAYLIKE else value.kind
    return Value(
        kind=kind,
        places=places,
        grad=value.grad,
        scalar=value.scalar,
        may_be_scalar=value.may_be_scalar,
        rank=value.rank,
        elements=None
        if value.elements is None
        else tuple(placed_throughout(element, places, origin) for element in value.elements),
        item=None if value.item is None else placed_throughout(value.item, places, origin),
        items=tuple((key, placed_throughout(item, places, origin)) for key, item in value.items),
        cls=value.cls,
        origin=origin,
    )


def helper_result(
    node: cst.Call, helper: ImportedHelper, arguments: tuple[Value, ...], device_places: DevicePlaces
) -> Value | None:
    """What a helper of another of the project's files returns, with this call's arguments: the
    CPU tensors it makes, or the argument it moves, where this call says (None: the call does
    not pass what the helper moves or where to, so it says nothing)."""
    where = f"{dotted_name(node.func) or 'a helper'}() of {helper.path}"
    if helper.returns == MAKES_CPU_TENSORS:
        return tensor(CPU, Origin(node, f"made on the CPU by {where}"))
    if helper.returns == MOVES_TO_CUDA_WHEN_AVAILABLE:
        first = arguments[0] if arguments else UNKNOWN
        moved = Origin(node, f"moved to CUDA when a GPU is there by {where}")
        return first.placed(first.places | accelerator('"cuda"'), moved)
    given = [_passed(node, arguments, parameter) for parameter in helper.parameters]
    if not given or any(found is None for found in given):
        return None
    moved_value = given[0][1]  # type: ignore[index]  # none is None
    if helper.kinds and _HELPER_KINDS.get(moved_value.kind) not in helper.kinds:
        return None  # handed back unchanged, maybe: ``else: return obj``
    if helper.returns == MOVES_TO_CUDA:
        return _placed_where(moved_value, accelerator('"cuda"'), Origin(node, f"moved to CUDA by {where}"), helper)
    device_node, device_value = given[1]  # type: ignore[misc]
    target = device_places(device_node, device_value)  # None: a dtype, ``cast(x, torch.float16)``
    places = moved_value.places if target is None else target
    return _placed_where(moved_value, places, Origin(node, f"moved by {where}"), helper)


def _placed_where(value: Value, places: frozenset[Place], origin: Origin, helper: ImportedHelper) -> Value:
    """What the helper makes of ``value``: moved throughout; for one that tests the kinds it
    moves, the parts of other kinds (a ``BatchEncoding`` in a list) handed back where they were."""
    if not helper.kinds:
        return placed_throughout(value, places, origin)
    if _HELPER_KINDS.get(value.kind) not in helper.kinds:
        return value
    if value.kind is Kind.TENSOR:
        return placed_throughout(value, places, origin)
    return replace(
        value,
        elements=None
        if value.elements is None
        else tuple(_placed_where(element, places, origin, helper) for element in value.elements),
        item=None if value.item is None else _placed_where(value.item, places, origin, helper),
        items=tuple((key, _placed_where(item, places, origin, helper)) for key, item in value.items),
        origin=origin,
    )


def _passed(
    node: cst.Call, arguments: tuple[Value, ...], parameter: tuple[int, str]
) -> tuple[cst.BaseExpression, Value] | None:
    """What the call passes for a parameter (position, name): its expression and value."""
    position, name = parameter
    for index, arg in enumerate(node.args):
        if arg.star:
            return None  # ``f(*args)``: which one lands where is not shown
        if arg.keyword is None and index == position:
            return arg.value, arguments[index]
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value, arguments[index]
    return None
