"""TDV010: a layer with parameters created inside ``forward()``."""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.queries import Analysis, builds_layer_with_state
from ..settings import Settings
from .base import Finding, Rule, quoted


class LayerInForward(Rule):
    """
    ## What it does
    Reports a `torch.nn` layer that owns parameters or buffers (`nn.Linear`, `nn.Conv2d`,
    `nn.BatchNorm2d`, `nn.LayerNorm`, `nn.Embedding`...) constructed inside `forward()` of an
    `nn.Module`, or inside a method that `forward()` calls on `self`: `nn.Linear(n, m)(x)`,
    `layer = nn.Conv2d(...)`, `self.bn = nn.BatchNorm2d(c)`.

    ## Why is this bad?
    The layer is built anew at every call, on the CPU, with fresh random weights. It is not part
    of the model when the model is created, so `model.to(device)` does not move it: with a GPU
    input it raises `RuntimeError: Expected all tensors to be on the same device` (or
    `Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the
    same`). Adding `.cuda()` hides the crash but not the rest: the optimizer never sees its
    weights, they are never trained, and `state_dict()` never saves them.

    Not reported: layers without parameters or buffers (`nn.ReLU()`, `nn.Dropout()`,
    `nn.Upsample(...)`, `nn.MaxPool2d(...)`), which compute the same everywhere; layers built in
    `__init__` or in builder methods it calls; lazy initialisation that assigns the layer to
    `self` under a check that it is not built yet (`if self.proj is None: self.proj = ...`), or
    behind a flag the code sets once it is done (`if not self.built: ... self.built = True`, also
    as one condition of an `and`, or where the method the block calls sets it, or a method that
    starts with `if self.built: return` and ends with `self.built = True`), and a cache filled
    once per key whose block registers what it builds (`if key not in self.heads:
    self.heads[key] = self.make_head(x); self.add_module(key, self.heads[key])`, or into an
    `nn.ModuleDict` / `nn.ModuleList` that `__init__` makes): it is built
    once and registered, so it is trained and saved. A cache that registers nothing (a plain
    dict of layers) is reported: `model.to()` never moves it.

    Off by default since round 24: its four sure findings there were false (CUT builds its patch
    MLPs once, at the first call of `forward()`, behind a `key not in self.mlps` check or a flag
    the building method sets, and registers them), after 0 of 2 at round 13 and 6 of 6 at its
    other looks. Known to be wrong where a layer is built per call on purpose, registered on
    `self` and trained in the same call (torch_geometric's GraphMask explainer builds its gates so
    for each explanation). Enable it with `--extend-select TDV010` (torchdevice, or
    `extend-select = ["TDV010"]` under `[tool.torchdevice]`) or `--extend-select=TDV010` (flake8).

    ## Example
    ```python
    import torch.nn as nn


    class Head(nn.Module):
        def __init__(self, classes):
            super().__init__()
            self.classes = classes

        def forward(self, x):
            return nn.Linear(x.shape[-1], self.classes)(x)
    ```

    ## Use instead
    ```python
    import torch.nn as nn


    class Head(nn.Module):
        def __init__(self, features, classes):
            super().__init__()
            self.proj = nn.Linear(features, classes)

        def forward(self, x):
            return self.proj(x)
    ```
    Or use a lazy module (`nn.LazyLinear(classes)`) built in `__init__` when the input size is
    only known at the first call.
    """

    code = "TDV010"
    name = "layer-built-in-forward"
    summary = "A layer with parameters is created inside `forward()`: never moved, trained or saved"
    precision = (
        "first look: high 5 of 5 (rounds 5-12), 0 of 2 (13: fixed), 1 of 1 (15), 0 of 4 (24), "
        "none in round 36's 789,897 lines, 0 of 2 (38)"
    )
    fails_only_on_an_accelerator = False  # a layer never trained or saved is wrong on every device

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for call in analysis.calls():
            if (
                call.scope.in_module
                and builds_layer_with_state(call)
                and analysis.runs_in_forward(call.scope.function, each_time=True)
                and not analysis.lazily_assigned(call.node)
            ):
                layer = quoted(analysis, call.node.func, 24)
                method = call.scope.function.name if call.scope.function is not None else "forward"
                where = "forward()" if method == "forward" else f"{method}() (from forward())"
                yield self.finding(
                    call.node,
                    f"`{layer}(...)` is made anew, on the CPU, at each call of {where}: never moved, trained or "
                    "saved; create it once in __init__",
                )
