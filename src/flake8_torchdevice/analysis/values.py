"""What a name holds and where it lives: the small lattice every rule reads.

A value is described by its *kind* (tensor, nn.Module, device, data loader or
unknown) and its *place*: known to be on the CPU, placed on a device expression
(``device=device``, ``.to(device)``, ``.cuda()``), or unknown. Places on device
expressions are compared by their source text: ``device`` and ``device`` are the
same place, ``device`` and ``other`` prove nothing. Joins lose information rather
than invent it, so every rule that needs two known facts stays silent when the
code does not show them.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace

import libcst as cst


class Kind(enum.Enum):
    UNKNOWN = "unknown"
    TENSOR = "tensor"
    MODULE = "module"
    DEVICE = "device"
    LOADER = "loader"
    # One item of a DataLoader: a tensor or a collection of tensors, on the CPU.
    BATCH = "batch"


@dataclass(frozen=True)
class Place:
    """Where a value lives. ``device`` is the source text of the device expression."""

    device: str | None = None
    known: bool = False

    @property
    def is_cpu(self) -> bool:
        return self.known and self.device == "cpu"

    @property
    def is_device(self) -> bool:
        """Placed on a device expression that is not a CPU literal: maybe an accelerator."""
        return self.known and self.device != "cpu"


UNKNOWN_PLACE = Place()
CPU = Place("cpu", known=True)


def on_device(text: str) -> Place:
    return Place(text, known=True)


@dataclass(frozen=True)
class Value:
    kind: Kind = Kind.UNKNOWN
    place: Place = UNKNOWN_PLACE
    requires_grad: bool = False
    # A 0-dim tensor (``torch.tensor(2.0)``, ``x.sum()``): PyTorch lets a CPU scalar meet any device.
    scalar: bool = False

    def moved_to(self, place: Place) -> Value:
        return replace(self, place=place)

    def join(self, other: Value) -> Value:
        """What is known on both sides of a branch."""
        if self == other:
            return self
        return Value(
            kind=self.kind if self.kind is other.kind else Kind.UNKNOWN,
            place=self.place if self.place == other.place else UNKNOWN_PLACE,
            requires_grad=self.requires_grad and other.requires_grad,
            scalar=self.scalar and other.scalar,
        )


UNKNOWN = Value()
BATCH = Value(kind=Kind.BATCH, place=CPU)

_CUDA_DEVICE = re.compile(r"cuda(:\d+)?")
_CPU_DEVICE = re.compile(r"cpu(:\d+)?")


def string_value(node: cst.BaseExpression) -> str | None:
    """The value of a plain (non-f, non-bytes) string literal."""
    if isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower():
        try:
            value = node.evaluated_value
        except Exception:  # odd escapes: not a literal we can reason about
            return None
        return value if isinstance(value, str) else None
    return None


def is_cuda_literal(node: cst.BaseExpression) -> bool:
    """``"cuda"`` or ``"cuda:N"``."""
    value = string_value(node)
    return value is not None and _CUDA_DEVICE.fullmatch(value) is not None


def is_cpu_literal(node: cst.BaseExpression) -> bool:
    value = string_value(node)
    return value is not None and _CPU_DEVICE.fullmatch(value) is not None
