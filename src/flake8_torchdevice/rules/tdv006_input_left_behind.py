"""TDV006: a module moved to a device, called with an input left on the CPU."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis import Kind, ModuleAnalysis
from ..settings import Settings
from .base import Finding, Rule, source_text


class InputLeftBehind(Rule):
    """
    ## What it does
    Reports a call of a module the code moved to a device (`model.to(device)`, `.cuda()`,
    `Net().to(device)`) with an argument the code shows is on the CPU: typically a batch from
    `for inputs, labels in loader:` that was never moved, or a tensor created without `device=`.

    ## Why is this bad?
    The module's parameters are on the device and its input is not: `RuntimeError: Expected all
    tensors to be on the same device` (or `Input type (torch.FloatTensor) and weight type
    (torch.cuda.FloatTensor) should be the same`) on the first batch. On a CPU-only machine the
    code works, so tests do not catch it.

    ## Example
    ```python
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    model = torch.nn.Linear(4, 2).to(device)
    loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
    for (inputs,) in loader:
        outputs = model(inputs)
    ```

    ## Use instead
    ```python
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    model = torch.nn.Linear(4, 2).to(device)
    loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
    for (inputs,) in loader:
        outputs = model(inputs.to(device))
    ```
    """

    code = "TDV006"
    name = "input-left-behind"
    summary = "A module moved to a device is called with a tensor left on the CPU"

    def check(self, analysis: ModuleAnalysis, settings: Settings) -> Iterator[Finding]:
        for site in analysis.calls:
            module = site.callee_value
            if module.kind is not Kind.MODULE or not module.place.is_device:
                continue
            for arg, value in zip(site.node.args, site.argument_values):
                if value.kind is Kind.TENSOR and value.place.is_cpu and not value.scalar:
                    name = source_text(analysis, arg.value)
                    model = source_text(analysis, site.node.func)
                    device = module.place.device
                    if isinstance(arg.value, (cst.Name, cst.Attribute)):
                        advice = f"move it first: `{name} = {name}.to({device})`"
                    else:
                        advice = f"create it there (device={device}) or pass `{name}.to({device})`"
                    yield self.finding(
                        arg.value,
                        f"`{model}` is on {device} but its input `{name}` is on the CPU: RuntimeError "
                        f"'Expected all tensors to be on the same device'; {advice}",
                    )
