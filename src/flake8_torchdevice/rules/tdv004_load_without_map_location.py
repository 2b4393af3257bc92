"""TDV004: ``torch.load`` without ``map_location``."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis.queries import Analysis, keyword_argument, positional_argument
from ..settings import Settings
from .base import Finding, Fix, Rule, keyword, with_argument


def _with_map_location(call: cst.Call) -> cst.Call:
    return with_argument(call, keyword("map_location", cst.SimpleString('"cpu"')))


class LoadWithoutMapLocation(Rule):
    """
    ## What it does
    Reports `torch.load(...)` called without `map_location` (as a keyword or the second positional
    argument), and `map_location=` passed to `load_state_dict()`, which does not take it.

    ## Why is this bad?
    A checkpoint remembers the device each tensor was saved from. Loaded without `map_location` on
    a machine without that device (a CPU-only CI runner, an Apple Silicon laptop, a machine with
    fewer GPUs), it fails with `RuntimeError: Attempting to deserialize object on a CUDA device but
    torch.cuda.is_available() is False`. `load_state_dict(..., map_location=...)` raises
    `TypeError: unexpected keyword argument 'map_location'`: the argument belongs to `torch.load`.

    Calls that forward `**kwargs` are not reported: `map_location` may be among them.

    Off by default: on library code most loads resume the library's own checkpoints on the same
    kind of machine. Measured on accelerate 1.15.0 (docs/precision.md), 7 findings: 1 false positive
    (a GradScaler state, which holds no tensors), 1 test reading back a file it had just written and
    5 FSDP resume paths. Enable it for training and inference scripts, where a checkpoint made on a
    GPU machine meets a laptop: `--extend-select=TDV004` (flake8) or `select` (torchdevice).

    ## Fix
    Unsafe (`--unsafe-fixes`): adds `map_location="cpu"`. Loading onto the CPU always works, but
    code that expected the tensors on a GPU should pass `map_location=device` instead.

    ## Example
    ```python
    import torch

    model = torch.nn.Linear(4, 2)
    torch.save(model.state_dict(), "checkpoint.pt")
    state = torch.load("checkpoint.pt")
    model.load_state_dict(state)
    ```

    ## Use instead
    ```python
    import torch

    model = torch.nn.Linear(4, 2)
    torch.save(model.state_dict(), "checkpoint.pt")
    state = torch.load("checkpoint.pt", map_location="cpu")
    model.load_state_dict(state)
    ```
    Use `map_location=device` to load straight onto the device you train on.
    """

    code = "TDV004"
    name = "load-without-map-location"
    summary = "`torch.load()` without `map_location` (or `map_location=` given to `load_state_dict`)"

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for site in analysis.calls():
            call = site.node
            forwards_kwargs = any(arg.star == "**" for arg in call.args)
            if site.qualified == "torch.load" and not forwards_kwargs:
                if keyword_argument(call, "map_location") is None and positional_argument(call, 1) is None:
                    yield self.finding(
                        call,
                        "torch.load() without map_location fails on machines without the device the "
                        "checkpoint was saved from (a GPU checkpoint on a CPU-only or MPS machine); "
                        'pass map_location=device, or map_location="cpu"',
                        Fix(call, _with_map_location(call), safe=False, description='add map_location="cpu"'),
                    )
            elif site.method == "load_state_dict":
                misplaced = keyword_argument(call, "map_location")
                if misplaced is not None:
                    yield self.finding(
                        misplaced,
                        "load_state_dict() takes no map_location (TypeError); "
                        "pass it to torch.load(path, map_location=device) instead",
                    )
