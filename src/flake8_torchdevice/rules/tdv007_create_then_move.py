"""TDV007: a tensor created on the CPU and moved straight away."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis.queries import Analysis, keyword_argument, may_be_on_accelerator, positional_argument
from ..settings import Settings
from .base import Finding, Fix, Rule, keyword, source_text, with_argument

# Factories that accept ``device=`` (``from_numpy`` does not: it shares NumPy's memory).
FACTORIES_WITH_DEVICE = frozenset(
    f"torch.{name}"
    for name in (
        "zeros ones empty full rand randn randint randperm arange linspace logspace eye tensor "
        "as_tensor zeros_like ones_like empty_like full_like rand_like randn_like randint_like"
    ).split()
)


def _is_device_of(node: cst.BaseExpression | None) -> bool:
    """``x.device`` / ``self.device``: a device, wherever it is."""
    return isinstance(node, cst.Attribute) and node.attr.value == "device"


def _only_device(move: cst.Call) -> cst.BaseExpression | None:
    """The device of a move whose only argument is the device (``.to(device, dtype)`` has none)."""
    if isinstance(move.func, cst.Attribute) and move.func.attr.value == "cuda" and not move.args:
        return cst.SimpleString('"cuda"')
    if len(move.args) != 1 or move.args[0].star:
        return None
    argument = move.args[0]
    if argument.keyword is None or argument.keyword.value == "device":
        return argument.value
    return None


def _create_on_device(factory: cst.Call, move: cst.Call) -> Fix | None:
    """``torch.zeros(n).to(device)`` becomes ``torch.zeros(n, device=device)``."""
    device = _only_device(move)
    if device is None:
        return None
    return Fix(move, with_argument(factory, keyword("device", device)), safe=True, description="pass device=")


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

    Off by default, like ruff's performance rules: every finding is a real double allocation, but
    most run once (an initialisation, a test) where the cost does not matter. Measured on timm,
    kornia and accelerate (docs/precision.md): 22 findings, all real; 1 runs every step (timm
    EdgeNeXt `forward()`), 3 are one-off initialisations, 1 is a communication buffer and 17 are in
    accelerate's test scripts.
    Enable it where speed matters: `--extend-select=TDV007` (flake8) or `select` (torchdevice).

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

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for site in analysis.calls():
            if site.method not in ("to", "cuda") or site.receiver is None:
                continue
            created = analysis.call_at(site.receiver)
            if created is None or created.qualified not in FACTORIES_WITH_DEVICE:
                continue
            target = keyword_argument(site.node, "device") or positional_argument(site.node, 0)
            moves = may_be_on_accelerator(site.result) or _is_device_of(target)
            if keyword_argument(created.node, "device") is not None or not moves:
                continue
            fix = _create_on_device(created.node, site.node)
            factory = created.qualified.rsplit(".", 1)[-1]
            advice = (
                f"create it on the device: `{source_text(analysis, fix.replacement)}`"
                if fix is not None
                else f"pass device= (and dtype=) to torch.{factory}() instead"
            )
            yield self.finding(
                site.node,
                f"`{source_text(analysis, site.node)}` allocates on the CPU and then copies (performance); {advice}",
                fix,
            )
