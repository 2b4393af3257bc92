"""TDV008: ``.numpy()`` on a tensor that requires grad."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import libcst as cst

from ..analysis.queries import Analysis, requires_grad
from ..settings import Settings
from .base import Finding, Fix, Rule, quoted
from .tdv003_numpy_on_device import method_call, numpy_calls


class NumpyRequiresGrad(Rule):
    """
    ## What it does
    Reports `t.numpy()` when `t` requires grad: a model's output outside `torch.no_grad()` /
    `torch.inference_mode()` / `torch.set_grad_enabled(False)` (as a context, or called: grad
    stays off until it is switched on again), a module's `weight` or `bias`, an `nn.Parameter`, a tensor created
    with `requires_grad=True`, or arithmetic on any of these, with no `.detach()` in between.

    ## Why is this bad?
    NumPy cannot track gradients, so PyTorch refuses: `RuntimeError: Can't call numpy() on Tensor
    that requires grad. Use tensor.detach().numpy() instead.` It typically surfaces when logging
    predictions or metrics from a training step.

    Off by default: on released libraries it reported 5 tensors, none of which required grad (a
    caller under `torch.no_grad()`, a model with no parameters, a model frozen in `__init__`);
    the analysis cannot see those yet (docs/precision.md). Enable it for notebooks and training
    scripts: `--extend-select TDV008` (torchdevice, or `extend-select = ["TDV008"]` under
    `[tool.torchdevice]`) or `--extend-select=TDV008` (flake8).

    ## Fix
    Safe: `t.numpy()` becomes `t.detach().numpy()`.

    ## Example
    ```python
    import torch

    model = torch.nn.Linear(4, 2)
    predictions = model(torch.randn(3, 4)).numpy()
    ```

    ## Use instead
    ```python
    import torch

    model = torch.nn.Linear(4, 2)
    predictions = model(torch.randn(3, 4)).detach().numpy()
    ```
    Or compute it under `with torch.no_grad():`.
    """

    code = "TDV008"
    name = "numpy-requires-grad"
    summary = "`.numpy()` on a tensor that requires grad (model output, parameter) without `.detach()`"
    precision = (
        "first look: 0 of 50 at rounds 7-23, 0 of 4 at 26, 0 of 1 at 27, 0 of 1 at 29, 0 of 2 at 30, "
        "0 of 1 at 32, 0 of 1 at 37, 2 of 2 at 39 (2 of 62 in all)"
    )
    fails_only_on_an_accelerator = False  # .numpy() of a tensor that requires grad raises on every device

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for site in numpy_calls(analysis):
            # Under ``no_grad()`` / ``inference_mode()`` (a context or a decorator) ``.numpy()`` of
            # even a parameter works (semantics/holds_numpy_of_a_parameter_under_no_grad.py).
            if site.grad_enabled and requires_grad(site.receiver_value):
                assert site.receiver is not None  # numpy_calls yields calls on a receiver only
                yield self.finding(
                    cast(cst.Attribute, site.node.func).attr,  # a method call: its func is an Attribute
                    f"`{quoted(analysis, site.node, 30)}` raises RuntimeError: the tensor requires grad; "
                    "detach it first: `.detach().numpy()` (or compute it under torch.no_grad())",
                    Fix(site.receiver, method_call(site.receiver, "detach"), safe=True, description="detach first"),
                )
