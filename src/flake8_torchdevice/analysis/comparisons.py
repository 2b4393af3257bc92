"""Comparisons in CUDA tests: a count, a device index or a device type against a literal.

Pure functions of the syntax (part of ``conditions``): ``device_count() > 1`` compares a count
with a number, ``gpu_id != -1`` an index with the CPU's -1, ``device.type == "cuda"`` a value
with a device type's name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from .cuda_words import mentions_cuda
from .imports import dotted_name
from .literals import number_value, string_value
from .polarity import Polarity
from .syntax import literal_index

# A device index by its name (``device``, ``cuda_device``, ``gpu_id``), where -1 means the CPU.
_DEVICE_INDEX = re.compile(r"(^|[._])(cuda_)?(device|gpu|cuda)(_?(id|index|idx|no))?$")
# ... but not a count of them (``n_gpu == 0``: no GPU, not the first one).
_DEVICE_COUNT = re.compile(r"(^|[._])(n|nb|num|number_of|total)_(device|gpu|cuda)$|cpu")
# Lists of device indices whose first one is -1 for the CPU (``--gpus -1``, ``gpu_ids = [-1]``).
_DEVICE_INDICES = re.compile(r"(^|[._])(gpus|gpu_ids|device_ids|cuda_devices)$")
# Device types that are not CUDA: listed with "cpu", they leave only CUDA (and its kin) outside.
_NOT_CUDA = frozenset({"mps", "xla", "meta", "xpu", "hpu", "npu", "mtia"})


def index_test(left: cst.BaseExpression, operator: cst.BaseCompOp, right: cst.BaseExpression) -> Polarity | None:
    """``device >= 0``, ``cuda_device != -1``: a device index compared with -1 (the CPU, as AllenNLP's
    ``cuda_device=-1``) or 0 (the first GPU). The test that fails for -1 has CUDA in its true branch."""
    index, bound, flipped = against_a_number(left, right)
    if bound not in (-1, 0) or not names_a_device_index(index):
        return None
    on_the_cpu = compare(-1, operator, bound, flipped)
    if on_the_cpu == compare(0, operator, bound, flipped):
        return None  # ``device <= 0`` holds for the CPU and the first GPU alike
    return Polarity.NEGATIVE if on_the_cpu else Polarity.POSITIVE


def names_a_device_index(node: cst.BaseExpression) -> bool:
    """``gpu_id``, ``args.device``, or the first of a list of them (``opt.gpus[0]``)."""
    if type(node) is cst.Subscript and literal_index(node) == 0:
        listed = dotted_name(node.value)
        return listed is not None and _DEVICE_INDICES.search(listed.lower()) is not None
    name = (dotted_name(node) or "").lower()
    return _DEVICE_INDEX.search(name) is not None and _DEVICE_COUNT.search(name) is None


def against_a_number(a: cst.BaseExpression, b: cst.BaseExpression) -> tuple[cst.BaseExpression, float | None, bool]:
    """Of ``a <op> b``: the side compared with a number, the number (None: neither), if it is on the left."""
    bound = number_value(b)
    return (a, bound, False) if bound is not None else (b, number_value(a), True)


def literal_polarity(node: cst.BaseExpression) -> Polarity:
    """A string naming a CUDA/GPU device type or backend (``"cuda"``, ``"nccl"``), or the CPU, written
    out or as ``torch.device("cpu")``; a tuple, list or set of such strings has their common polarity."""
    if type(node) is cst.Call and node.args and (dotted_name(node.func) or "").endswith("device"):
        node = node.args[0].value
    if type(node) is cst.Tuple or type(node) is cst.List or type(node) is cst.Set:
        named = [element.value for element in node.elements]
        polarity = _common_polarity([literal_polarity(value) for value in named])
        if polarity is Polarity.NONE:  # ``{"cpu", "mps"}``: every device type but the accelerators'
            polarity = _common_polarity([literal_polarity(v) for v in named if string_value(v) not in _NOT_CUDA])
            return polarity if polarity is Polarity.NEGATIVE else Polarity.NONE
        return polarity
    value = string_value(node)
    if value is None:
        return Polarity.NONE
    if mentions_cuda(value):
        return Polarity.POSITIVE
    if value.lower().startswith("cpu"):
        return Polarity.NEGATIVE
    return Polarity.NONE


LARGE_COUNT = 1e18  # more devices or bytes than any machine has


def is_equality(operator: cst.BaseCompOp) -> bool:
    return type(operator) is cst.Equal or type(operator) is cst.NotEqual


def compare(count: float, operator: cst.BaseCompOp, bound: float, flipped: bool) -> bool:
    """``count <op> bound`` (or ``bound <op> count`` when ``flipped``)."""
    left, right = (bound, count) if flipped else (count, bound)
    kind = type(operator)
    if kind is cst.LessThan:
        return left < right
    if kind is cst.LessThanEqual:
        return left <= right
    if kind is cst.GreaterThan:
        return left > right
    if kind is cst.GreaterThanEqual:
        return left >= right
    if kind is cst.Equal:
        return left == right
    if kind is cst.NotEqual:
        return left != right
    return True  # ``is``, ``in``: read as proving nothing


def _common_polarity(polarities: Sequence[Polarity]) -> Polarity:
    distinct = set(polarities)
    return distinct.pop() if len(distinct) == 1 else Polarity.NONE


def counts_none(node: cst.BaseExpression) -> bool:
    """``== 0`` (no CUDA device), or ``== 1``: one process, no multi-process job; for a device
    count, one device is CUDA in use, and reading it as none only leaves both branches silent."""
    return type(node) is cst.Integer and node.value in ("0", "1")
