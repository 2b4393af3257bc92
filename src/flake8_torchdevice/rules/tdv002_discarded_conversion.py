"""TDV002: the result of a tensor's ``.to()`` / ``.cuda()`` / ``.cpu()`` is thrown away."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    children,
    dotted_name,
    every_node,
    fits_tensor_move,
    is_array,
    is_device,
    is_registered_parameter,
    is_tensor,
    is_unknown,
    keyword_argument,
    may_already_be_there,
    may_be_tensor,
    must_be_on_accelerator,
    must_be_on_cpu,
    own_nodes,
    path_to,
    place_unknown,
    positional_argument,
    same_places,
)
from ..confidence import Confidence
from ..settings import Settings
from .base import Finding, Fix, Rule, quoted, source_text

CONVERSIONS = frozenset({"to", "cuda", "cpu"})


def _is_in_place_method(name: str) -> bool:
    return name.endswith("_") and not name.startswith("_")


def lost_conversion(statement_call: cst.Call) -> cst.Call | None:
    """The conversion whose result a statement throws away.

    ``x.to(d)`` loses its own result; ``x.to(d).add_(1)`` mutates the copy and loses it
    too. ``loss.to(d).backward()`` uses the copy, so it is not a lost conversion.
    """
    current: cst.BaseExpression = statement_call
    while isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute):
        method = current.func.attr.value
        if method in CONVERSIONS:
            return current
        if not _is_in_place_method(method):
            return None
        current = current.func.value
    return None


def _assign_back(site: CallFact, statement: cst.Expr | None) -> Fix | None:
    """``x.to(d)`` becomes ``x = x.to(d)`` when ``x`` is a name or an attribute.

    Safe for a name the code shows is a tensor: rebinding a local name changes nothing else. Not
    for an attribute: ``self.weight = self.weight.to(d)`` raises TypeError on a GPU when
    ``weight`` is a registered ``nn.Parameter`` (on the CPU ``.to()`` returns the parameter
    itself, so CPU-only tests cannot see it), and a property may run a setter."""
    if statement is None or not isinstance(site.receiver, (cst.Name, cst.Attribute)):
        return None
    if isinstance(site.receiver, cst.Attribute) and is_registered_parameter(site.receiver_value):
        return None  # ``self.weight = self.weight.to(d)`` raises TypeError: no rewrite keeps it a parameter
    assignment = cst.Assign(
        targets=[cst.AssignTarget(target=site.receiver)], value=statement.value, semicolon=statement.semicolon
    )
    if isinstance(site.receiver, cst.Attribute):
        return Fix(
            statement, assignment, safe=False, description="assign the converted tensor back (unsafe: a parameter)"
        )
    safe = is_tensor(site.receiver_value) or is_array(site.receiver_value)
    return Fix(statement, assignment, safe=safe, description="assign the converted tensor back")


def _made_from_nothing(analysis: Analysis, receiver: cst.BaseExpression | None) -> bool:
    """``torch.ones(1).cuda()``: a tensor made from no other tensor, moved and dropped in one
    statement, loses nothing; it is a CUDA warm-up or a probe that the device works."""
    made = analysis.call_at(receiver)
    return made is not None and made.qualified is not None and not any(may_be_tensor(v) for v in made.arguments)


def _casts_an_update(analysis: Analysis, site: CallFact) -> bool:
    """``w.add_(delta).to(orig_dtype)``: the in-place update already landed in ``w`` and kept its
    dtype, so a dropped cast back to a dtype the code saved loses nothing (adapter-merge code does
    this). A cast to a dtype written out (``.to(torch.float16)``) is a lost cast, and reported."""
    receiver = site.receiver
    return (
        isinstance(receiver, cst.Call)
        and isinstance(receiver.func, cst.Attribute)
        and _is_in_place_method(receiver.func.attr.value)
        and analysis.casts_to_a_saved_dtype(site.node)
    )


class DiscardedConversion(Rule):
    """
    ## What it does
    Reports an expression statement `x.to(device)`, `x.cuda()` or `x.cpu()` whose result is thrown
    away when `x` is a tensor, and chains that lose it the same way (`x.to(device).add_(1)`).

    ## Why is this bad?
    A tensor's `.to()`, `.cuda()` and `.cpu()` return a *new* tensor and leave `x` where it was.
    The next operation that combines `x` with tensors on the target device fails with
    `RuntimeError: Expected all tensors to be on the same device`, far from the line at fault.
    `nn.Module.to()` is the exception: it moves the module's parameters in place, so
    `model.to(device)` is correct and is not reported, nor is a tensor made from nothing and
    dropped in the same statement (`torch.ones(1).cuda()`), a deliberate CUDA warm-up, nor a
    cast of an in-place update back to a saved dtype (`w.add_(delta).to(w.dtype)`): the update
    already landed in `w` and kept its dtype. A plain `x.to(torch.float32)` whose result is dropped is reported:
    the cast is lost. Nor is a move to where the code shows the tensor already is
    (`self.inv_freq.to(x.device)` in `forward()`: a registered buffer moves with its module, and the
    input is where the module is): `.to()` returns the tensor itself, and nothing is lost. Nor is a
    move the very next statement makes again, first thing, and keeps (`adp.to(device)`, then
    `adp = adp.cpu().numpy()`): where the tensor ends up is that move's doing. Where the
    tensor may already be there on some paths (made as a CUDA tensor on the branch that found the
    target device is not the CPU), the finding is likely (medium): the copy is lost only on the
    other paths.

    `x` counts as a tensor when the code shows it: tensor factories and `torch.*` results,
    tensor-only methods (`detach`, `unsqueeze`, `size()`...) called on it anywhere in its scope,
    arithmetic on tensors, indexing a tensor, a `torch.Tensor` annotation, a `torch.is_tensor(x)` /
    `isinstance(x, torch.Tensor)` branch, the tensors unpacked from a `DataLoader` batch (also the
    batch ignite's `Engine` hands its process function), and
    array-like values (`w = block.reshape(-1, 4)`), since NumPy arrays have no `.to()` / `.cpu()`.
    Modules (`nn.*` constructors, `nn.Module` subclasses, `from_pretrained` models, names the scope
    calls `.eval()` or `.parameters()` on, with arguments `nn.Module`'s methods take: a
    framework's `model.train(dataset=...)` proves nothing) and anything the code does not show
    are left alone,
    except a receiver the same scope moves exactly like a tensor whose copy it also loses
    (`x1.to(self.device)`, then `vx1.to(self.device)` for the optional validation split): code
    that moves a batch element by element treats the elements alike, so that one is reported
    as likely (medium confidence), naming the tensor it is moved like.
    `--torchdevice-report-unknown-receivers` reports the other unknown ones too, as guesses (except
    objects unpacked with `**`, such as a Hugging Face `BatchEncoding`, whose `.to()` works in place).

    A call that a tensor's method does not accept is another class's method and is not reported:
    `quantizer.cuda(q, meta=meta)` (`Tensor.cuda` takes `device`, `non_blocking` and
    `memory_format` only). Nor is the move of a parameter annotated with another class
    (`batch: TokenBatch | PairBatch`, a class of the project's or of another library's): wrappers
    often define `detach()` and `to()` that replace the tensors they hold and return themselves,
    so a method name tensors share proves nothing against the annotation.

    Off by default since round 24: its sure findings fell short on code first seen again (2 of 3:
    ESPnet's discarded `padding_mask.to(x.device)` moves a mask that every caller, in another
    file, had already put on `x`'s device; 4 of 7 at rounds 7, 13 and 14; 2 of 2 at round 25: 8 of
    12 in all). Enable it with
    `--extend-select TDV002` (torchdevice, or `extend-select = ["TDV002"]` under
    `[tool.torchdevice]`) or `--extend-select=TDV002` (flake8).

    ## Fix
    Safe when `x` is a name the code shows is a tensor: `x.to(device)` becomes `x = x.to(device)`
    (unsafe when it is only likely one: another class's `.to()` may return `None`).
    Unsafe when `x` is an attribute: `self.weight = self.weight.to(device)` raises `TypeError:
    cannot assign ... as parameter` on a GPU when `weight` is a registered `nn.Parameter` (on
    the CPU `.to()` returns the parameter itself, so a CPU-only test passes); move the module
    instead, or wrap the result in `nn.Parameter`. Where the code shows the attribute is one
    (`self.temperature = nn.Parameter(...)`), no fix is offered and the message says to move the
    module.

    ## Example
    ```python
    import torch

    device = torch.accelerator.current_accelerator() or torch.device("cpu")
    weights = torch.ones(3, device=device)
    bias = torch.zeros(3)
    bias.to(device)
    out = weights + bias
    ```

    ## Use instead
    ```python
    import torch

    device = torch.accelerator.current_accelerator() or torch.device("cpu")
    weights = torch.ones(3, device=device)
    bias = torch.zeros(3)
    bias = bias.to(device)
    out = weights + bias
    ```
    """

    code = "TDV002"
    name = "discarded-tensor-conversion"
    summary = "Result of a tensor's `.to()` / `.cuda()` / `.cpu()` is discarded (only `nn.Module.to()` is in place)"
    precision = (
        "first look: high 4 of 7 (rounds 7, 13, 14; causes fixed), 2 of 3 (24), 2 of 2 (25), 0 of 2 (27), 1 of 1 (34), "
        "0 of 1 (35), 0 of 1 (36), 0 of 1 (38); "
        "medium 4 of 6 (15-22), 0 of 1 (25), 0 of 1 (26), 0 of 1 (32), 0 of 1 (36)"
    )
    depends_on_callers = True  # where a helper's parameters are is where its callers put them
    fails_only_on_an_accelerator = False  # a discarded dtype conversion is lost on the CPU too

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        lost = list(_lost_conversions(analysis))
        shown = [(site, statement) for site, statement in lost if _shown_a_tensor(site)]
        for site, statement in lost:
            if _shown_a_tensor(site):
                yield self._report(analysis, site, statement, None)
                continue
            peer = _tensor_peer(analysis, site, shown)
            if peer is not None or self._reports_unknown(site, settings, analysis):
                yield self._report(analysis, site, statement, peer)

    def _reports_unknown(self, site: CallFact, settings: Settings, analysis: Analysis) -> bool:
        return settings.report_unknown_receivers and _unknown_receiver(analysis, site)

    def _report(self, analysis: Analysis, site: CallFact, statement: cst.Expr | None, peer: CallFact | None) -> Finding:
        """The call is quoted once: in the assignment to write, when the receiver has a name."""
        chained = statement is None
        # A peer's message says why the receiver is likely a tensor instead of what modules do.
        in_place = "" if peer is not None else " (only nn.Module.to() moves in place)"
        if isinstance(site.receiver, (cst.Name, cst.Attribute)):
            call, subject = f".{site.method}()", f"a tensor's .{site.method}()"
            assignment = f"`{quoted(analysis, site.receiver, 20)} = {quoted(analysis, site.node, 32)}`"
            advice = f"first write {assignment}" if chained else f"assign it: {assignment}"
            if isinstance(site.receiver, cst.Attribute) and is_registered_parameter(site.receiver_value):
                # A registered parameter takes no plain tensor (TypeError): the module moves it in place.
                in_place, advice = "", "it is a registered nn.Parameter: move the module instead (`module.to(...)`)"
        else:
            call = subject = f"`{quoted(analysis, site.node)}`"
            advice = "assign it to a name first" if chained else "assign it to a name and use that"
        if chained:
            problem = f"the in-place call after {call} changes a new tensor that is then lost{in_place}"
        else:
            problem = f"{subject} returns a new tensor, here discarded{in_place}"
        if _shown_a_tensor(site):
            # Sure where the code shows the tensor is not there yet; where it may be already (made
            # on a device on one branch), losing the copy matters only on the other paths.
            confidence = (
                Confidence.MEDIUM if may_already_be_there(site.receiver_value, site.result) else Confidence.HIGH
            )
        elif peer is not None:  # moved the same way as a tensor: likely one, never sure
            confidence = Confidence.MEDIUM
            like = f"`{quoted(analysis, peer.receiver or peer.node, 20)}` (line {analysis.line_of(peer.node)})"
            problem = f"`{quoted(analysis, site.receiver or site.node, 20)}` is moved like the tensor {like}: {problem}"
        else:  # a receiver the code does not show is a tensor (--report-unknown-receivers): a guess
            confidence = Confidence.LOW
        return self.finding(site.node, f"{problem}; {advice}", _assign_back(site, statement), confidence)


def _lost_conversions(analysis: Analysis) -> Iterator[tuple[CallFact, cst.Expr | None]]:
    """Each conversion whose result a statement loses, with the statement when the conversion is
    the whole statement (``None`` for a chain that mutates the copy)."""
    for site in analysis.calls():
        if site.statement is None:
            continue
        conversion = lost_conversion(site.node)
        converted = analysis.call_at(conversion) if conversion is not None else None
        if converted is None or _made_from_nothing(analysis, converted.receiver):
            continue
        if not fits_tensor_move(converted.node, converted.method or ""):  # another class's method
            continue
        if _casts_an_update(analysis, converted) or _already_there(analysis, converted):
            continue
        if conversion is site.node and analysis.displayed_by_a_notebook(site.statement):
            continue  # ``y_preds.cpu()`` ending a cell: Jupyter shows the copy
        if conversion is site.node and _moved_again_at_once(analysis, converted, site.statement):
            continue
        yield converted, (site.statement if conversion is site.node else None)


def _moved_again_at_once(analysis: Analysis, site: CallFact, statement: cst.Expr) -> bool:
    """``adp.to(device)``, then ``adp = adp.cpu().numpy()``: the next statement of the block that
    mentions the name moves it again first thing and keeps what that makes, so the lost move
    changed nothing."""
    if type(site.receiver) is not cst.Name or not _only_a_move(analysis, site):
        return False  # a dropped cast (``x.to(torch.half)``) is lost whatever moves next
    name = site.receiver.value
    function = site.scope.function
    path = path_to(function.node if function is not None else analysis.module, statement) or []
    line, block = (path[-2], path[-3]) if len(path) >= 3 else (None, None)
    if type(line) is not cst.SimpleStatementLine or not isinstance(block, (cst.Module, cst.IndentedBlock)):
        return False  # ``if c: x.to(d)`` on one line
    at = next(index for index, part in enumerate(block.body) if part is line)
    mine = next(index for index, small in enumerate(line.body) if small is statement)
    following: list[cst.CSTNode] = [*line.body[mine + 1 :]]
    for after in block.body[at + 1 :]:
        following.extend(after.body if type(after) is cst.SimpleStatementLine else [after])
    for later in following:
        if any(type(node) is cst.Name and node.value == name for node in every_node(later)):
            return isinstance(later, cst.Assign) and _moves_first(analysis, later, name)
    return False


def _moves_first(analysis: Analysis, assignment: cst.Assign, name: str) -> bool:
    """``name = name.cpu().numpy()``: rebinds ``name`` to a chain whose first call only moves it
    (``.to(torch.half)`` keeps the lost move's loss)."""
    if not any(name in _names_bound(target.target) for target in assignment.targets):
        return False
    first_call, value = None, assignment.value
    while type(value) is cst.Call and type(value.func) is cst.Attribute:
        first_call, value = value, value.func.value
    again = analysis.call_at(first_call)
    return again is not None and type(value) is cst.Name and value.value == name and _only_a_move(analysis, again)


def _only_a_move(analysis: Analysis, site: CallFact) -> bool:
    """``.cpu()``, ``.cuda()``, or a ``.to()`` that names a device and nothing else."""
    if site.method in ("cpu", "cuda"):
        return True
    target = positional_argument(site.node, 0) or keyword_argument(site.node, "device")
    return site.method == "to" and target is not None and _only_moves(analysis, site)


def _already_there(analysis: Analysis, site: CallFact) -> bool:
    """A move to where the tensor already is, and nothing else: ``self.inv_freq.to(x.device)`` in
    ``forward()`` (a registered buffer is where its module is, and so is the module's input).
    Dropping its result loses nothing."""
    before, after = site.receiver_value, site.result
    placed = must_be_on_cpu(before) or must_be_on_accelerator(before)
    if placed and same_places(before, after) and _only_moves(analysis, site):
        return True
    made_on = _made_on_that_device(analysis, site)
    return made_on is not None and _only_moves(analysis, site, made_on)


def _made_on_that_device(analysis: Analysis, site: CallFact) -> cst.BaseExpression | None:
    """``noise = torch.randn(n, device=model.device)``, then ``noise.to(model.device)``: the
    argument of the move that names, in the very words, the device the tensor was made on
    (wherever that is): on every path (one place, no join), in the same function, and with the
    name never bound again there (a loop's or an assignment's target names another device)."""
    made = analysis.call_at(analysis.origin_node(site.receiver_value))
    target = positional_argument(site.node, 0) or keyword_argument(site.node, "device")
    if made is None or target is None or site.method != "to" or made.scope.function is not site.scope.function:
        return None
    device = keyword_argument(made.node, "device")
    named = dotted_name(device) if device is not None else None
    one_place = place_unknown(site.receiver_value) or same_places(site.receiver_value, site.receiver_value)
    if named is None or named != dotted_name(target) or not one_place:
        return None
    return None if _rebinds(site.scope.function.node if site.scope.function else analysis.module, named) else target


def _rebinds(scope: cst.CSTNode, name: str) -> bool:
    """Does the scope assign ``name`` (``device = ...``, ``for device in ...``, ``self.device = ...``)?"""
    for node in own_nodes(scope):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [target.target for target in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            targets = [node.target]
        if any(name in _names_bound(target) for target in targets):
            return True
    return False


def _names_bound(target: cst.CSTNode) -> set[str]:
    """The names an assignment target binds: itself, or those in a tuple or list it unpacks."""
    name = dotted_name(target) if isinstance(target, cst.BaseExpression) else None
    return {name} if name is not None else {bound for child in children(target) for bound in _names_bound(child)}


def _only_moves(analysis: Analysis, site: CallFact, device: cst.BaseExpression | None = None) -> bool:
    """``.cpu()``, ``.cuda()``, ``.to(device, non_blocking=True)``: no dtype, no other tensor
    (``device``: an argument known to name a device)."""
    if site.method != "to":
        return True
    for arg in site.node.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if arg.star or keyword not in (None, "device", "non_blocking", "copy", "memory_format"):
            return False
        if keyword in (None, "device") and arg.value is not device and not is_device(analysis.value_of(arg.value)):
            return False
    return True


def _shown_a_tensor(site: CallFact) -> bool:
    """NumPy arrays have no ``.to()``: an array-like receiver here is a tensor."""
    return is_tensor(site.receiver_value) or is_array(site.receiver_value)


def _unknown_receiver(analysis: Analysis, site: CallFact) -> bool:
    """A receiver of unknown kind that may be a tensor: not ``self`` (a module's own method) nor
    an object unpacked with ``**`` (a ``BatchEncoding``, whose ``.to()`` works in place)."""
    if not is_unknown(site.receiver_value) or site.receiver is None:
        return False
    name = dotted_name(site.receiver)
    function = site.scope.function
    return name is not None and not analysis.unpacked_as_mapping(function, name) and name.split(".", 1)[0] != "self"


def _tensor_peer(analysis: Analysis, site: CallFact, shown: list[tuple[CallFact, cst.Expr | None]]) -> CallFact | None:
    """A shown tensor that the same scope moves the same way as this unknown receiver
    (``x1.to(self.device)`` then ``vx1.to(self.device)``): code that moves a batch element by
    element treats its elements alike, so the unknown one is likely a tensor too."""
    if not _unknown_receiver(analysis, site):
        return None
    arguments = _arguments_text(analysis, site)
    return next(
        (
            peer
            for peer, _ in shown
            if peer.scope.function is site.scope.function
            and peer.method == site.method
            and _arguments_text(analysis, peer) == arguments
        ),
        None,
    )


def _arguments_text(analysis: Analysis, site: CallFact) -> str:
    return ", ".join(source_text(analysis, arg) for arg in site.node.args)
