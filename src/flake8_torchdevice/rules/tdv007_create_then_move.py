"""TDV007: a tensor created on the CPU and moved straight away."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from ..analysis import ModuleAnalysis
from ..analysis.arguments import keyword_argument
from ..settings import Settings
from .base import Finding, Fix, Rule, keyword, source_text

# Factories that accept ``device=`` (``from_numpy`` does not: it shares NumPy's memory).
FACTORIES_WITH_DEVICE = frozenset(
    f"torch.{name}"
    for name in (
        "zeros ones empty full rand randn randint randperm arange linspace logspace eye tensor "
        "as_tensor zeros_like ones_like empty_like full_like rand_like randn_like randint_like"
    ).split()
)


def _moved_to(move: cst.Call) -> Optional[cst.BaseExpression]:
    """The device of a move whose only argument is the device (``.to(device, dtype)`` has none)."""
    method = move.func.attr.value if isinstance(move.func, cst.Attribute) else ""
    if method == "cuda" and not move.args:
        return cst.SimpleString('"cuda"')
    if len(move.args) != 1 or move.args[0].star:
        return None
    argument = move.args[0]
    if argument.keyword is None or argument.keyword.value == "device":
        return argument.value
    return None


def _create_on_device(factory: cst.Call, move: cst.Call) -> Optional[Fix]:
    """``torch.zeros(n).to(device)`` becomes ``torch.zeros(n, device=device)``."""
    device = _moved_to(move)
    if device is None:
        return None
    on_device = factory.with_changes(args=[*factory.args, keyword("device", device)])
    return Fix(move, on_device, safe=True, description="pass device=")


class CreateThenMove(Rule):
    """
    ## What it does
    Reports a tensor factory followed directly by a move, such as `torch.zeros(n).to(device)` or
    `torch.randn(3, 4).cuda()`.

    ## Why is this bad?
    A performance bug: the tensor is allocated and filled on the CPU, then a second tensor is
    allocated on the device and the data is copied over, synchronously for pageable memory. Passing
    `device=` allocates once, directly where it is used. It matters in training loops and in
    `forward()`, where it runs every step.

    ## Fix
    Safe: `torch.zeros(n).to(device)` becomes `torch.zeros(n, device=device)` when the move's only
    argument is the device.

    ## Example
    ```python
    import torch

    mask = torch.ones(8, 8).to(device)
    ```

    ## Use instead
    ```python
    import torch

    mask = torch.ones(8, 8, device=device)
    ```
    """

    code = "TDV007"
    name = "create-then-move"
    summary = "Tensor created on the CPU then moved (`torch.zeros(n).to(device)`); pass `device=` (performance)"

    def check(self, analysis: ModuleAnalysis, settings: Settings) -> Iterator[Finding]:
        for site in analysis.calls:
            if site.method not in ("to", "cuda") or site.receiver is None:
                continue
            created = analysis.call_at(site.receiver)
            if created is None or created.qualified not in FACTORIES_WITH_DEVICE:
                continue
            if keyword_argument(created.node, "device") is not None or not site.value.place.is_device:
                continue
            factory = source_text(analysis, created.node)
            target = site.value.place.device
            suggestion = f"{factory[:-1]}, device={target})" if created.node.args else f"{factory[:-1]}device={target})"
            yield self.finding(
                site.node,
                f"`{source_text(analysis, site.node)}` allocates on the CPU and then copies (performance); "
                f"create it on the device: `{suggestion}`",
                _create_on_device(created.node, site.node),
            )
