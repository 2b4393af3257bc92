"""Tests of where a value or a device is: ``x.is_cuda``, ``x.device.type == "cuda"``,
``device != "cpu"``. ``conditions.narrow`` moves the subject off the device in the branch where
the test rules CUDA out: onto the CPU where the test names the CPU (``device == "cpu"``), to a
place the code does not show where it only says "not CUDA" (``not x.is_cuda``: the CPU, or MPS)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import libcst as cst

from .domain import CPU, NOWHERE, Kind, Origin, Place, PlaceKind, Value
from .imports import dotted_name
from .literals import string_value
from .state import State

# What a device comparison's subject may be when it names a device (a ``str`` setting is one too).
_DEVICE_OR_SETTING = frozenset({Kind.DEVICE, Kind.UNKNOWN, Kind.SCALAR})
# Values that have no place of their own: a test of their device says nothing of them.
_NOT_PLACED = frozenset({Kind.SCALAR, Kind.NONE, Kind.SEQUENCE, Kind.MAPPING, Kind.LOADER, Kind.OBJECT, Kind.DEVICE})


@dataclass(frozen=True, slots=True)
class PlacementTest:
    """A test of where ``subject`` is: it is off CUDA when the test is ``cpu_when``, and then on
    the CPU if the test names the CPU (``names_cpu``), else somewhere the code does not show."""

    subject: cst.BaseExpression
    # ``device == "cpu"``, ``device.type``: the subject is a device (or a device setting), not a tensor.
    is_device: bool
    cpu_when: bool
    names_cpu: bool = True


def placement_test(test: cst.BaseExpression) -> PlacementTest | None:
    """``x.is_cuda``, ``x.is_cpu``, ``x.device.type == "cuda"``, ``device != "cpu"``,
    ``device.type == "cpu"``, ``str(device) == "cpu"``, ``x.device != torch.device("cpu")``; None for
    any other test."""
    if type(test) is cst.Attribute and test.attr.value in ("is_cuda", "is_cpu"):
        is_cpu = test.attr.value == "is_cpu"
        return PlacementTest(test.value, is_device=False, cpu_when=is_cpu, names_cpu=is_cpu)
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if type(target.operator) not in (cst.Equal, cst.NotEqual):
        return None
    side, literal = test.left, _named_device(target.comparator)
    if literal is None:
        side, literal = target.comparator, _named_device(test.left)
    if literal is None:
        return None
    names_cpu = literal.lower().startswith("cpu")
    if not names_cpu and not literal.lower().startswith("cuda"):
        return None
    cpu_when = (type(target.operator) is cst.Equal) == names_cpu
    return _compared_subject(side, cpu_when, names_cpu)


def _named_device(expression: cst.BaseExpression) -> str | None:
    """``"cpu"``, ``torch.device("cpu")``: the device a literal names."""
    if type(expression) is cst.Call and len(expression.args) == 1 and expression.args[0].keyword is None:
        function = dotted_name(expression.func)
        if function is not None and (function == "device" or function.endswith(".device")):
            return string_value(expression.args[0].value)
    return string_value(expression)


def _compared_subject(side: cst.BaseExpression, cpu_when: bool, names_cpu: bool) -> PlacementTest | None:
    """What a device comparison's other side is about: ``x.device.type`` (the tensor ``x``),
    ``device.type`` or ``str(device)`` (the device), ``x.device`` (the tensor ``x``), ``device`` itself."""
    if type(side) is cst.Attribute and side.attr.value == "device":
        return PlacementTest(side.value, False, cpu_when, names_cpu)
    if type(side) is cst.Attribute and side.attr.value == "type":
        owner = side.value
        if type(owner) is cst.Attribute and owner.attr.value == "device":
            return PlacementTest(owner.value, False, cpu_when, names_cpu)
        return PlacementTest(owner, True, cpu_when, names_cpu)
    if type(side) is cst.Call and dotted_name(side.func) == "str" and len(side.args) == 1:
        return PlacementTest(side.args[0].value, True, cpu_when, names_cpu)
    if type(side) in (cst.Name, cst.Attribute):
        return PlacementTest(side, True, cpu_when, names_cpu)
    return None


def on_the_cpu(state: State, name: str, tested: PlacementTest, known: Value, origin: Origin) -> State:
    """The state where ``tested`` rules CUDA out: the tested value is off the device, and for a
    device, so is every value placed on it (after ``if x.is_cuda: x = x.cpu()`` no path keeps ``x``
    on the device). On the CPU where the test names it; where it only says "not CUDA", the value
    may be on MPS, so its place is unknown (a rule stays silent rather than call it the CPU)."""
    places = CPU if tested.names_cpu else NOWHERE
    narrowed = state.copy()
    if tested.is_device and known.kind in _DEVICE_OR_SETTING:
        narrowed.bind(name, Value(kind=Kind.DEVICE, places=places, origin=origin))
        chosen = Place(PlaceKind.ACCELERATOR, name)
        for bound, value in state.visible().items():
            if chosen in value.places:
                narrowed.bind(bound, value.placed((value.places - {chosen}) | places, origin))
    elif not tested.is_device and known.kind not in _NOT_PLACED:
        narrowed.bind(name, known.placed(places, origin))
    else:
        return state
    return narrowed


def same_device_test(test: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression, bool] | None:
    """``a.device == b.device`` / ``a.device != b.device``: the tensors ``a`` and ``b``, and the
    truth of the test where they are on the same device; None for any other test."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    operator = type(target.operator)
    if operator not in (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot):
        return None
    sides = [test.left, target.comparator]
    if not all(type(side) is cst.Attribute and side.attr.value == "device" for side in sides):
        return None
    left, right = (cst.ensure_type(side, cst.Attribute).value for side in sides)
    return left, right, operator in (cst.Equal, cst.Is)


def on_the_same_device(state: State, sides: list[tuple[str | None, Value]], origin: Origin) -> State:
    """The state where a test showed two tensors on the same device (``if alpha.device !=
    logits.device: alpha = alpha.to(logits.device)``: on the other path ``alpha`` is already where
    ``logits`` is). The one the code shows may be on the CPU takes the other's place, where the
    other's may not: which of two places the test ruled out, nothing else tells."""
    (left, known_left), (right, known_right) = sides
    for name, known, other in ((left, known_left, known_right), (right, known_right, known_left)):
        placed = name is not None and known.kind not in _NOT_PLACED and other.kind not in _NOT_PLACED
        if placed and _may_be_on_the_cpu(known) and other.places and not _may_be_on_the_cpu(other):
            narrowed = state.copy()
            narrowed.bind(cast(str, name), known.placed(other.places, origin))
            return narrowed
    return state


def _may_be_on_the_cpu(value: Value) -> bool:
    return any(place.kind is PlaceKind.CPU for place in value.places)
