"""TDV003: ``.numpy()`` on a tensor that may live on an accelerator."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import libcst as cst

from ..analysis.queries import Analysis, CallFact, evidence_confidence, may_be_on_accelerator, place_name, requires_grad
from ..settings import Settings
from .base import Finding, Fix, Rule, quoted


def _forces_copy(call: cst.Call) -> bool:
    """``t.numpy(force=True)`` copies to the CPU itself."""
    return any(
        arg.keyword is not None
        and arg.keyword.value == "force"
        and not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
        for arg in call.args
    )


def method_call(receiver: cst.BaseExpression, name: str) -> cst.Call:
    """``receiver.name()``."""
    return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name(name)))


def _copy_to_host(site: CallFact) -> cst.Call:
    receiver = site.receiver
    assert receiver is not None
    if requires_grad(site.receiver_value):
        receiver = method_call(receiver, "detach")
    return method_call(receiver, "cpu")


def numpy_calls(analysis: Analysis) -> Iterator[CallFact]:
    """``t.numpy()`` calls of a torch file, except ``numpy(force=True)``, which copies by itself."""
    if not analysis.uses_torch:
        return
    for site in analysis.calls():
        if site.method == "numpy" and site.receiver is not None and not _forces_copy(site.node):
            yield site


class NumpyOnAccelerator(Rule):
    """
    ## What it does
    Reports `t.numpy()` (also `t.detach().numpy()`, `t.data.numpy()`) when the code shows `t` may be
    on a device: placed with `device=device`, `.to(device)` or `.cuda()` on some path (`if
    torch.cuda.is_available(): batch = batch.cuda()`), computed from such a tensor, or the output of
    a model moved to a device or fed inputs on one, and no `.cpu()`, `.to("cpu")` or
    `numpy(force=True)` brings it back first. A function the code does not show (another module's
    helper, a callable passed in) given only tensors on one device is assumed to return its result
    there: a finding that rests on it is likely (medium), and names that say the result leaves the
    device (`to_numpy`, `tensor2cpu`, `save_image`) are not assumed to.

    ## Why is this bad?
    NumPy arrays live in host memory. On a GPU or MPS tensor, `.numpy()` raises
    `TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the
    tensor to host memory first.` The code works in CPU-only tests and fails on the training
    machine.

    Tensors the code shows are on the CPU (created without `device=` and never moved,
    `torch.from_numpy`, results of `.cpu()`) are not reported, nor are tensors whose place the code
    does not show (also when moved to a device read off such a tensor: `home = x.device` ...
    `.to(home)` puts it back wherever `x` was), `.numpy()` under a CPU-only branch (`else` of
    `if use_cuda:`), nor `.numpy()` in files that do not use torch (TensorFlow's `.numpy()` is fine).

    Off by default since round 23: its sure findings fell short on code first seen twice (round
    7: 1 of 3, causes fixed; round 23: 0 of 1, TensorFlow's `.numpy()` in the `"tf"` branch of a
    library serving both frameworks, the model's place read from the `.cpu()` copy in its PyTorch
    branch: the model was handed to a plain class, so that is likely now, not sure). Enable it
    with `--extend-select TDV003` (torchdevice, or `extend-select =
    ["TDV003"]` under `[tool.torchdevice]`) or `--extend-select=TDV003` (flake8).

    ## Fix
    Safe: `t.numpy()` becomes `t.cpu().numpy()` (`t.detach().cpu().numpy()` when `t` requires grad).

    ## Example
    ```python
    import torch

    device = torch.accelerator.current_accelerator() or torch.device("cpu")
    scores = torch.rand(4, device=device)
    array = scores.numpy()
    ```

    ## Use instead
    ```python
    import torch

    device = torch.accelerator.current_accelerator() or torch.device("cpu")
    scores = torch.rand(4, device=device)
    array = scores.cpu().numpy()
    ```
    """

    code = "TDV003"
    name = "numpy-on-accelerator"
    summary = "`.numpy()` on a tensor placed on a device, without `.cpu()` first"
    precision = (
        "first look: high 1 of 3 (round 7, causes fixed), none at 8-22, 0 of 1 (23), 1 of 1 (24), 1 of 1 (36); "
        "medium 0 of 3 (17-18), 0 of 1 (25), 0 of 2 (30), 1 of 1 (32), 0 of 2 (35), 2 of 4 (38)"
    )
    depends_on_callers = True  # where a helper's parameters are is where its callers put them

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for site in numpy_calls(analysis):
            value = site.receiver_value
            # Where the author copies some tensor to the CPU, they know their module's outputs
            # live on its device: a module's output counts there.
            through_modules = analysis.copies_to_cpu(site.scope.function)
            if may_be_on_accelerator(value, through_modules) and not site.without_cuda:
                assert site.receiver is not None  # numpy_calls yields calls on a receiver only
                detach = ".detach()" if requires_grad(value) else ""
                why = analysis.explain(value)
                yield self.finding(
                    cast(cst.Attribute, site.node.func).attr,  # a method call: its func is an Attribute
                    f"`{quoted(analysis, site.node, 30)}` raises TypeError for a tensor on {place_name(value)}"
                    f"{f' ({why})' if why else ''}; copy it to the CPU first: `{detach}.cpu().numpy()`",
                    Fix(site.receiver, _copy_to_host(site), safe=True, description="copy to the CPU first"),
                    evidence_confidence(value),
                )
