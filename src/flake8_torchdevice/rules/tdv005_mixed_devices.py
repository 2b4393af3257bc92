"""TDV005: one operation combining a CPU tensor with a tensor on a device."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import cast

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    FunctionInfo,
    Value,
    checks_every_device,
    data_arguments,
    dotted_name,
    evidence_confidence,
    is_module,
    is_tensor,
    is_zero_dim,
    keyword_argument,
    may_be_on_accelerator,
    may_be_tensor,
    may_be_zero_dim,
    must_be_on_accelerator,
    must_be_on_cpu,
    on_the_cpu_in_a_branch,
    place_name,
    place_unknown,
    placed_by_the_caller,
)
from ..confidence import Confidence
from ..settings import Settings
from .base import Finding, Rule, quoted

# Methods that take a tensor from another device legitimately, or only read its shape, dtype or
# value (``fill_`` takes a 0-dim value from anywhere; semantics/holds_shape_of_another_tensor_reads_no_device.py).
CROSS_DEVICE_METHODS = frozenset(
    "to cuda cpu copy_ type_as new_tensor set_ new_zeros new_ones new_empty new_full expand_as view_as "
    "reshape_as resize_as resize_as_ fill_".split()
)


def split_places(
    values: Sequence[Value], here: FunctionInfo | None, analysis: Analysis, scalars_pass: bool = True
) -> tuple[Value, Value] | None:
    """A (CPU tensor, device tensor) pair among the values, if the code shows one: a tensor on the
    CPU on every path, or on the paths of a branch that made it there (``else: b =
    torch.zeros(n)``), and one that must be on the accelerator.

    CPU 0-dim tensors are left out where the operation takes them as scalars (``scalars_pass``):
    operators and elementwise functions do, ``torch.clamp``'s bounds and ``torch.stack`` do not.
    """
    on_cpu = next(
        (
            value
            for value in values
            if may_be_tensor(value)
            and (must_be_on_cpu(value) or on_the_cpu_in_a_branch(value) is not None)
            and not (scalars_pass and is_zero_dim(value))
        ),
        None,
    )
    if on_cpu is None:
        return None
    # In a constructor, nothing has moved the module yet: its parameters are where they were made.
    through_modules = not analysis.runs_in_constructor(here)
    tensors = [value for value in values if is_tensor(value)]
    on_device = next((value for value in tensors if must_be_on_accelerator(value, through_modules)), None)
    if on_device is None and must_be_on_cpu(on_cpu) and evidence_confidence(on_cpu) is Confidence.HIGH:
        # ``if args.gpu is not None: images = images.cuda(args.gpu)`` with ``target`` never moved:
        # the operation fails on exactly the runs that take the path that moved the other tensor.
        # Not where the CPU is only what the callers passed: the condition may test that device.
        on_device = next((value for value in tensors if may_be_on_accelerator(value, through_modules=False)), None)
    return None if on_device is None else (on_cpu, on_device)


def _combines_tensors(site: CallFact) -> bool:
    """A torch function, a tensor method, or a call of a module that is not itself on a device."""
    if site.qualified is not None:
        return site.qualified.startswith("torch.") and is_tensor(site.result)
    if site.method is not None and is_tensor(site.receiver_value):
        return site.method not in CROSS_DEVICE_METHODS
    # A module moved to a device and fed a CPU tensor is TDV006's finding.
    return is_module(site.callee) and must_be_on_cpu(site.callee)


class MixedDevices(Rule):
    """
    ## What it does
    Reports an operator (`+`, `*`, `@`...), an in-place update (`total += loss`), a `torch.*`
    function, a tensor method or a call of a parameter-free module such as a loss function that
    combines a tensor made on the CPU with one the code shows is on a device: placed with
    `device=device`, `.to(device)` or `.cuda()`, computed by a model on a device, or an input of
    `forward()` or a parameter of an `nn.Module`, which live wherever the module is. The CPU tensors
    include the batches and samples of the data libraries (a `DataLoader`'s `targets`, a torchtext
    `batch.label`, a torchvision dataset's image: see TDV006). A name that
    still holds a tensor from before `x = x.to(device)` (`prompt = tokens` above the move) keeps the
    unmoved tensor; where the code does not show where that was, the move says it was elsewhere,
    taken to be the CPU: a finding on it is likely (medium). Also a tensor on the CPU indexed by
    indices on a device (`labels[scores.topk(k).indices]`), which raises on a GPU since PyTorch 1.13
    (a tensor on a device indexed by CPU indices is fine: they are copied over). And, as likely
    (medium), a tensor made on the CPU with the whole shape of another (`torch.ones(x.shape)`,
    `torch.zeros(x.size())`) and combined with it, where the code does not show where `x` is (a
    function's input): the code makes a companion for `x` wherever it is and forgets the device.

    A guess (low) where the CPU tensor may be 0-dim, a number to any device: a step picked from a
    tensor whose rank the code does not show (`alphas[t]` of a schedule made from NumPy data),
    `torch.tensor(x)` of data it does not show (a number more often than not: of the likely
    findings whose verdicts named a 0-dim value, 41 were false and 2 real). Likely (medium), not
    sure, where the code made it on the device it names for itself (`device=self.device`) and that
    turns out to be the CPU.

    Also as likely (medium): a tensor made on the CPU in one branch of an `if` (`else: b =
    torch.zeros(n)` when there is no bias) that meets a tensor on a device after the branches
    join: the CPU branch runs whenever its condition says so, whatever the device. Likely too: a
    tensor the code makes on the CPU that meets one moved to a device only where a condition holds
    (`if args.gpu is not None: images = images.cuda(args.gpu)`, the targets never moved): it fails
    on every run that takes the path that moved. And as a guess
    (low): a tensor made on the CPU and updated in place (`total += loss`, `total.add_(loss)`)
    with values computed from a function's inputs, whose place the code does not show: the
    function runs on whatever device its inputs are on, and its CPU total fails whenever they are
    on a GPU (many such functions only ever see CPU tensors).

    ## Why is this bad?
    Every tensor of an operation must be on the same device. On a GPU this raises
    `RuntimeError: Expected all tensors to be on the same device, but found at least two devices,
    cuda:0 and cpu!`; on a CPU-only test machine it passes, so the bug ships. The commonest case
    is in model code: `mask = torch.ones(x.size(0), n)` or `torch.arange(seq_len)` inside
    `forward()` without `device=`, or a plain tensor attribute (not a registered buffer), which
    `model.to(device)` does not move. An in-place update of a CPU tensor (`total += loss`) fails
    even when the CPU tensor is 0-dim: a 0-dim CPU tensor may be an operand of an operation on a
    GPU, never its output.

    Not reported: a tensor made on the CPU before a loop that replaces it (a placeholder for the
    first iteration), since the code usually guarantees the loop runs; a CPU branch under a test of
    the device (`if x.device.type == "cpu":`), or under `if h is None:` in a call that passes `h`;
    `total += loss.item()` (a Python float) and `total = total + loss` (a new tensor); an
    in-place update from inputs the function brings to the CPU (`torch.from_numpy`, `.cpu()`, a
    `DataLoader`'s batches); arithmetic in a module's `__init__` on its parameters, which are
    still on the CPU there; CPU 0-dim operands (`torch.tensor(2.0)`, `x.sum()`, `torch.tensor(n)`
    of a size read off `x.shape`, `betas[i]` of a 1-dim `betas`) of operators and elementwise
    functions, which PyTorch takes as scalars on any device (not the bounds of
    `torch.clamp`, nor the tensors `torch.stack` or `torch.cat` join: those raise on a GPU);
    two device expressions that might be the same device (`device` and `other_device`); tensors
    whose place the code does not show; code under a CPU-only branch (`if x.device.type == "cpu":`,
    the `else` of `if use_cuda:`), where the device is the CPU; tensors moved before use, also
    only where their device differs (`if alpha.device != logits.device: alpha = alpha.to(...)`:
    on the other path it is already there); a layer's
    `weight` or `bias` kept as a module's attribute (`self.k0 = conv0.weight`): an `nn.Parameter`,
    registered, so it moves with the module.

    Off by default since round 17. On at round 16, when its sure findings on code first seen were
    right 8 times in 8 (12 in 13 over rounds 14 to 16), it fell short at its first look as a default
    rule: right 2 times in 9 at round 17 (CTC losses given CPU targets and lengths, which
    `F.ctc_loss` moves itself; steps picked from a schedule whose rank the code does not show, and
    so maybe 0-dim; a module that its script only ever runs on the CPU), after 4 of 5 at round 15:
    two first looks short. The first two causes are fixed. Enable it with `--extend-select TDV005`
    (torchdevice, or `extend-select = ["TDV005"]` under `[tool.torchdevice]`) or
    `--extend-select=TDV005` (flake8); its likely findings are behind `--confidence medium` (24 of 87).

    ## Example
    ```python
    import torch

    weights = torch.ones(3, device=device)
    bias = torch.zeros(3)
    out = weights + bias


    def mean_loss(losses: torch.Tensor):
        total = torch.tensor(0.0)
        for loss in losses:
            total += loss
        return total / len(losses)
    ```

    ## Use instead
    ```python
    import torch

    weights = torch.ones(3, device=device)
    bias = torch.zeros(3, device=device)
    out = weights + bias


    def mean_loss(losses: torch.Tensor):
        total = torch.tensor(0.0, device=losses.device)
        for loss in losses:
            total += loss
        return total / len(losses)
    ```
    """

    code = "TDV005"
    name = "mixed-devices"
    summary = "An operation combines a tensor on the CPU with one on a device"
    precision = (
        "first look: high 17 of 39 (rounds 7-15), 8 of 8 (16), 2 of 9 (17), 0 of 2 (18), 0 of 17 (23), 6 of 13 (24); "
        "medium 24 of 99 (8-23), 3 of 12 (24), 0 of 7 (25); high 2 of 3, medium 3 of 11 (26); "
        "high 2 of 12, medium 0 of 5 (27); high 0 of 1, medium 1 of 11 (28); high 5 of 5 (29); "
        "high 1 of 5, medium 0 of 3 (30); high 8 of 9, medium 0 of 1 (31); high 0 of 3, medium 0 of 2 (32); "
        "medium 0 of 2 (33); high 0 of 3, medium 1 of 4 (34); high 0 of 12, medium 1 of 7 (37); "
        "high 0 of 1, medium 0 of 1 (38); high 0 of 1, medium 0 of 1 (39)"
    )
    depends_on_callers = True  # where a helper's parameters are is where its callers put them

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for operation in analysis.operations():
            if operation.without_cuda:
                continue
            left, right = operation.left, operation.right
            if isinstance(operation.node, cst.Subscript):
                if _indexed_from_a_device(left, right):
                    yield self._indexed(analysis, operation.node, left, right)
                continue
            if isinstance(operation.node, cst.AugAssign) and _written_on_the_cpu(left):
                node = operation.node
                updated = self._updated(analysis, node, node.target, left, [right])
                if updated is not None:
                    yield updated
                    continue
            pair = split_places((left, right), operation.scope.function, analysis)
            if pair is not None:
                cpu_node = _operand(operation.node, left is pair[0])
                yield self._report(analysis, operation.node, cpu_node, pair[0], pair[1], scalars_pass=True)
                continue
            nodes = (_operand(operation.node, True), _operand(operation.node, False))
            shaped = _shaped_like_an_unknown([(node, value) for node, value in zip(nodes, (left, right)) if node])
            if shaped is not None:
                yield self._shaped(analysis, operation.node, *shaped)
        for site in analysis.calls():
            if site.without_cuda or not _combines_tensors(site):
                continue
            operands = _operands(site, analysis)
            if _updates_in_place(site) and site.receiver is not None:
                arguments = [value for _, value in operands[1:]]
                updated = self._updated(analysis, site.node, site.receiver, site.receiver_value, arguments)
                if updated is not None:
                    yield updated
                    continue
            values = [value for _, value in operands]
            scalars_pass = not checks_every_device(site)
            pair = split_places(values, site.scope.function, analysis, scalars_pass)
            if pair is not None:
                cpu_node = next(node for node, value in operands if value is pair[0])
                yield self._report(analysis, site.node, cpu_node, pair[0], pair[1], scalars_pass)
                continue
            shaped = _shaped_like_an_unknown(operands)
            if shaped is not None:
                yield self._shaped(analysis, site.node, *shaped)

    def _updated(
        self,
        analysis: Analysis,
        node: cst.CSTNode,
        target: cst.BaseExpression,
        written: Value,
        operands: Sequence[Value],
    ) -> Finding | None:
        """``total += loss``, ``total.add_(loss)``: the result is written into the CPU tensor, so the
        operation fails on a GPU even when that tensor is 0-dim (a 0-dim CPU tensor may be an
        operand of a GPU operation, never its output)."""
        for value in operands:
            if is_tensor(value) and must_be_on_accelerator(value):
                return self._report(analysis, node, target, written, value, scalars_pass=False)
        if any(is_tensor(value) and not must_be_on_cpu(value) and placed_by_the_caller(value) for value in operands):
            return self._updated_from_inputs(analysis, node, target, written)
        return None

    def _updated_from_inputs(
        self,
        analysis: Analysis,
        node: cst.CSTNode,
        target: cst.BaseExpression,
        written: Value,
    ) -> Finding:
        """A guess: the function runs wherever its inputs are, and nothing shows them on a GPU
        (the tuning after round 8 found such functions called with CPU tensors only, 0 of 4)."""
        made = analysis.explain(written)
        return self.finding(
            node,
            f"`{quoted(analysis, target, 20)}` (on the CPU{f', {made}' if made else ''}) is updated in place "
            "from the function's inputs: fails when they are on a GPU; make it on their device",
            confidence=Confidence.LOW,
        )

    def _shaped(
        self, analysis: Analysis, node: cst.CSTNode, cpu_node: cst.CSTNode, cpu_value: Value, other: cst.CSTNode
    ) -> Finding:
        """Likely, not sure: the other tensor's place is not shown, only that it may be anywhere."""
        made = analysis.explain(cpu_value)
        name = quoted(analysis, other, 16)
        return self.finding(
            node,
            f"`{quoted(analysis, cpu_node, 20)}` (on the CPU{f', {made}' if made else ''}) has the shape of `{name}` "
            f"but not its device: fails where `{name}` is on a GPU; pass device={name}.device",
            confidence=Confidence.MEDIUM,
        )

    def _indexed(self, analysis: Analysis, node: cst.Subscript, indexed: Value, indices: Value) -> Finding:
        name = f"`{quoted(analysis, node.value, 20)}`"
        made = analysis.explain(indexed)
        index = cast(cst.Index, node.slice[0].slice).value
        return self.finding(
            node,
            f"{name} (on the CPU{f', {made}' if made else ''}) is indexed with `{quoted(analysis, index, 20)}` on "
            f"{place_name(indices)}: fails on a GPU; index with `.cpu()` indices or move {name}",
            confidence=evidence_confidence(indexed, indices),
        )

    def _report(
        self,
        analysis: Analysis,
        node: cst.CSTNode,
        cpu_node: cst.CSTNode | None,
        cpu_value: Value,
        device_value: Value,
        scalars_pass: bool,
    ) -> Finding:
        cpu = f"`{quoted(analysis, cpu_node, 20)}`" if cpu_node is not None else "a tensor"
        branch = on_the_cpu_in_a_branch(cpu_value)
        made = analysis.explain(branch or cpu_value)
        where = "on the CPU" if branch is None else "on the CPU on one branch"
        moved_on_some_paths = not must_be_on_accelerator(device_value)
        when = " where moved" if moved_on_some_paths else ""
        return self.finding(
            node,
            f"{cpu} ({where}{f', {made}' if made else ''}) meets a tensor on {place_name(device_value)}{when}: "
            "fails on a GPU; create it with device= or move it",
            # The CPU tensor may be 0-dim, a number to any device (``alphas[t]``,
            # ``torch.tensor(self.lower)``): a guess, as the data the code does not show is a number
            # more often than not (of the likely findings whose verdicts in docs/precision.md name
            # a 0-dim value, 41 were false and 2 real).
            # That branch is taken by a condition the code does not tie to the device, the other
            # tensor is moved only where a condition holds, or the code asked for its own device
            # and that is the CPU: likely.
            confidence=Confidence.LOW
            if scalars_pass and may_be_zero_dim(cpu_value)
            else Confidence.MEDIUM
            if branch is not None or moved_on_some_paths or _made_on_a_device_the_code_names(cpu_value)
            else evidence_confidence(cpu_value, device_value),
        )


def _made_on_a_device_the_code_names(value: Value) -> bool:
    """``torch.tensor(tokens, device=self.device)`` where ``self.device`` is the CPU: the code put
    it where it keeps its data, on purpose; whether its model is elsewhere is not sure."""
    made = value.origin.node if value.origin is not None else None
    if type(made) is not cst.Call:
        return False
    chosen = keyword_argument(made, "device")
    return chosen is not None and type(chosen) in (cst.Name, cst.Attribute)


def _written_on_the_cpu(value: Value) -> bool:
    return is_tensor(value) and must_be_on_cpu(value)


def _updates_in_place(site: CallFact) -> bool:
    """``total.add_(loss)``, ``counts.index_add_(0, i, ones)``: a tensor method that writes its
    result into a receiver on the CPU."""
    method = site.method
    return (
        method is not None
        and method.endswith("_")
        and not method.startswith("_")
        and _written_on_the_cpu(site.receiver_value)
    )


def _shaped_like_an_unknown(
    operands: Sequence[tuple[cst.CSTNode, Value]],
) -> tuple[cst.CSTNode, Value, cst.CSTNode] | None:
    """``torch.ones(x.shape)`` made without ``device=`` and combined with ``x`` itself, whose place
    the code does not show (a function's input): the code makes a companion for ``x`` wherever it
    is, and forgets the device (``torch.ones_like(x)`` would not)."""
    for node, value in operands:
        if not (is_tensor(value) and must_be_on_cpu(value)) or is_zero_dim(value):
            continue
        source = _shape_source(value)
        if source is None:
            continue
        for other_node, other in operands:
            if other is not value and dotted_name(other_node) == source and is_tensor(other) and place_unknown(other):
                return node, value, other_node
    return None


def _shape_source(value: Value) -> str | None:
    """``x`` in ``torch.ones(x.shape)`` / ``torch.zeros(x.size())``: the tensor a factory copied
    its whole shape from."""
    made = value.origin.node if value.origin is not None else None
    if type(made) is not cst.Call or not made.args or made.args[0].keyword is not None:
        return None
    shape = made.args[0].value
    if type(shape) is cst.Call and not shape.args:  # ``x.size()``
        shape = shape.func
    if type(shape) is cst.Attribute and shape.attr.value in ("shape", "size"):
        return dotted_name(shape.value)
    return None


def _indexed_from_a_device(indexed: Value, indices: Value) -> bool:
    """``cpu_tensor[order]`` with ``order`` on a device raises on a GPU (since PyTorch 1.13); a
    tensor on a device indexed by CPU indices is fine, they are copied over."""
    return is_tensor(indexed) and must_be_on_cpu(indexed) and is_tensor(indices) and must_be_on_accelerator(indices)


def _operand(node: cst.CSTNode, left: bool) -> cst.CSTNode | None:
    if isinstance(node, cst.BinaryOperation):
        return node.left if left else node.right
    if isinstance(node, cst.AugAssign):
        return node.target if left else node.value
    return None


# ``t.index_put_((rows, cols), values)``: advanced indexing, whose indices may be on the CPU
# for a tensor on any device (semantics/holds_index_put_takes_cpu_indices_on_any_device.py).
_PUTS_BY_INDEX = frozenset({"index_put_", "index_put"})


def _operands(site: CallFact, analysis: Analysis) -> list[tuple[cst.CSTNode, Value]]:
    """The expressions a call combines, with their values: the receiver, each argument, and the
    elements of a list or tuple argument (``torch.cat([a, b])``)."""
    operands: list[tuple[cst.CSTNode, Value]] = []
    if site.receiver is not None:
        operands.append((site.receiver, site.receiver_value))
    arguments = list(zip(site.node.args, site.arguments))[: data_arguments(site)]
    if site.method in _PUTS_BY_INDEX:  # its indices index, as ``x[rows, cols] = v`` does: the CPU's may
        arguments = arguments[1:]
    for arg, value in arguments:
        operands.append((arg.value, value))
        if isinstance(arg.value, (cst.List, cst.Tuple)):
            operands.extend((element.value, analysis.value_of(element.value)) for element in arg.value.elements)
    return operands
