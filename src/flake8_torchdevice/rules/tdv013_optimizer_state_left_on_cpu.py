"""TDV013: an optimizer's state loaded while its model is on the CPU, and the model moved after."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    dotted_name,
    evidence_confidence,
    is_module,
    is_optimizer,
    keeps_state,
    keyword_argument,
    may_be_on_accelerator,
    must_be_on_cpu,
    positional_argument,
    string_value,
)
from ..settings import Settings
from .base import Finding, Rule, quoted

_PARAMETER_METHODS = ("parameters", "named_parameters")


def _parameter_sources(node: cst.BaseExpression | None) -> Iterator[cst.BaseExpression]:
    """The expressions that may hand an optimizer its parameters: the argument itself, the
    elements of a list of them, and the ``"params"`` of each parameter group (``[{"params": ...}]``)."""
    if node is None:
        return
    yield node
    if isinstance(node, (cst.List, cst.Tuple)):
        for element in node.elements:
            yield from _parameter_sources(element.value)
    elif isinstance(node, cst.Dict):
        for entry in node.elements:
            if isinstance(entry, cst.DictElement) and string_value(entry.key) == "params":
                yield from _parameter_sources(entry.value)
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "list" and node.args:
        yield from _parameter_sources(node.args[0].value)


def _trained_modules(analysis: Analysis, built: CallFact) -> list[CallFact]:
    """The ``model.parameters()`` calls whose parameters the optimizer was built with."""
    given = positional_argument(built.node, 0) or keyword_argument(built.node, "params")
    sites = (analysis.call_at(node) for node in _parameter_sources(given))
    return [
        site
        for site in sites
        if site is not None and site.method in _PARAMETER_METHODS and is_module(site.receiver_value)
    ]


def _moves(analysis: Analysis, load: CallFact, model: str) -> list[CallFact]:
    """The moves of ``model`` (``model.to(device)``, ``model.cuda()``) in the load's function, or
    of a module that holds it (``net.to(device)`` moves ``net.encoder``)."""
    return [
        site
        for site in analysis.calls()
        if site.method in ("to", "cuda")
        and site.scope.function is load.scope.function
        and _holds(dotted_name(site.receiver) if site.receiver is not None else None, model)
        and is_module(site.receiver_value)
    ]


def _holds(owner: str | None, model: str) -> bool:
    return owner is not None and (owner == model or model.startswith(owner + "."))


def _state_handed_on(analysis: Analysis, load: CallFact, optimizer: str) -> bool:
    """After the load, does the code reach into the optimizer's state (``optimizer.state.values()``)
    or hand the optimizer to a call that may move it (``optimizer_to(optimizer, device)``)?"""
    after = analysis.line_of(load.node)
    for site in analysis.calls():
        if site.scope.function is not load.scope.function or analysis.line_of(site.node) <= after:
            continue
        receiver = dotted_name(site.receiver) if site.receiver is not None else None
        if receiver is not None and receiver.startswith(optimizer + ".state"):
            return True
        if any(dotted_name(arg.value) == optimizer for arg in site.node.args):
            return True
    return False


class OptimizerStateLeftOnCpu(Rule):
    """
    ## What it does
    Reports `optimizer.load_state_dict(...)` where the optimizer's model is still on the CPU and
    the same function moves the model to a device afterwards:
    `optimizer = torch.optim.Adam(model.parameters())`, `optimizer.load_state_dict(checkpoint["optimizer"])`,
    then `model.to(device)`.

    ## Why is this bad?
    `Optimizer.load_state_dict` copies the saved state (Adam's `exp_avg` and `exp_avg_sq`, SGD's
    momentum buffers) to the device each parameter is on *when it is called*. `model.to(device)`
    moves the parameters in place but not the optimizer's state, which stays on the CPU. The first
    `optimizer.step()` on a GPU then fails (`Expected all tensors to be on the same device`), the
    classic crash of resuming training from a checkpoint (PyTorch issues #2830, #41839). On the
    CPU everything is on the CPU, so CPU-only tests pass. Off by default until a first look on
    fresh code measures it: `--extend-select TDV013` (torchdevice, or `extend-select = ["TDV013"]`
    under `[tool.torchdevice]`) or `--extend-select=TDV013` (flake8).

    ## Example
    ```python
    import torch
    from torch import nn


    def resume(path, device):
        model = nn.Linear(8, 2)
        optimizer = torch.optim.Adam(model.parameters())
        checkpoint = torch.load(path, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        model.to(device)
        return model, optimizer
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn


    def resume(path, device):
        model = nn.Linear(8, 2)
        model.to(device)
        optimizer = torch.optim.Adam(model.parameters())
        checkpoint = torch.load(path, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        return model, optimizer
    ```
    Move the model before loading the optimizer's state (building the optimizer after the move
    is the documented order), and the state follows the parameters wherever they are. No fix is
    offered: the statements that move the model, build the optimizer and load the checkpoint are
    the author's to reorder.

    ## Not reported
    A load after the model moved; a model that is never moved, or moved only to the CPU; an
    optimizer whose state holds no tensor (`torch.optim.SGD` without a momentum); state moved by
    hand after the load (`for state in optimizer.state.values(): ...`) or an optimizer handed to a
    helper after the load (which may move it); an optimizer, a load or a move in different
    functions (the order of their calls is not shown); optimizers not built by `torch.optim` in
    the file.
    """

    code = "TDV013"
    name = "optimizer-state-left-on-cpu"
    summary = "`optimizer.load_state_dict()` before the model moves: the state stays on the CPU"
    precision = "first look: none in round 36's 789,897 lines (new rule; issue 26, shape 7)"

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for load in analysis.calls():
            if load.method != "load_state_dict" or not is_optimizer(load.receiver_value):
                continue
            built = analysis.call_at(analysis.origin_node(load.receiver_value))
            optimizer = dotted_name(load.receiver) if load.receiver is not None else None
            if built is None or optimizer is None or not keeps_state(built):
                continue
            if built.scope.function is not load.scope.function:
                continue
            for trained in _trained_modules(analysis, built):
                finding = self._state_left_behind(analysis, load, built, trained, optimizer)
                if finding is not None:
                    yield finding
                    break

    def _state_left_behind(
        self, analysis: Analysis, load: CallFact, built: CallFact, trained: CallFact, optimizer: str
    ) -> Finding | None:
        model = dotted_name(trained.receiver) if trained.receiver is not None else None
        if model is None or not must_be_on_cpu(trained.receiver_value):
            return None
        built_line, load_line = analysis.line_of(built.node), analysis.line_of(load.node)
        moves = sorted(_moves(analysis, load, model), key=lambda site: analysis.line_of(site.node))
        if any(built_line <= analysis.line_of(site.node) <= load_line for site in moves):
            return None  # moved before the load, on some path at least
        later = (site for site in moves if analysis.line_of(site.node) > load_line)
        move = next((site for site in later if may_be_on_accelerator(site.result)), None)
        if move is None or _state_handed_on(analysis, load, optimizer):
            return None
        return self.finding(
            load.node,
            f"`{quoted(analysis, load.node.func, 34)}()` before `{quoted(analysis, move.node, 30)}` at "
            f"{analysis.cite(move.node)} keeps the state on the CPU: step() fails on a GPU; move the model first",
            confidence=evidence_confidence(move.result),
        )
