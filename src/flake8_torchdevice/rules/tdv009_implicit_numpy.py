"""TDV009: a tensor handed to NumPy (or a library built on it) while it may be on an accelerator."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    StoreFact,
    Value,
    elements,
    evidence_confidence,
    is_ndarray,
    is_number,
    is_tensor,
    is_zero_dim,
    may_be_on_accelerator,
    may_be_tensor,
    must_be_on_accelerator,
    place_name,
    rank,
    requires_grad,
)
from ..knowledge.api import NUMPY_WITHOUT_CONVERSION
from ..settings import Settings
from .base import Finding, Fix, Rule, quoted
from .tdv003_numpy_on_device import method_call

# Libraries that turn their arguments into NumPy arrays.
CONVERTING_LIBRARIES = ("numpy.", "matplotlib.", "pandas.", "seaborn.", "sklearn.", "scipy.")
# NumPy reductions that call the tensor's own method with NumPy's keywords (``t.mean(axis=None)``),
# which torch rejects on every device; given a list, they convert each element instead.
METHOD_DELEGATING = frozenset(f"numpy.{name}" for name in "mean sum max min std var prod any all".split())


def _converts(call: CallFact) -> bool:
    qualified = call.qualified
    if qualified is None or qualified in NUMPY_WITHOUT_CONVERSION:
        return False
    return qualified.startswith(CONVERTING_LIBRARIES)


class ImplicitNumpyConversion(Rule):
    """
    ## What it does
    Reports a tensor that may be on an accelerator passed to NumPy, Matplotlib, pandas, SciPy or
    scikit-learn (`np.array([loss, acc])`, `np.sum(losses)`, `np.vstack(outputs)`, `plt.plot(t)`,
    `pd.DataFrame(t)`), or stored into a NumPy array (`errors[i] = batch_errors`, or a 0-dim loss into a
    row: `history[i] = loss.data` with `history = np.zeros((n, 1))`), with no `.cpu()`,
    `.item()`, `.tolist()` or `float()` first. Also reports `np.mean(t)` (and `sum`, `max`, `min`,
    `std`, `var`, `prod`, `any`, `all`) of a single tensor, which fails on every device.

    ## Why is this bad?
    These libraries convert their arguments with `numpy.asarray`, which is `t.numpy()` in
    disguise: on a GPU or MPS tensor it raises `TypeError: can't convert cuda:0 device type tensor
    to numpy. Use Tensor.cpu() to copy the tensor to host memory first.` There is no `.numpy()`
    in sight, so the cause is hard to see, and the code works on a CPU-only machine.
    `np.mean(t)` calls `t.mean(axis=None, ...)`, whose NumPy keywords torch rejects with a
    `TypeError` on any device.

    Not reported: tensors the code shows are on the CPU, values converted first (`.item()`,
    `.cpu()`, `.tolist()`, `float(...)`), tensors whose place the code does not show, and a tensor
    stored into one element (`table[i, j] = t`: NumPy converts it with `float()`, which works on any
    device).

    Off by default since round 14: its sure findings (a tensor the code shows on a device) were
    right 3 times in 3 on code first seen at rounds 8 and 10, then 0 times in 2 at rounds 13 and 14
    (an output's shape read as the output; a store into one NumPy element; both fixed since); its
    likely ones (a device on some paths, a helper's input) 10 times in 15 (docs/precision.md).
    Enable it where tensors meet NumPy, Matplotlib or pandas: `--extend-select TDV009`
    (torchdevice, or `extend-select = ["TDV009"]` under `[tool.torchdevice]`) or
    `--extend-select=TDV009` (flake8).

    ## Fix
    Safe: a single tensor argument that does not require grad becomes `t.cpu()`. None for lists.

    ## Example
    ```python
    import numpy as np
    import torch

    losses = [torch.ones(1, device=device).sum() for _ in range(3)]
    average = np.mean(losses)
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch

    losses = [torch.ones(1, device=device).sum().item() for _ in range(3)]
    average = np.mean(losses)
    ```
    """

    code = "TDV009"
    name = "implicit-numpy-conversion"
    summary = "A tensor that may be on an accelerator is converted by NumPy, Matplotlib or pandas without `.cpu()`"
    precision = (
        "first look: high 3 of 5 (rounds 8-14; causes fixed), 0 of 1 (21), 0 of 1 (22), 0 of 1 (23), 0 of 2 (24), "
        "0 of 2 (25), 0 of 1 (29), 0 of 1 (31), 0 of 1 (32), 2 of 2 (33), 2 of 2 (36); medium 12 of 27 (rounds 8-23), "
        "0 of 4 (24), 0 of 1 (26), 0 of 2 (29), 0 of 3 (31), 0 of 2 (37), 0 of 1 (38)"
    )
    depends_on_callers = True  # where a helper's parameters are is where its callers put them

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        if not analysis.uses_torch:
            return
        for call in analysis.calls():
            if not _converts(call) or call.without_cuda:
                continue
            for arg, value in zip(call.node.args, call.arguments):
                finding = self._argument(analysis, call, arg, value)
                if finding is not None:
                    yield finding
                    break
        for store in analysis.stores():
            aware = analysis.copies_to_cpu(store.scope.function)
            if (
                is_ndarray(store.container)
                and _on_device(store.value, aware) is not None
                and not _one_element(analysis, store)
            ):
                yield self._stored(analysis, store)

    def _argument(self, analysis: Analysis, call: CallFact, arg: cst.Arg, value: Value) -> Finding | None:
        function = call.qualified or ""
        if function in METHOD_DELEGATING and is_tensor(value) and not arg.star:
            method = function.rsplit(".", 1)[-1]
            spelled = quoted(analysis, arg.value, 24)
            spelled = spelled if isinstance(arg.value, _ATOMS) or arg.value.lpar else f"({spelled})"
            options = "..." if len(call.node.args) > 1 else ""  # ``np.sum(t, -1)``: ``t.sum(dim=-1)``
            return self.finding(
                call.node,
                f"`{quoted(analysis, call.node, 32)}` raises TypeError on every device: NumPy calls the "
                f"tensor's own {method}() with NumPy's keywords; use `{spelled}.{method}({options})`",
            )
        on_device = _on_device(value, analysis.copies_to_cpu(call.scope.function))
        if on_device is None:
            return None
        fix = None
        if on_device is value and not requires_grad(value) and not arg.star:
            receiver = arg.value if isinstance(arg.value, _ATOMS) else _parenthesized(arg.value)
            fix = Fix(arg.value, method_call(receiver, "cpu"), safe=True, description="copy to the CPU first")
        code = f"`{quoted(analysis, arg.value, 32)}`"
        subject = code if on_device is value else f"a tensor in {code}"
        return self.finding(
            call.node,
            f"{subject} may be on {place_name(on_device)}: {function.split('.', 1)[0]} converts it with "
            "numpy.asarray and fails (TypeError); call .cpu(), .item() or .tolist() first",
            fix,
            evidence_confidence(on_device),
        )

    def _stored(self, analysis: Analysis, store: StoreFact) -> Finding:
        return self.finding(
            store.node,
            f"storing a tensor that may be on {place_name(store.value)} into the NumPy array "
            f"`{quoted(analysis, store.node, 32)}` raises TypeError off the CPU; store `.item()` or `.cpu()`",
            confidence=evidence_confidence(store.value),
        )


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


def _parenthesized(expression: cst.BaseExpression) -> cst.BaseExpression:
    """``scores * 2`` as a receiver: ``(scores * 2)``."""
    if expression.lpar:
        return expression
    return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _one_element(analysis: Analysis, store: StoreFact) -> bool:
    """``table[i, j] = t``: one element of the array, each of its dimensions indexed by a number.
    NumPy stores one element with ``float(t)``, which works on any device (a tensor of more than one
    element raises ValueError on every device: another bug); into a row (``table[i]`` of a 2-D
    array) it converts with numpy.asarray. Where the array's rank is not shown, only a 0-dim
    tensor is known to go into one element (``history[i] = loss``)."""
    dimensions = rank(store.container)
    if dimensions is None:
        return is_zero_dim(store.value)
    indices = [element.slice for element in store.node.slice]
    numbers = all(type(index) is cst.Index and is_number(analysis.value_of(index.value)) for index in indices)
    return len(indices) >= dimensions and (numbers or is_zero_dim(store.value))


def _on_device(value: Value, aware: bool) -> Value | None:
    """The value, or a tensor it holds, that is on an accelerator (None if none is); in a scope
    whose author copies tensors to the CPU (``aware``), one that may be is enough."""
    for element in elements(value):
        if aware and may_be_tensor(element) and may_be_on_accelerator(element, through_modules=False):
            return element
        if is_tensor(element) and must_be_on_accelerator(element, through_modules=False):
            return element
    return None
