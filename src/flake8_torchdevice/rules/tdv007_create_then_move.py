"""TDV007: a tensor created on the CPU and moved straight away."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    Value,
    is_cuda_literal,
    is_device,
    is_device_of_a_value,
    is_tensor,
    keyword_argument,
    may_be_on_accelerator,
    must_be_on_cpu,
    number_value,
    positional_argument,
    string_value,
)
from ..settings import Settings
from .base import Finding, Fix, Rule, device_variable, keyword, quoted, with_argument

# Factories that fill a new tensor themselves: given ``device=``, they allocate once, there.
# ``torch.tensor(data)`` / ``as_tensor`` stage host data on the CPU and copy even with ``device=``,
# and ``*_like`` factories already allocate where their argument is: moving them saves nothing.
FILLING_FACTORIES = frozenset(f"torch.{name}" for name in "zeros ones empty full arange linspace logspace eye".split())
# Factories that draw from a random generator: on the device they draw from the device's
# generator, so a seeded program gets other numbers. Reported, but their fix is unsafe.
RANDOM_FACTORIES = frozenset(f"torch.{name}" for name in "rand randn randint randperm normal".split())


def _is_device_of(node: cst.BaseExpression | None) -> bool:
    """``x.device`` / ``self.device``: a device, wherever it is."""
    return isinstance(node, cst.Attribute) and node.attr.value == "device"


def _holds_a_device_of(move: CallFact) -> bool:
    """``d = x.device`` ... ``.to(d)``: a device, wherever it is."""
    return bool(move.arguments) and is_device_of_a_value(move.arguments[0])


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


def _create_on_device(factory: CallFact, move: CallFact) -> Fix | None:
    """``torch.zeros(n).to(device)`` becomes ``torch.zeros(n, device=device)``, when the move's only
    argument is a device: ``.to(other_tensor)`` also converts the dtype, and ``device=<tensor>``
    raises. Safe for filling factories; unsafe for random ones (another generator, other numbers)."""
    device = _only_device(move.node)
    if device is None or not _names_a_device(device, move):
        return None
    replacement = with_argument(factory.node, keyword("device", device))
    if factory.qualified in RANDOM_FACTORIES:
        return Fix(move.node, replacement, safe=False, description="pass device= (draws from the device's generator)")
    if _may_require_grad(factory.node):
        return Fix(move.node, replacement, safe=False, description="pass device= (the result becomes a leaf)")
    return Fix(move.node, replacement, safe=True, description="pass device=")


def _may_require_grad(factory: cst.Call) -> bool:
    """``requires_grad=`` given, and not a literal False. Moved, such a tensor is a non-leaf copy on
    an accelerator (an optimizer refuses it, its ``.grad`` stays None); made there, it is a leaf:
    the fix would change what the program does (on the CPU ``.to()`` returns the tensor itself)."""
    flag = keyword_argument(factory, "requires_grad")
    return flag is not None and not (isinstance(flag, cst.Name) and flag.value == "False")


def _names_a_device(device: cst.BaseExpression, move: CallFact) -> bool:
    """A device value, ``x.device``, a device string, or ``.cuda()``'s implied ``"cuda"``."""
    if not move.node.args or string_value(device) is not None or _is_device_of(device):
        return True
    value: Value = move.arguments[0]
    return not is_tensor(value) and (is_device(value) or may_be_on_accelerator(move.result, through_modules=False))


class CreateThenMove(Rule):
    """
    ## What it does
    Reports a factory that fills a new tensor followed directly by a move, such as
    `torch.zeros(n).to(device)`, `torch.arange(n).cuda()` or `torch.randn(3, 4).to(device)`, also
    through a dtype cast or the legacy `Variable` wrapper between them
    (`torch.arange(n).long().cuda()`, `Variable(torch.zeros(n)).cuda()`: they copy nothing; no fix
    is offered there, only the advice).

    ## Why is this bad?
    A performance bug: the tensor is allocated and filled on the CPU, then a second tensor is
    allocated on the device and the data is copied over, synchronously for pageable memory. Passing
    `device=` allocates once, directly where it is used. It matters in training loops and in
    `forward()`, where it runs every step.

    Not reported: `torch.tensor(data)` / `torch.as_tensor(data)` then `.to(device)` (PyTorch stages
    host data on the CPU and copies even when `device=` is given, so the advice would save nothing)
    and `*_like` factories (they allocate where their argument already is), nor a random draw with
    `generator=` (a CPU generator draws only on the CPU: with `device=` it raises), nor a tensor of
    no elements (`torch.empty(0).to(x)`, `torch.arange(n, n)`: a placeholder, nothing to copy).

    Off by default, like ruff's performance rules: every finding is a real double allocation, but
    most run once (an initialisation, a test) where the cost does not matter (docs/precision.md).
    Enable it where speed matters: `--extend-select TDV007` (torchdevice, or
    `extend-select = ["TDV007"]` under `[tool.torchdevice]`) or `--extend-select=TDV007` (flake8).

    ## Fix
    Safe: `torch.zeros(n).to(device)` becomes `torch.zeros(n, device=device)` when the move's only
    argument is a device (not a tensor: `.to(other)` also converts the dtype, and `device=<tensor>`
    raises). Unsafe for random factories (`rand`, `randn`, `randint`, `randperm`, `normal`): on the
    device they draw from the device's generator, so a seeded run gets other numbers. Unsafe when
    the factory is given `requires_grad=`: moved, the tensor is a non-leaf copy on an accelerator
    (an optimizer refuses it, its `.grad` stays None); made on the device it is a leaf, so the fix
    changes what the program does there (on the CPU `.to()` returns the tensor itself).

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
    precision = (
        "first look: 194 of 194 (10-11), 20 of 50 (12: quantized CPU code), 498 of 556 (13-23), "
        "79 of 128 (24), 150 of 161 (25), 50 of 53 (26), 22 of 23 (27), 99 of 110 (28), 36 of 40 (29), 22 of 29 (30), "
        "29 of 34 (31), 122 of 126 (32), 21 of 26 (33), 50 of 57 (34), 15 of 18 (35), 79 of 93 (37), 55 of 81 (38), "
        "21 of 21 (39)"
    )

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for site in analysis.calls():
            if site.method not in ("to", "cuda") or site.receiver is None:
                continue
            created, wrapped = _factory_of(analysis, site.receiver)
            if created is None:
                continue
            target = keyword_argument(site.node, "device") or positional_argument(site.node, 0)
            # ``.to(model.device)`` moves unless the code shows the model on the CPU.
            named = (_is_device_of(target) or _holds_a_device_of(site)) and not must_be_on_cpu(site.result)
            moves = may_be_on_accelerator(site.result) or named
            if keyword_argument(created.node, "device") is not None or not moves:
                continue
            if keyword_argument(created.node, "generator") is not None:
                continue  # a CPU generator draws only on the CPU: device= would raise
            if _makes_no_elements(created):
                continue  # ``torch.empty(0).to(x)``: a placeholder, nothing allocated or copied
            # ``torch.normal(mean, std)`` of tensors takes no device=: it draws where they are.
            drawn_from_tensors = any(is_tensor(value) for value in created.arguments)
            fix = None if drawn_from_tensors or wrapped else _create_on_device(created, site)
            factory = (created.qualified or "").rsplit(".", 1)[-1]
            if drawn_from_tensors:
                advice = f"make the tensors torch.{factory}() draws from on the device"
            elif fix is not None or (wrapped and _only_device(site.node) is not None):
                device = _advised_device(analysis, site, target)
                advice = f"create it on the device: `torch.{factory}(..., device={device})`"
            else:
                advice = f"pass device= (and dtype=) to torch.{factory}() instead"
            yield self.finding(
                site.node,
                f"`{quoted(analysis, site.node)}` allocates on the CPU, then copies (performance); {advice}",
                fix,
            )


def _factory_of(analysis: Analysis, moved: cst.BaseExpression) -> tuple[CallFact | None, bool]:
    """The factory whose new tensor a move copies, and whether it is wrapped: seen through dtype
    casts (``torch.arange(n).long().cuda()``) and the legacy ``Variable(torch.zeros(n)).cuda()``,
    which copy nothing themselves (no fix is offered through them: advice only)."""
    wrapped = False
    call = analysis.call_at(moved)
    while call is not None and call.qualified not in FILLING_FACTORIES | RANDOM_FACTORIES:
        if call.method in _CASTS and not call.node.args and call.receiver is not None:
            call = analysis.call_at(call.receiver)
        elif call.qualified == "torch.autograd.Variable" and call.node.args and call.node.args[0].keyword is None:
            call = analysis.call_at(call.node.args[0].value)
        else:
            return None, False
        wrapped = True
    return call, wrapped


def _makes_no_elements(factory: CallFact) -> bool:
    """``torch.empty(0)``, ``torch.zeros((0, d))``, ``torch.arange(0)``, ``torch.arange(n, n)``: a
    tensor of no elements, which neither allocates nor copies anything worth the advice."""
    sizes = [arg.value for arg in factory.node.args if arg.keyword is None]
    if factory.qualified == "torch.arange":
        if any(keyword_argument(factory.node, bound) is not None for bound in ("start", "end", "step")):
            return False  # ``torch.arange(0, end=n)``: n elements
        if len(sizes) == 1:
            return number_value(sizes[0]) == 0
        return len(sizes) == 2 and _same_number(sizes[0], sizes[1])
    if factory.qualified not in _SIZED_BY_EVERY_POSITIONAL or not sizes:
        return False  # ``torch.randint(0, 10, (4,))``: its first numbers are bounds, not sizes
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        sizes = [element.value for element in sizes[0].elements]
    return any(number_value(size) == 0 for size in sizes)


def _same_number(first: cst.BaseExpression, second: cst.BaseExpression) -> bool:
    """Two literals of one value, or one name twice (``torch.arange(n, n)``)."""
    if type(first) is cst.Name and type(second) is cst.Name:
        return first.value == second.value
    value = number_value(first)
    return value is not None and value == number_value(second)


# Factories whose every positional argument is a size (``torch.zeros(2, 3)``, ``torch.zeros((2, 3))``).
_SIZED_BY_EVERY_POSITIONAL = frozenset(f"torch.{name}" for name in "zeros ones empty rand randn".split())

# Tensor methods that only convert the dtype: the tensor stays where it was made.
_CASTS = frozenset("float double half bfloat16 long int short char byte bool".split())


def _advised_device(analysis: Analysis, move: CallFact, target: cst.BaseExpression | None) -> str:
    """The device the advice names: the move's own, unless it is a hard-coded CUDA device (``"cuda"``,
    ``.cuda()``, an index), which TDV001 reports: then the code's device variable, or ``device``."""
    if target is not None and not is_cuda_literal(target) and not isinstance(target, cst.Integer):
        # Code to paste: whole up to a dotted path's length (``self.parameters.device``).
        return quoted(analysis, target, 30)
    return device_variable(analysis, move) or "device"
