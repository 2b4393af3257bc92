"""TDV012: ``nn.Parameter(...).to(device)``: the copy ``.to()`` makes is no parameter."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import cast

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    FunctionInfo,
    builds_parameter,
    children,
    dotted_name,
    every_node,
    is_optimizer,
    is_tensor,
    keyword_argument,
    must_be_on_cpu,
    own_nodes,
    positional_argument,
    same_places,
)
from ..confidence import Confidence
from ..settings import Settings
from .base import Finding, Fix, Rule, quoted

# Expressions that take ``.to(...)`` without parentheses around them.
_ATOMS = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.List,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.SimpleString,
    cst.FormattedString,
)


# Calls that make a parameter of the tensor they are given, by their last names; methods that grow
# a list (one handed to an optimizer keeps what it is given).
_REGISTERING = ("register_parameter", "setattr")
_GROWING = frozenset({"append", "extend", "insert"})
_BUILTINS = frozenset(dir(builtins))
# Containers that wrap each plain tensor they are given in a Parameter (``ParameterList.append``,
# ``__setitem__``): a copy made by ``.to()`` is registered all the same.
_WRAPPING_CONTAINERS = ("ParameterList", "ParameterDict")
_WRAPPING_METHODS = frozenset({"append", "extend", "insert", "update", "__setitem__"})


def _wraps_parameters(name: str | None) -> bool:
    return name is not None and name.startswith("torch.nn.") and name.endswith(_WRAPPING_CONTAINERS)


def _handed_to_wrapping_containers(analysis: Analysis) -> set[int]:
    """The expressions given to ``nn.ParameterList([...])``, ``nn.ParameterDict({...})`` or their
    ``append`` / ``extend`` / ``insert`` / ``update``: as elements, comprehension results or dict
    values. Such a container makes a Parameter of each, so ``.to()`` before it loses nothing."""
    handed: set[int] = set()
    for site in analysis.calls():
        if _wraps_parameters(site.qualified) or (
            site.method in _WRAPPING_METHODS and _wraps_parameters(site.receiver_value.cls)
        ):
            for arg in site.node.args:
                handed.update(id(node) for node in _elements(arg.value))
    return handed


def _elements(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """``node`` and, for a literal list, tuple, set or dict or a comprehension, what it holds."""
    yield node
    if isinstance(node, (cst.List, cst.Tuple, cst.Set, cst.Dict)):  # a dict's values
        for element in node.elements:
            yield from _elements(element.value)
    elif isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        yield from _elements(node.elt)
    elif isinstance(node, cst.DictComp):
        yield from _elements(node.value)


def _data_argument(call: cst.Call) -> cst.Arg | None:
    """The argument holding the tensor ``nn.Parameter(data, requires_grad=...)`` wraps."""
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None or arg.keyword.value == "data":
            return arg
    return None


def _converts_dtype(analysis: Analysis, site: CallFact) -> bool:
    """``.to(torch.float16)``, ``.to(device, torch.half)``, ``.to(dtype=...)``: a conversion, a
    copy whenever the dtype is another."""
    call = site.node
    if keyword_argument(call, "dtype") is not None or positional_argument(call, 1) is not None:
        return True
    first = positional_argument(call, 0)
    return first is not None and analysis.names_a_dtype(first)


def _returns_itself(analysis: Analysis, site: CallFact, made: CallFact) -> bool:
    """Does this ``.to()`` / ``.cuda()`` return the Parameter itself? Only when it names a device
    and nothing else, and that device is the CPU (``.to("cpu")``) or where the wrapped data
    already is (``nn.Parameter(torch.ones(3, device=device)).to(device)``)."""
    call = site.node
    if any(arg.star for arg in call.args) or _converts_dtype(analysis, site):
        return False
    if site.method == "to":
        positions = [index for index, arg in enumerate(call.args) if arg.keyword is None]
        if positions and is_tensor(site.arguments[positions[0]]):
            return False  # ``.to(other)`` takes the other tensor's dtype too
        if not positions and keyword_argument(call, "device") is None:
            return True  # ``.to(memory_format=...)`` alone: not a move (and a no-op on most tensors)
    if keyword_argument(call, "memory_format") is not None or keyword_argument(call, "copy") is not None:
        return False  # a layout conversion, or a copy asked for
    if site.method == "to" and must_be_on_cpu(site.result):
        return True
    return same_places(site.result, made.result) or _made_where_moved(analysis, site, made)


def _made_where_moved(analysis: Analysis, site: CallFact, made: CallFact) -> bool:
    """``nn.Parameter(make(k, device=d)).to(d)``: data a call was asked to make on the very device
    the ``.to()`` names is there already, whatever ``make`` is."""
    data = _data_argument(made.node)
    target = keyword_argument(site.node, "device") or positional_argument(site.node, 0)
    if data is None or target is None or type(data.value) is not cst.Call:
        return False
    asked = keyword_argument(data.value, "device")
    return asked is not None and analysis.module.code_for_node(asked) == analysis.module.code_for_node(target)


def _moved_inside(analysis: Analysis, site: CallFact, made: CallFact) -> cst.Call | None:
    """``nn.Parameter(data).to(args)`` -> ``nn.Parameter(data.to(args))``, the call's layout kept."""
    data = _data_argument(made.node)
    func = site.node.func
    if data is None or not isinstance(func, cst.Attribute):
        return None
    value = data.value
    if not isinstance(value, _ATOMS) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    moved = site.node.with_changes(func=func.with_changes(value=value), lpar=[], rpar=[])
    arguments = [arg.with_changes(value=moved) if arg is data else arg for arg in made.node.args]
    return made.node.with_changes(args=arguments, lpar=site.node.lpar, rpar=site.node.rpar)


class ParameterMovedByTo(Rule):
    """
    ## What it does
    Reports `.to(...)` and `.cuda(...)` called on a new `nn.Parameter(...)` (or `nn.Buffer(...)`):
    `self.w = nn.Parameter(torch.randn(3)).to(device)`, `torch.nn.Parameter(x).cuda()`,
    `nn.Parameter(w).to(torch.float16)`.

    ## Why is this bad?
    `.to()` returns its receiver only when nothing changes. On an accelerator it returns a copy,
    and the copy is a plain `torch.Tensor`, not a `Parameter` (nor a buffer): assigned to a module
    it is an ordinary attribute, missing from `model.parameters()` (never trained: an optimizer
    built from them does not see it, or raises `ValueError: optimizer got an empty parameter
    list`), from `state_dict()` (never saved or loaded) and left behind by `model.to(...)`; the
    real Parameter is a hidden CPU leaf whose gradient nobody reads. On the CPU, `.to("cpu")`
    returns the Parameter itself, so tests that run only on the CPU pass. A dtype conversion
    (`.to(torch.float16)`) makes the same plain copy on every device. Assigned where a Parameter
    is registered already, the copy raises `TypeError: cannot assign ... as parameter` on a GPU.
    (PyTorch issues #9303, #17484, #20089, #39062 are this bug.)

    ## Example
    ```python
    import torch
    import torch.nn as nn


    class Scale(nn.Module):
        def __init__(self, device):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(8)).to(device)
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn as nn


    class Scale(nn.Module):
        def __init__(self, device):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(8, device=device))
    ```
    Create the data where it belongs, or move it before wrapping it
    (`nn.Parameter(pretrained.to(device))`, what the fix writes), or build the module on the CPU
    and move it whole with `model.to(device)`.

    ## Fix
    Safe: moves the call inside, onto the wrapped data: `nn.Parameter(x).to(device)` becomes
    `nn.Parameter(x.to(device))` (arguments and `requires_grad=` kept; `.cuda(...)` likewise).
    Where `.to()` returned the Parameter itself (the CPU), the fixed code makes the very same
    Parameter: the same data, shared with `x` as before, a leaf with the same `requires_grad`
    (`Parameter` sets it, `True` unless `requires_grad=False`, whatever `x` has). Where `.to()`
    copied (an accelerator, another dtype), what changes is the bug: the attribute is now a
    registered Parameter, a leaf without `grad_fn`, so the optimizer trains it, `state_dict()`
    holds it and `model.to()` moves it. A checkpoint written by the buggy code on a GPU lacks the
    key, so a strict `load_state_dict` of such a file then reports it missing.

    ## Not reported
    `.to("cpu")` or `.to(cpu_device)` (`.to()` returns the Parameter itself there; a Parameter
    made from a GPU tensor and moved to the CPU is rare); a move to where the
    data already is (`nn.Parameter(torch.ones(3, device=device)).to(device)`, or data a call was
    asked to make on that very device: `nn.Parameter(window(5, device=d)).to(d)`); `.to(memory_format=...)`
    alone (a no-op on a tensor already in that layout); a copy handed straight to
    `nn.ParameterList([...])` / `nn.ParameterDict({...})` or their `append` / `extend` / `insert` /
    `update`, which make a Parameter of every tensor they get; `.cpu()`, `.half()`,
    `.float()` and the other conversion methods; a Parameter bound to a name first and moved later
    (`p = nn.Parameter(x)` ... `p.to(device)`: TDV002's business when the result is dropped);
    one returned by a method that construction does not run (`return
    nn.Parameter(torch.zeros(1)).to(self.device)` as a placeholder loss): a value, no module's
    parameter; a copy the code shows used as a plain value: an operand of arithmetic (a fixed
    table added in `forward()`), or bound to a name it never stores in an attribute, returns,
    hands to an optimizer (itself, in a list, by `add_param_group`), to `register_parameter`,
    `setattr` or a helper of its own, nor reads the `.grad` of (weights updated by hand-written
    backpropagation, `w1 = w1 - lr * d_w1`). Anywhere else (an attribute, annotated or unpacked, a
    return, an argument) the copy is reported. Where the code does not show
    the wrapped data on the CPU (a caller's tensor), the finding is only likely (medium): the data
    may be on the device already.

    Off by default since round 15: right 10 times in 12 on code first seen, and it fell short
    twice (round 10: a placeholder loss; round 15: data made on the device by another module's
    helper; both fixed since). Enable it with `--extend-select TDV012` (torchdevice, or
    `extend-select = ["TDV012"]` under `[tool.torchdevice]`) or `--extend-select=TDV012` (flake8).
    """

    code = "TDV012"
    name = "parameter-moved-by-to"
    summary = "`.to()` / `.cuda()` on a new `nn.Parameter`: on an accelerator the copy is a plain tensor"
    precision = (
        "first look: 4 of 4 (rounds 5, 7); 0 of 1 (10: a placeholder loss, fixed); 6 of 6 (12-14); 0 of 1 (15);"
        " 1 of 1 (20), 0 of 1 (22), 1 of 1 (24), 0 of 1 (25), 0 of 15 (36), 0 of 4 (37), 6 of 10 (38)"
    )

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        handed: set[int] | None = None
        plain: _PlainValues | None = None
        for site in analysis.calls():
            if site.method not in ("to", "cuda") or type(site.receiver) is not cst.Call:
                continue
            made = analysis.call_at(site.receiver)
            if made is None or not builds_parameter(made) or _returns_itself(analysis, site, made):
                continue
            plain = plain or _PlainValues(analysis)
            if _returned_as_a_value(analysis, site) or plain.holds(site):
                continue
            if handed is None:
                handed = _handed_to_wrapping_containers(analysis)
            if id(site.node) in handed:
                continue
            replacement = _moved_inside(analysis, site, made)
            wrapper = (made.qualified or "").rsplit(".", 1)[-1]
            written = quoted(analysis, site.node, 36)
            converts = _converts_dtype(analysis, site)
            where = "to another dtype" if converts else "on a GPU"
            # Where the code does not show the data on the CPU, it may be on the device already.
            confidence = Confidence.HIGH if converts or must_be_on_cpu(made.result) else Confidence.MEDIUM
            yield self.finding(
                site.node,
                f"`{written}` is a plain tensor {where}, not a {wrapper}: never trained, saved or moved "
                f"with the model; move .{site.method}() inside",
                Fix(site.node, replacement, safe=True, description=f"move .{site.method}() inside {wrapper}()")
                if replacement is not None
                else None,
                confidence,
            )


class _PlainValues:
    """Where a copy is used as a plain value, so that no Parameter is needed: an operand of
    arithmetic (a fixed table added in ``forward()``), or bound to plain names the code never
    keeps as parameters (weights updated by hand-written backpropagation, ``w1 = w1 - lr * d_w1``).
    A name is kept where the code stores it as an attribute, hands it to an optimizer (itself, in
    a list bound to a name, or to ``add_param_group``), to ``register_parameter`` or ``setattr``,
    or reads its ``.grad``. Anything else (an attribute, a tuple, a return, an argument) is taken to
    need a Parameter. Read once per file: the parents of every node, the kept names per scope."""

    def __init__(self, analysis: Analysis) -> None:
        self._analysis = analysis
        self._parents = {id(child): node for node in every_node(analysis.module) for child in children(node)}
        # The names read in what the file's optimizers (and ``add_param_group``) are handed.
        self._handed = {
            name
            for site in analysis.calls()
            if is_optimizer(site.result) or site.method == "add_param_group"
            for arg in site.node.args
            for name in _names_in(arg.value)
        }
        self._kept: dict[int, set[str]] = {}

    def holds(self, site: CallFact) -> bool:
        parent = self._parents.get(id(site.node))
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.ComparisonTarget)):
            return True
        if type(parent) is not cst.Assign or any(type(target.target) is not cst.Name for target in parent.targets):
            return False
        bound = {cast(cst.Name, target.target).value for target in parent.targets}
        return not bound & self._kept_in(site.scope.function)

    def _kept_in(self, function: FunctionInfo | None) -> set[str]:
        # A name bound at the top of a module (a notebook's weights) is read anywhere in it.
        scope = function.node if function is not None else self._analysis.module
        kept = self._kept.get(id(scope))
        if kept is None:
            nodes = list(own_nodes(scope) if function is not None else every_node(scope))
            kept = self._kept[id(scope)] = _kept_names(self._analysis, nodes, self._handed)
        return kept


def _kept_names(analysis: Analysis, nodes: list[cst.CSTNode], handed: set[str]) -> set[str]:
    kept = set(handed)
    for node in nodes:  # ``params = [w1, b1]`` handed to one, ``params.append(w)``
        if type(node) is cst.Assign and any(dotted_name(target.target) in kept for target in node.targets):
            kept.update(_names_in(node.value))
        elif _grows(node, kept):
            kept.update(name for arg in cast(cst.Call, node).args for name in _names_in(arg.value))
    for node in nodes:
        if type(node) is cst.Attribute and node.attr.value == "grad" and type(node.value) is cst.Name:
            kept.add(node.value.value)
        elif type(node) is cst.Assign and any(type(target.target) is not cst.Name for target in node.targets):
            kept.update(_names_in(node.value))  # ``self.w = w``, ``self.weights = {"w": w}``
        elif type(node) is cst.Return and node.value is not None:
            kept.update(_names_in(node.value))  # the caller may store it
        elif type(node) is cst.Call and _may_keep_its_arguments(analysis, node):
            kept.update(name for arg in node.args for name in _names_in(arg.value))
    return kept


def _grows(node: cst.CSTNode, lists: set[str]) -> bool:
    """``params.append(w)`` of a list in ``lists``."""
    return (
        type(node) is cst.Call
        and type(node.func) is cst.Attribute
        and node.func.attr.value in _GROWING
        and dotted_name(node.func.value) in lists
    )


def _may_keep_its_arguments(analysis: Analysis, call: cst.Call) -> bool:
    """A helper of the code's own (``register(w)``), ``register_parameter``, ``setattr``: not a torch
    function (``torch.matmul(x, w1)`` computes with it) nor a builtin (``print(w1.shape)``)."""
    if (analysis.qualify(call.func) or "").startswith("torch."):
        return False
    if (dotted_name(call.func) or "").endswith(_REGISTERING):
        return True
    return type(call.func) is cst.Name and call.func.value not in _BUILTINS


def _names_in(node: cst.CSTNode) -> Iterator[str]:
    return (name.value for name in every_node(node) if type(name) is cst.Name)


def _returned_as_a_value(analysis: Analysis, site: CallFact) -> bool:
    """``return nn.Parameter(...).to(d)`` in a method that no constructor runs (a loss, a step):
    the copy is a value handed to the caller, never a module's attribute. A helper of
    ``__init__`` returns what becomes one, and a top-level function may build a module's."""
    function = site.scope.function
    if function is None or function.owner_key is None or analysis.runs_in_constructor(function):
        return False
    return any(type(node) is cst.Return and node.value is site.node for node in own_nodes(function.node.body))
