"""Tests of where a value or a device is: ``x.is_cuda``, ``x.device.type == "cuda"``,
``device != "cpu"``. ``conditions.narrow`` puts the subject on the CPU in the branch where the
test shows the CPU."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .domain import CPU, Kind, Origin, Place, PlaceKind, Value
from .imports import dotted_name
from .literals import string_value
from .state import State

# What a device comparison's subject may be when it names a device (a ``str`` setting is one too).
_DEVICE_OR_SETTING = frozenset({Kind.DEVICE, Kind.UNKNOWN, Kind.SCALAR})
# Values that have no place of their own: a test of their device says nothing of them.
_NOT_PLACED = frozenset({Kind.SCALAR, Kind.NONE, Kind.SEQUENCE, Kind.MAPPING, Kind.LOADER, Kind.OBJECT, Kind.DEVICE})


@dataclass(frozen=True, slots=True)
class PlacementTest:
    """A test of where ``subject`` is: it is on the CPU when the test is ``cpu_when``."""

    subject: cst.BaseExpression
    # ``device == "cpu"``, ``device.type``: the subject is a device (or a device setting), not a tensor.
    is_device: bool
    cpu_when: bool


def placement_test(test: cst.BaseExpression) -> PlacementTest | None:
    """``x.is_cuda``, ``x.is_cpu``, ``x.device.type == "cuda"``, ``device != "cpu"``,
    ``device.type == "cpu"``, ``str(device) == "cpu"``; None for any other test."""
    if type(test) is cst.Attribute and test.attr.value in ("is_cuda", "is_cpu"):
        return PlacementTest(test.value, is_device=False, cpu_when=test.attr.value == "is_cpu")
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if type(target.operator) not in (cst.Equal, cst.NotEqual):
        return None
    side, literal = test.left, string_value(target.comparator)
    if literal is None:
        side, literal = target.comparator, string_value(test.left)
    if literal is None:
        return None
    if literal.lower().startswith("cpu"):
        cpu_when = type(target.operator) is cst.Equal
    elif literal.lower().startswith("cuda"):
        cpu_when = type(target.operator) is cst.NotEqual
    else:
        return None
    return _compared_subject(side, cpu_when)


def _compared_subject(side: cst.BaseExpression, cpu_when: bool) -> PlacementTest | None:
    """What a device comparison's other side is about: ``x.device.type`` (the tensor ``x``),
    ``device.type`` or ``str(device)`` (the device), ``device`` itself."""
    if type(side) is cst.Attribute and side.attr.value == "type":
        owner = side.value
        if type(owner) is cst.Attribute and owner.attr.value == "device":
            return PlacementTest(owner.value, is_device=False, cpu_when=cpu_when)
        return PlacementTest(owner, is_device=True, cpu_when=cpu_when)
    if type(side) is cst.Call and dotted_name(side.func) == "str" and len(side.args) == 1:
        return PlacementTest(side.args[0].value, is_device=True, cpu_when=cpu_when)
    if type(side) in (cst.Name, cst.Attribute):
        return PlacementTest(side, is_device=True, cpu_when=cpu_when)
    return None


def on_the_cpu(state: State, name: str, tested: PlacementTest, known: Value, origin: Origin) -> State:
    """The state where ``tested`` shows the CPU: the tested value is there, and for a device, so is
    every value placed on it (after ``if x.is_cuda: x = x.cpu()`` no path keeps ``x`` on the
    device). A device that is not CUDA counts as the CPU, as everywhere in the analysis."""
    narrowed = state.copy()
    if tested.is_device and known.kind in _DEVICE_OR_SETTING:
        narrowed.bind(name, Value(kind=Kind.DEVICE, places=CPU, origin=origin))
        chosen = Place(PlaceKind.ACCELERATOR, name)
        for bound, value in state.visible().items():
            if chosen in value.places:
                narrowed.bind(bound, value.placed((value.places - {chosen}) | CPU, origin))
    elif not tested.is_device and known.kind not in _NOT_PLACED:
        narrowed.bind(name, known.placed(CPU, origin))
    else:
        return state
    return narrowed
