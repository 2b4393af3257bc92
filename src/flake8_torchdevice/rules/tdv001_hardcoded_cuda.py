"""TDV001: a hard-coded CUDA device."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis import CallSite, ModuleAnalysis, torch_api
from ..analysis.arguments import keyword_argument, positional_argument
from ..analysis.facts import Scope
from ..analysis.values import is_cuda_literal, string_value
from ..settings import Settings
from .base import Finding, Rule

PORTABLE_DEVICE = 'device = torch.accelerator.current_accelerator() or torch.device("cpu")'

# ``torch.cuda`` functions that raise on a machine without CUDA. Each was run on
# torch 2.13.0 (CPU build) and raised; ``is_available``, ``device_count``,
# ``is_initialized``, ``empty_cache``, ``manual_seed`` and ``memory_allocated`` do not.
NEEDS_GPU = frozenset(
    f"torch.cuda.{name}"
    for name in (
        "set_device synchronize get_device_capability get_device_name get_device_properties "
        "current_device current_stream default_stream Stream Event mem_get_info init get_rng_state "
        "get_rng_state_all set_rng_state initial_seed set_per_process_memory_fraction ipc_collect "
        "reset_peak_memory_stats reset_max_memory_allocated can_device_access_peer CUDAGraph graphs.CUDAGraph"
    ).split()
)

# Libraries that only run on NVIDIA GPUs: a file importing one is CUDA code by construction.
CUDA_ONLY_LIBRARIES = frozenset({"apex", "cupy", "flash_attn", "megatron", "pycuda", "transformer_engine", "triton"})

LEGACY_TENSOR_TYPES = frozenset(
    f"torch.cuda.{dtype}Tensor" for dtype in "Float Double Half BFloat16 Long Int Short Char Byte Bool".split()
)


def _places(name: str, scope: Scope) -> bool:
    """A device variable or parameter that reaches a placement (``.to(name)``, ``device=name``...).

    ``device_type = "cuda"`` compared later, or handed to ``torch.amp``, is not a placement.
    """
    return name in scope.placement_names


def _legacy_type_name(node: cst.BaseExpression, analysis: ModuleAnalysis) -> str | None:
    """``torch.cuda.FloatTensor`` given as a type object or a string."""
    name = analysis.imports.qualify(node) or string_value(node)
    return name if name in LEGACY_TENSOR_TYPES else None


class HardcodedCudaDevice(Rule):
    """
    ## What it does
    Reports a `"cuda"` / `"cuda:N"` device written into the code where a tensor or module is
    placed: `torch.device("cuda")`, `.to("cuda")`, `device="cuda"` (in any call or as a
    parameter default), `.cuda()`, `map_location="cuda"`, `torch.set_default_device("cuda")`,
    legacy `torch.cuda.FloatTensor(...)` constructors, a `device = "cuda"` variable that reaches one of
    these, and calls of
    `torch.cuda` functions that need a GPU (`synchronize`, `set_device`,
    `get_device_capability`...), unless a CUDA check guards them.

    ## Why is this bad?
    The code crashes on every machine without CUDA: CPU-only CI runners, laptops, Apple
    Silicon (MPS). A CPU build of PyTorch raises `AssertionError: Torch not compiled with CUDA
    enabled`; a CUDA build without a GPU raises a `RuntimeError` about the driver.

    Not reported: code under `if torch.cuda.is_available():` (also through `and`/`or`/`not`, a
    variable assigned from it, a conditional expression, the `else` of
    `if not torch.cuda.is_available()`, code after an early `return`/`raise`/`pytest.skip`), device
    checks (`if x.is_cuda:`, `if device.type == "cuda":`), a `try` whose `except` catches the failure
    (`AssertionError`, `RuntimeError`, `Exception`), names that make CUDA an explicit choice
    (`if args.use_gpu:`), tests skipped without CUDA (`skipif`/`skipUnless`), functions and classes
    named for CUDA, files that import a CUDA-only library (`apex`, `cupy`, `flash_attn`, `megatron`,
    `pycuda`, `transformer_engine`, `triton`), a `"cuda"` variable or parameter default that never
    reaches a placement (`device_type = "cuda"` compared later), and non-placement uses of the
    string (`torch.autocast("cuda")`, `GradScaler(device="cuda")`, comparisons, logs). Add your own
    check functions with `--torchdevice-guard-functions`.

    ## Example
    ```python
    import torch

    model = torch.nn.Linear(4, 2).cuda()
    batch = torch.randn(8, 4, device="cuda")
    ```

    ## Use instead
    ```python
    import torch

    device = torch.accelerator.current_accelerator() or torch.device("cpu")
    model = torch.nn.Linear(4, 2).to(device)
    batch = torch.randn(8, 4, device=device)
    ```
    On PyTorch older than 2.6, choose with `torch.cuda.is_available()` /
    `torch.backends.mps.is_available()` in an `if`/`elif`/`else`.
    """

    code = "TDV001"
    name = "hardcoded-cuda-device"
    summary = 'Hard-coded `"cuda"` device or GPU-only `torch.cuda` call outside a CUDA check'

    def check(self, analysis: ModuleAnalysis, settings: Settings) -> Iterator[Finding]:
        if analysis.imports.imports_any(CUDA_ONLY_LIBRARIES):
            return  # the whole file runs only where CUDA does
        for site in analysis.calls:
            if not site.guarded:
                yield from self._check_call(site, analysis)
        for default in analysis.parameter_defaults:
            name = default.param.name.value
            if not default.guarded and is_cuda_literal(default.default) and _places(name, default.scope):
                yield self._literal(default.default)
        for assignment in analysis.assignments:
            name = assignment.target
            if not assignment.guarded and is_cuda_literal(assignment.value) and _places(name, assignment.scope):
                yield self._literal(assignment.value)

    def _check_call(self, site: CallSite, analysis: ModuleAnalysis) -> Iterator[Finding]:
        call = site.node
        for keyword in ("device", "map_location"):
            if keyword == "device" and site.qualified in torch_api.DEVICE_TYPE_CALLS:
                continue
            value = keyword_argument(call, keyword)
            if value is not None and is_cuda_literal(value):
                yield self._literal(value)
        placement_argument = None
        if site.qualified in ("torch.device", "torch.set_default_device") or site.method == "to":
            placement_argument = positional_argument(call, 0)
        elif site.qualified == "torch.load":
            placement_argument = positional_argument(call, 1)
        if placement_argument is not None and is_cuda_literal(placement_argument):
            yield self._literal(placement_argument)
        if site.method == "cuda" and len(call.args) <= 1:
            yield self.finding(
                call.func.attr,  # type: ignore[attr-defined]  # method calls have an Attribute func
                ".cuda() hard-codes CUDA and breaks on machines without it (CPU-only, Apple MPS); "
                f"use .to(device) with a device chosen once: {PORTABLE_DEVICE}",
            )
        if site.qualified in LEGACY_TENSOR_TYPES:
            yield self._legacy_type(call, site.qualified)
        elif site.qualified in NEEDS_GPU:
            yield self.finding(
                call,
                f"{site.qualified}() needs a CUDA GPU and raises without one; "
                f"guard it: `if torch.cuda.is_available(): {site.qualified}(...)`",
            )
        if site.qualified == "torch.set_default_tensor_type" or site.method == "type":
            argument = positional_argument(call, 0)
            name = _legacy_type_name(argument, analysis) if argument is not None else None
            if argument is not None and name is not None:
                yield self._legacy_type(argument, name)

    def _literal(self, node: cst.BaseExpression) -> Finding:
        value = string_value(node)
        return self.finding(
            node,
            f'hard-coded device "{value}" breaks on machines without CUDA (CPU-only, Apple MPS); '
            f"choose it once, portably ({PORTABLE_DEVICE}) and pass device",
        )

    def _legacy_type(self, node: cst.CSTNode, name: str) -> Finding:
        return self.finding(
            node,
            f"{name} hard-codes CUDA (and is deprecated); create tensors with "
            "torch.tensor(..., dtype=..., device=device) on a device chosen once",
        )
