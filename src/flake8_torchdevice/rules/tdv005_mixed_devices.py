"""TDV005: one operation combining a CPU tensor with a tensor on a device."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from ..analysis import CallSite, Kind, ModuleAnalysis, Value
from ..settings import Settings
from .base import Finding, Rule, source_text

# Methods that may legitimately take a tensor from another device.
CROSS_DEVICE_METHODS = frozenset({"to", "cuda", "cpu", "copy_", "type_as", "new_tensor", "set_"})


def split_places(values: Sequence[Value]) -> tuple[Value, Value] | None:
    """A (CPU tensor, device tensor) pair among the values, if the code proves one.

    CPU 0-dim tensors are left out: PyTorch lets them meet tensors on any device.
    """
    tensors = [value for value in values if value.kind is Kind.TENSOR and value.place.known]
    on_cpu = next((value for value in tensors if value.place.is_cpu and not value.scalar), None)
    on_device = next((value for value in tensors if value.place.is_device), None)
    if on_cpu is None or on_device is None:
        return None
    return on_cpu, on_device


def _combines_tensors(site: CallSite) -> bool:
    """A torch function, a tensor method, or a call of a module that is not itself on a device."""
    if site.qualified is not None:
        return site.qualified.startswith("torch.") and site.value.kind is Kind.TENSOR
    if site.method is not None:
        return site.receiver_value.kind is Kind.TENSOR and site.method not in CROSS_DEVICE_METHODS
    # A module moved to a device and fed a CPU tensor is TDV006's finding.
    return site.callee_value.kind is Kind.MODULE and not site.callee_value.place.is_device


class MixedDevices(Rule):
    """
    ## What it does
    Reports an operator (`+`, `*`, `@`...), a `torch.*` function, a tensor method or a call of a
    parameter-free module such as a loss function that combines a tensor the code shows is on the
    CPU with one the code shows is on a device (`device=device`, `.to(device)`, `.cuda()`, a model
    output).

    ## Why is this bad?
    Every tensor of an operation must be on the same device. On a GPU this raises
    `RuntimeError: Expected all tensors to be on the same device, but found at least two devices,
    cuda:0 and cpu!`; on a CPU-only test machine it passes, so the bug ships.

    Only values whose place the code shows on both sides are compared. CPU 0-dim tensors
    (`torch.tensor(2.0)`, `x.sum()`) are allowed by PyTorch and not reported, nor are two device
    expressions that might be the same device (`device` and `other_device`).

    ## Example
    ```python
    import torch

    weights = torch.ones(3, device=device)
    bias = torch.zeros(3)
    out = weights + bias
    ```

    ## Use instead
    ```python
    import torch

    weights = torch.ones(3, device=device)
    bias = torch.zeros(3, device=device)
    out = weights + bias
    ```
    """

    code = "TDV005"
    name = "mixed-devices"
    summary = "An operation combines a tensor on the CPU with one on a device"

    def check(self, analysis: ModuleAnalysis, settings: Settings) -> Iterator[Finding]:
        for operation in analysis.operations:
            pair = split_places((operation.left, operation.right))
            if pair is not None:
                cpu_side = operation.left if operation.left is pair[0] else operation.right
                cpu_node = operation.node.left if cpu_side is operation.left else operation.node.right
                yield self._report(analysis, operation.node, cpu_node, pair[1])
        for site in analysis.calls:
            if not _combines_tensors(site):
                continue
            values = (site.receiver_value, *site.argument_values)
            pair = split_places(values)
            if pair is not None:
                yield self._report(analysis, site.node, self._cpu_argument(site, pair[0]), pair[1])

    @staticmethod
    def _cpu_argument(site: CallSite, cpu_value: Value) -> cst.CSTNode | None:
        """The expression holding the CPU tensor: the receiver, an argument or a list element."""
        if site.receiver is not None and site.receiver_value is cpu_value:
            return site.receiver
        expressions = [arg.value for arg in site.node.args]
        expressions += [
            element.value
            for arg in site.node.args
            if isinstance(arg.value, (cst.List, cst.Tuple))
            for element in arg.value.elements
        ]
        for expression, value in zip(expressions, site.argument_values):
            if value is cpu_value:
                return expression
        return None

    def _report(
        self, analysis: ModuleAnalysis, node: cst.CSTNode, cpu_node: cst.CSTNode | None, device_value: Value
    ) -> Finding:
        device = device_value.place.device
        cpu = f"`{source_text(analysis, cpu_node)}`" if cpu_node is not None else "one of its tensors"
        return self.finding(
            node,
            f"`{source_text(analysis, node)}` mixes a CPU tensor ({cpu}) with one on {device}: "
            f"RuntimeError 'Expected all tensors to be on the same device'; "
            f"create or move it there (device={device} / .to({device}))",
        )
