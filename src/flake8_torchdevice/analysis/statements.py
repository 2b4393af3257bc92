"""Statements: how each one changes the flow state (part of the interpreter).

Branches are walked on copies of the state, narrowed by their test, and joined where they
meet; a branch that leaves (``return``, ``raise``, ``continue``, ``pytest.skip()``) ends
unreachable and drops out of the join, so ``if not torch.cuda.is_available(): return``
guards what follows without a special case. Loops run to a fixpoint (``loops``); ``try``
handlers start from the join of the states along the body.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..knowledge.api import GRAD_DISABLING_CONTEXTS, GRAD_SWITCHES, MOVE_METHODS, PARAMETER_CLASSES
from .conditions import is_exit_call
from .domain import (
    CPU_PLACE,
    NONE,
    TENSOR_KINDS,
    UNKNOWN,
    UNKNOWN_PLACE,
    Kind,
    Origin,
    Value,
    may_be_on_accelerator,
    tensor,
)
from .facts import DefaultFact, OperationFact
from .frames import Pending
from .imports import dotted_name
from .literals import bool_value, constant_truth
from .loops import LoopWalker
from .polarity import Polarity
from .state import State, mark_cpu_branches, refuted_by_a_value, unreachable
from .syntax import all_params, bound_names, children, opens_a_file, statements

if TYPE_CHECKING:
    from .parts import InterpreterParts as _Base
else:
    _Base = object

_BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException", "RuntimeError", "AssertionError", "AttributeError"})


class StatementWalker(LoopWalker, _Base):
    def block(self, body: Sequence[cst.CSTNode]) -> None:
        for statement in body:
            if not self.state.reachable:
                return
            self.statement(statement)

    def statement(self, node: cst.CSTNode) -> None:
        self.step()
        if type(node) is cst.SimpleStatementLine:
            for small in node.body:
                if self.state.reachable:
                    self.small_statement(small)
            return
        handler = _COMPOUND.get(type(node))
        if handler is not None:
            handler(self, node)
        else:
            self.evaluate_children(node)

    def suite(self, suite: cst.BaseSuite, entry: State) -> State:
        """Walk a block from ``entry``; the state where it ends."""
        self.state = entry
        self.block(statements(suite))
        return self.state

    # ------------------------------------------------------------- compound statements
    def _if(self, node: cst.If) -> None:
        self.evaluate(node.test)
        before = self.state
        body_entry = unreachable() if refuted_by_a_value(before, node.test, True) else before
        after_body = self.suite(node.body, self.narrow(body_entry, node.test, True).copy())
        otherwise = unreachable() if refuted_by_a_value(before, node.test, False) else before
        otherwise = self.narrow(otherwise, node.test, False).copy()
        if node.orelse is None:
            after_else = otherwise
        elif type(node.orelse) is cst.If:
            self.state = otherwise
            self._if(node.orelse)
            after_else = self.state
        else:
            after_else = self.suite(node.orelse.body, otherwise)
        self.state = after_body.join(after_else)
        mark_cpu_branches(self.state, before, (after_body, after_else))

    def _with(self, node: cst.With) -> None:
        before_grad, before_places = self.state.grad_enabled, self.state.default_places
        for item in node.items:
            context = self.evaluate(item.item)
            call = item.item if type(item.item) is cst.Call else None
            qualified = self.imports.qualify(call.func) if call is not None else None
            if call is not None and _disables_grad(call, qualified):
                self.state.grad_enabled = False
            elif qualified == "torch.device":  # factories allocate on that device inside
                self.state.default_places = context.places
            if item.asname is not None:  # ``with open(p) as f``: ``f`` remembers the call that opened it
                opened = call is not None and qualified is None and opens_a_file(call)
                self.bind_target(item.asname.name, context if opened else UNKNOWN)
        self.block(statements(node.body))
        if self.state.reachable:
            self.state.grad_enabled, self.state.default_places = before_grad, before_places

    def _try(self, node: cst.Try | cst.TryStar) -> None:
        before = self.state
        guarded = any(_catches_device_errors(handler) for handler in node.handlers)
        self.state = before.copy()
        self.state.cuda_checked = before.cuda_checked or guarded  # the handler catches the failure
        handler_entry = before
        for statement in statements(node.body):
            if not self.state.reachable:
                break
            self.statement(statement)
            handler_entry = handler_entry.join(self.state)
        body_exit = self.state
        if body_exit.reachable:
            body_exit.cuda_checked = before.cuda_checked and body_exit.cuda_checked
        if node.orelse is not None and body_exit.reachable:
            body_exit = self.suite(node.orelse.body, body_exit)
        outcomes = [body_exit]
        for handler in node.handlers:
            entry = handler_entry.copy()
            entry.cuda_checked = before.cuda_checked
            self.state = entry
            if handler.type is not None:
                self.evaluate(handler.type)
            if handler.name is not None:
                self.bind_target(handler.name.name, UNKNOWN)
            outcomes.append(self.suite(handler.body, self.state))
        joined = unreachable()
        for outcome in outcomes:
            joined = joined.join(outcome)
        if node.finalbody is not None:
            finally_entry = joined if joined.reachable else handler_entry.copy()
            after = self.suite(node.finalbody.body, finally_entry)
            joined = after if joined.reachable else unreachable()
        self.state = joined

    def _match(self, node: cst.Match) -> None:
        self.evaluate(node.subject)
        before = self.state
        joined = before.copy()  # no case matched
        for case in node.cases:
            self.state = before.copy()
            for name in _pattern_names(case.pattern):
                self.state.bind(name, UNKNOWN)
            if case.guard is not None:
                self.evaluate(case.guard)
                self.state = self.narrow(self.state, case.guard, True).copy()
            joined = joined.join(self.suite(case.body, self.state))
        self.state = joined

    def _function_def(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            self.evaluate(decorator.decorator)
        info = self.definitions.function(node)
        scope, checked = self.frame.scope, self.state.cuda_checked
        # A CUDA-only function's defaults (``device=torch.device("cuda", 0)``) are CUDA's to choose.
        self.state.cuda_checked = checked or self.cuda_specific(info)
        for param in all_params(node.params):
            if param.default is not None:
                self.default_values[id(param)] = self.evaluate(param.default)
                if self.recording:
                    self.facts.defaults[id(param)] = DefaultFact(param, info, self.state.cuda_checked, scope)
        self.state.cuda_checked = checked
        # A function of the module starts from the module's final state; a nested one from here.
        entry = None if self.frame.function is None else self.state.copy()
        if self.recording:
            self.pending.append(Pending(info, entry))
        self.state.bind(info.name, UNKNOWN)

    def _class_def(self, node: cst.ClassDef) -> None:
        for decorator in node.decorators:
            self.evaluate(decorator.decorator)
        for base in node.bases:
            self.evaluate(base.value)
        outer = self.state
        self.state = outer.copy()
        self.state.cuda_checked = outer.cuda_checked
        for statement in statements(node.body):
            if self.state.reachable:
                self.statement(statement)
        self.state = outer
        self.state.bind(node.name.value, UNKNOWN)

    # ------------------------------------------------------------- small statements
    def small_statement(self, node: cst.BaseSmallStatement) -> None:
        if type(node) is cst.Expr:
            self.expression_statement = node
            self.evaluate(node.value)
            self.expression_statement = None
            if is_exit_call(node):
                self.state = unreachable()
            elif type(node.value) is cst.Call and self.imports.qualify(node.value.func) in GRAD_SWITCHES:
                switched = _switched_to(node.value)  # ``torch.set_grad_enabled(False)`` from here on
                if switched is not None:
                    self.state.grad_enabled = switched
        elif type(node) is cst.Assign:
            moved = _moved_in_place_of(node)
            before = self.state.get(moved) if moved is not None else None
            value = self.bound_value(node.value, self.evaluate(node.value))
            for target in node.targets:
                self.bind_target(target.target, value)
            if moved is not None and before is not None:
                self._leave_behind(moved, before, node)
            if any(dotted_name(t.target) == "pytestmark" for t in node.targets) and self._mentions_guard(node.value):
                self.state.cuda_checked = True  # the whole module is skipped without CUDA
        elif type(node) is cst.AnnAssign:
            self.evaluate_children(node.annotation)
            if node.value is not None:
                value = self.evaluate(node.value)
                kind = self.annotation_kind(node.annotation.annotation)
                if kind is Kind.TENSOR or (kind is Kind.SCALAR and value.kind is Kind.UNKNOWN):
                    value = value.with_kind(kind)  # ``self.beta: float = beta``: a Python number
                self.bind_target(node.target, self.bound_value(node.value, value))
        elif type(node) is cst.AugAssign:
            self._augmented(node)
        elif type(node) is cst.Return:
            self.frame.returns.append(self.evaluate(node.value) if node.value is not None else NONE)
            self.frame.exits.append(self.state)
            self.state = unreachable()
        elif type(node) is cst.Raise:
            self.evaluate_children(node)
            self.state = unreachable()
        elif type(node) is cst.Continue:
            if self.frame.continues:
                self.frame.continues[-1].append(self.state)
            self.state = unreachable()
        elif type(node) is cst.Break:
            if self.frame.breaks:
                self.frame.breaks[-1].append(self.state)
            self.state = unreachable()
        elif type(node) is cst.Assert:
            self.evaluate(node.test)
            if node.msg is not None:
                self.evaluate(node.msg)
            # ``assert False, "not implemented"`` stops every run, as a ``raise`` does.
            failing = constant_truth(node.test) is False
            self.state = unreachable() if failing else self.narrow(self.state, node.test, True).copy()
        elif type(node) is cst.Import or type(node) is cst.ImportFrom:
            self.imports.record(node, self.definitions.top_level_names() if self.frame.function else frozenset())
        elif type(node) is cst.Del:
            for name in bound_names(node.target):
                self.state.forget(name)
        else:
            self.evaluate_children(node)

    def bound_value(self, node: cst.BaseExpression, value: Value) -> Value:
        """A value about to be bound: a CUDA check becomes a guard variable."""
        if value.kind is not Kind.SCALAR and value.kind is not Kind.UNKNOWN:
            return value  # a tensor in a variable named ``gpu`` is no check
        polarity = self.conditions.bound_polarity(node, self.state)
        if polarity is Polarity.NONE or value.polarity is polarity:
            return value  # a flag keeps its origin: the default that chose CUDA (``use_gpu=True``)
        return Value(kind=Kind.SCALAR, polarity=polarity, truth=value.truth)

    def _augmented(self, node: cst.AugAssign) -> None:
        target = self.evaluate(node.target)
        operand = self.evaluate(node.value)
        if self.recording:
            self.facts.operations[id(node)] = OperationFact(
                node, target, operand, True, self.state.cuda_refused, self.frame.scope
            )
        if target.kind is Kind.TENSOR:  # in place: the tensor keeps its place and its grad flag
            updated = target
        else:
            updated = self.arithmetic(target, operand)
        if type(node.target) is not cst.Subscript:
            self.bind_target(node.target, updated)

    def _mentions_guard(self, node: cst.CSTNode) -> bool:
        return self.conditions.mentions_guard(node, self.state)

    # ------------------------------------------------------------------- binding
    def bind_target(self, target: cst.BaseExpression, value: Value) -> None:
        if type(target) is cst.Name or type(target) is cst.Attribute:
            name = dotted_name(target)
            if name is not None:
                if value.kind is Kind.UNKNOWN and type(target) is cst.Name:
                    value = self._shown_by_use(name, value)
                self.state.bind(name, self._owned(name, value))
            elif type(target) is cst.Attribute:  # ``f().x = v`` (a name always has a dotted name)
                self.evaluate(target.value)
        elif type(target) is cst.Tuple or type(target) is cst.List:
            self._unpack(target.elements, value)
        elif type(target) is cst.StarredElement:
            self.bind_target(target.value, Value(kind=Kind.SEQUENCE, item=value.element()))
        elif type(target) is cst.Subscript:
            self.store(target, value)
        else:
            self.evaluate(target)

    def _leave_behind(self, moved: str, before: Value, node: cst.Assign) -> None:
        """``x = x.to(device)`` rebinds ``x``; a name that still holds the value from before
        (``original = x`` earlier) keeps the unmoved tensor. Where the code does not show where that
        was, the move says it was not on the device: taken to be on the CPU, as a guess."""
        if before is UNKNOWN or before.kind not in _MAY_BE_LEFT_BEHIND or UNKNOWN_PLACE not in before.places:
            return  # the shared unknown value is no alias: many names hold it without sharing a tensor
        left = before.placed(
            frozenset({replace(CPU_PLACE, guessed=True)}), Origin(node, f"the `{moved}` from before its move")
        )
        if left.kind is Kind.ARRAYLIKE:  # NumPy arrays have no ``.to()``: the move shows a tensor
            left = left.with_kind(Kind.TENSOR)
        aliases = [name for name, value in self.state.visible().items() if value is before and name != moved]
        for name in aliases:
            if "." not in name:  # an attribute path is not a name the code rebinds here
                self.state.bind(name, left)

    def _shown_by_use(self, name: str, value: Value) -> Value:
        """An unknown value bound to a name the scope uses as a tensor (or a module) is one."""
        function = self.frame.function
        evidence = function.evidence if function is not None else self.definitions.module_evidence
        kind = evidence.kind_of(name)
        return value.with_kind(kind) if kind is Kind.TENSOR or kind is Kind.MODULE else value

    def _owned(self, name: str, value: Value) -> Value:
        """``self.layer = nn.Linear(...)`` in a module: submodules and parameters move with it."""
        owner, function = self.frame.self_value, self.frame.function
        if owner is None or owner.kind is not Kind.MODULE or function is None or function.self_name is None:
            return value
        if not name.startswith(function.self_name + ".") or name.count(".") != 1:
            return value
        if value.kind is not Kind.MODULE and not (value.kind is Kind.TENSOR and value.cls in PARAMETER_CLASSES):
            return value
        # ``nn.Parameter(torch.zeros(1, device=device))``: made on the device, it stays there until
        # the module's own ``.to()`` moves it (semantics/holds_parameter_made_on_the_device_stays_there.py).
        return value if may_be_on_accelerator(value, through_modules=False) else value.placed(owner.places)

    def _unpack(self, elements: Sequence[cst.BaseElement], value: Value) -> None:
        starred = any(type(element) is cst.StarredElement for element in elements)
        for index, element in enumerate(elements):
            position = None if starred else index
            self.bind_target(element.value, self.unpacked(value, position))

    def unpacked(self, value: Value, position: int | None) -> Value:
        """What one target of ``a, b = value`` receives."""
        kind = value.kind
        if kind is Kind.BATCH:
            return tensor(value.places, value.origin)
        if kind is Kind.OUTPUT or kind is Kind.TENSOR:
            return Value(kind=kind, places=value.places, grad=value.grad, origin=value.origin)
        return value.element(position)


# What a move may leave behind: a module moves in place, so a name holding it moves too.
_MAY_BE_LEFT_BEHIND = TENSOR_KINDS | {Kind.UNKNOWN, Kind.ARRAYLIKE}


def _moved_in_place_of(node: cst.Assign) -> str | None:
    """``x = x.to(device)`` / ``x = x.cuda()``: the name a move is assigned back to."""
    call = node.value
    if len(node.targets) != 1 or type(call) is not cst.Call or type(call.func) is not cst.Attribute:
        return None
    target, receiver = node.targets[0].target, call.func.value
    if call.func.attr.value not in MOVE_METHODS or type(target) is not cst.Name or type(receiver) is not cst.Name:
        return None
    return target.value if target.value == receiver.value else None


def _enables(call: cst.Call) -> bool:
    """``torch.inference_mode(False)`` / ``mode=False`` does not disable grad."""
    return any(type(arg.value) is cst.Name and arg.value.value == "False" for arg in call.args)


def _disables_grad(call: cst.Call, qualified: str | None) -> bool:
    """``with torch.no_grad():``, ``torch.inference_mode()``, ``torch.set_grad_enabled(False)``."""
    if qualified in GRAD_DISABLING_CONTEXTS:
        return not _enables(call)
    return qualified in GRAD_SWITCHES and _switched_to(call) is False


def _switched_to(call: cst.Call) -> bool | None:
    """``torch.set_grad_enabled(False)``: the literal mode it sets, if written out."""
    return bool_value(call.args[0].value) if call.args else None


def _catches_device_errors(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    if handler.type is None:
        return True
    caught = handler.type.elements if type(handler.type) is cst.Tuple else [handler.type]
    for element in caught:
        node = element.value if type(element) is cst.Element else element
        name = dotted_name(node)
        if name is not None and name.rsplit(".", 1)[-1] in _BROAD_EXCEPTIONS:
            return True
    return False


def _pattern_names(pattern: cst.MatchPattern) -> list[str]:
    names = []
    stack: list[cst.CSTNode] = [pattern]
    while stack:
        node = stack.pop()
        if (type(node) is cst.MatchAs and node.name is not None) or (
            type(node) is cst.MatchStar and node.name is not None
        ):
            names.append(node.name.value)
        stack.extend(children(node))
    return names


# Each handler takes the node type it is filed under.
_COMPOUND: dict[type[cst.CSTNode], Callable[[StatementWalker, Any], None]] = {
    cst.If: StatementWalker._if,
    cst.With: StatementWalker._with,
    cst.Try: StatementWalker._try,
    cst.TryStar: StatementWalker._try,
    cst.Match: StatementWalker._match,
    cst.FunctionDef: StatementWalker._function_def,
    cst.ClassDef: StatementWalker._class_def,
    cst.For: LoopWalker.for_loop,
    cst.While: LoopWalker.while_loop,
}
