"""Summaries of the file's own functions and classes, computed on demand and remembered.

A call of a function or method defined in this file is evaluated with the values of its
arguments (call-site return inference, as pyright does for unannotated functions); the result
is memoised per argument values (``memo``: only when it does not depend on the order summaries
were asked in), with caps on depth, on the number of summaries and on the steps one may take,
past which the call is simply unknown. A method called on ``self`` also hands back what it
assigned to ``self`` (a builder called from ``__init__``).

A class has one table of instance attributes: what ``__init__`` leaves on ``self``, joined
with what every other method assigns, over the class and the classes of the file it is
related to by inheritance. For an ``nn.Module``, submodules, parameters and registered buffers
move with the module: the table stores them "where the module is" and a lookup through an
instance places them where that instance is; plain tensor attributes stay where they were made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..knowledge import api
from .calls import PARAMETER
from .conditions import is_exit_call
from .definitions import ClassInfo, FunctionInfo
from .domain import (
    NONE,
    NOWHERE,
    TENSOR_KINDS,
    UNKNOWN,
    Kind,
    Value,
    with_module,
    without_grad,
)
from .frames import Frame
from .imports import dotted_name
from .memo import CallKey, Outcome
from .parameters import SELF
from .state import State
from .syntax import all_params, own_nodes, statements, surely_assigned

if TYPE_CHECKING:
    from .parts import InterpreterParts as _Base
else:
    _Base = object

# Distinct arguments one function is summarised for; past them, one summary with unknown
# arguments answers every other call (a helper called with many different values costs a walk
# per value otherwise, and most of a model file's analysis time went there).
MAX_BINDINGS = 4
# A module's methods that move it: an override that reassigns plain tensor attributes moves them too.
_MOVING_METHODS = ("to", "cuda", "_apply")


class SummaryEvaluator(_Base):
    """The part of the interpreter that summarises the file's functions and classes; what it
    learns is kept in ``summary_memo``, which holds nothing of the interpreter."""

    # ------------------------------------------------------------------ classes
    def is_module_class(self, info: ClassInfo) -> bool:
        """A class of a family (classes related by inheritance, either way) one of which shows
        it is a module: a subclass of a module class is one, and so is a mixin that a module
        class inherits (``class Linear(nn.Module, LoraLayer)``): its methods run on that module,
        and what it stores on ``self`` moves with it. Decided for the whole family at once, so
        the answer does not depend on which class was asked about first."""
        memo = self.summary_memo.module_classes
        known = memo.get(info.key)
        if known is None:
            known = memo[info.key] = any(self._shows_module(cls) for cls in self.definitions.family(info))
        return known

    def _shows_module(self, info: ClassInfo) -> bool:
        for base in info.node.bases:
            qualified = self.imports.qualify(base.value)
            if qualified is not None and (qualified in api.MODULE_BASES or api.is_module_class(qualified)):
                return True
            imported = self.definitions.imported_class(base.value)
            if imported is not None and imported.module:
                return True
        # A ``forward`` method and a base not known to be plain: a module of another library's hierarchy.
        return "forward" in info.methods and any(not self._plain_base(base.value) for base in info.node.bases)

    def _plain_base(self, base: cst.BaseExpression) -> bool:
        """A base that is no module: the project's plain class, torch's ``autograd.Function``,
        ``object``..."""
        imported = self.definitions.imported_class(base)
        if imported is not None:
            return not imported.module
        name = self.imports.qualify(base) or dotted_name(base)
        return name in api.PLAIN_BASES and name not in self.definitions.classes

    def self_value(self, info: FunctionInfo) -> Value | None:
        owner = self.definitions.owner(info)
        if owner is None or info.self_name is None or info.is_classmethod:
            return None  # a class method's ``cls`` is the class: calling it constructs, it runs no forward()
        if self.is_module_class(owner):
            return Value(kind=Kind.MODULE, places=SELF, cls=owner.name)
        return Value(kind=Kind.OBJECT, cls=owner.name)

    def instance_attribute(self, owner: Value, attribute: str) -> Value:
        """``owner.attribute`` for an instance (``self`` included)."""
        info = self.definitions.classes.get(owner.cls or "")
        if info is not None:
            value = self._table(info).get(attribute)
            if value is not None and value.places == SELF:
                return value.placed(owner.places)
            if value is None:
                getter = self._method(owner.cls, attribute)
                if getter is not None and getter.is_property and getter.self_name is not None:
                    return self._summarise(getter, {}, owner)[0]  # ``self.device`` of a property
                if attribute == "device" and owner.kind is Kind.MODULE:  # a base's (HF, audiotools)
                    return _where_its_parameters_are(owner)
            if value is None or value.kind is Kind.UNKNOWN:
                return self._shown_by_methods(info, attribute, value or UNKNOWN)
            return value
        if owner.kind is Kind.MODULE:
            if attribute in ("weight", "bias"):
                # A torch.nn layer's weight and bias are nn.Parameters: ``self.k0 = conv0.weight``
                # registers one on the module that assigns it, so it moves with that module.
                registered = PARAMETER if (owner.cls or "").startswith("torch.nn.") else None
                return Value(kind=Kind.TENSOR, places=owner.places, grad=True, cls=registered, origin=owner.origin)
            if attribute == "device":
                return _where_its_parameters_are(owner)
        return UNKNOWN

    def _shown_by_methods(self, info: ClassInfo, attribute: str, value: Value) -> Value:
        """An attribute the table does not know, but the class's methods use as a module
        (``self.model.eval()``) or a tensor: it is one, wherever it is."""
        kind = self._kind_shown_by_methods(info, attribute)
        if kind is Kind.MODULE and value.places != NOWHERE:
            return Value(kind=Kind.MODULE, places=value.places)
        if kind is Kind.MODULE:
            # A submodule moves with its module; a plain class's model was handed in, and nothing
            # shows where: wherever it is, as for a module parameter (an inferred link).
            submodule = self.is_module_class(info)
            return Value(kind=Kind.MODULE, places=with_module(f"self.{attribute}", guessed=not submodule))
        if kind is Kind.TENSOR:
            return value.with_kind(Kind.TENSOR)
        return value

    def _kind_shown_by_methods(self, info: ClassInfo, attribute: str) -> Kind | None:
        """Module or tensor, as the first method of the class's family that shows either; asked
        for every read of an unknown attribute, so remembered (the evidence never changes)."""
        key = (info.key, attribute)
        if key not in self.summary_memo.shown_kinds:
            self.summary_memo.shown_kinds[key] = None
            family = self.definitions.family(info)
            if any(_misfit(method, attribute) for cls in family for method in cls.methods.values()):
                return None  # a method calls it in a way no tensor's method is called: kinds conflict
            for cls in family:
                for method in cls.methods.values():
                    kind = method.evidence.kind_of(f"{method.self_name}.{attribute}") if method.self_name else None
                    if kind is Kind.MODULE or kind is Kind.TENSOR:
                        self.summary_memo.shown_kinds[key] = kind
                        return kind
        return self.summary_memo.shown_kinds[key]

    def stores_attribute(self, owner: Value, attribute: str) -> bool:
        """Does the class of ``owner`` (a class of this file) assign ``attribute`` on its instances?"""
        definitions = self.definitions
        info = definitions.classes.get(owner.cls or "")
        if info is None:
            return False
        methods = (method for cls in definitions.family(info) for method in cls.methods.values())
        return any(attribute in method.evidence.self_assigned for method in methods)

    def _table(self, info: ClassInfo) -> dict[str, Value]:
        family = self.definitions.family(info)

        def build(table: dict[str, Value]) -> None:
            for cls in family:
                init = cls.methods.get("__init__")
                if init is not None:
                    self._learn_attributes(init, table, None)
            for cls in family:
                for method in cls.methods.values():
                    if method.name != "__init__" and method.evidence.self_assigned:
                        self._learn_attributes(method, table, method.evidence.self_assigned)
            for cls in (cls for cls in family if self.is_module_class(cls)):
                # A module's own ``to()`` moves the tensors it reassigns with the module.
                moving = [cls.methods[name] for name in _MOVING_METHODS if name in cls.methods]
                for attribute in {a for method in moving for a in method.evidence.self_assigned}:
                    value = table.get(attribute)
                    if value is not None and _may_be_a_tensor(value):
                        table[attribute] = value.placed(SELF)

        return self.summary_memo.table(" ".join(sorted(cls.key for cls in family)), build)

    def _learn_attributes(self, info: FunctionInfo, table: dict[str, Value], only: set[str] | None) -> None:
        self_value = self.self_value(info)
        if self_value is None or info.self_name is None or not self.summary_memo.admit(self.simple):
            return
        arguments = self.parameter_values(info)
        _, effects = self.summary_memo.evaluate(None, lambda: self._evaluate(info, arguments, self_value))
        for attribute, value in effects.items():
            if only is None or attribute in only:
                known = table.get(attribute)
                table[attribute] = value if known is None else known.join(value)

    def _method(self, class_name: str | None, method: str) -> FunctionInfo | None:
        """Find ``method`` on a class of this file or its bases of this file."""
        classes = self.definitions.classes
        seen: set[str] = set()
        pending = [class_name] if class_name else []
        while pending:
            name = pending.pop(0)
            info = classes.get(name)
            if info is None or name in seen:
                continue
            seen.add(name)
            if method in info.methods:
                return info.methods[method]
            pending.extend(info.base_names())
        return None

    # ---------------------------------------------------------------- calls
    def method_of(self, receiver: Value, method: str) -> FunctionInfo | None:
        """``receiver.method`` where the receiver is an instance of a class of this file."""
        info = self._method(receiver.cls, method) if receiver.kind in (Kind.MODULE, Kind.OBJECT) else None
        return info if info is not None and info.self_name is not None else None

    def called_back(self, function: FunctionInfo, owner: Value | None, given: Value = UNKNOWN) -> Value:
        """What one of the file's functions returns when a library calls it back with one argument,
        ``given``, the others at their defaults (``owner``: the instance a method is called on): a
        dataset's ``__getitem__`` (an index), a ``collate_fn`` (the list of the dataset's items)."""
        params = [param for param in all_params(function.node.params) if param.name.value != function.self_name]
        bound = {param.name.value: self.default_values.get(id(param), UNKNOWN) for param in params[1:]}
        bound.update({param.name.value: given for param in params[:1]})
        return self._summarise(function, bound, owner)[0]

    def call_method(self, receiver: Value, method: str, node: cst.Call, arguments: tuple[Value, ...]) -> Value | None:
        """The value of ``receiver.method(...)`` when the method is defined in this file."""
        info = self.method_of(receiver, method)
        if info is None:
            return None
        bound = self.bind_arguments(info, node, arguments, skip_self=True)
        if receiver.kind is not Kind.MODULE or receiver.places == SELF:
            # From outside, a module's method sees its inputs and parameters where that instance
            # is, which its walk (the module's own place) does not say.
            self.note_call_site(info, node, bound)
        result, effects = self._summarise(info, bound, receiver)
        self._apply_effects(node, info, effects)
        self._after_a_call_of(info)
        return self._as_the_caller_runs_it(result)

    def _as_the_caller_runs_it(self, result: Value) -> Value:
        """A summary is computed once, with grad enabled; called under ``torch.no_grad()``, what
        the function computes does not require grad."""
        return result if self.state.grad_enabled else without_grad(result)

    def call_named(self, name: str, node: cst.Call, arguments: tuple[Value, ...]) -> Value | None:
        """``f(...)`` of a function of this file, or ``C(...)`` of a class of this file."""
        definitions = self.definitions
        function = definitions.top_functions.get(name)
        if function is not None and self.state.get(name) in (None, UNKNOWN):
            bound = self.bind_arguments(function, node, arguments, skip_self=False)
            self.note_call_site(function, node, bound)
            result = self._summarise(function, bound, None)[0]
            self._after_a_call_of(function)
            return self._as_the_caller_runs_it(result)
        cls = definitions.classes.get(name)
        if cls is not None:
            if self.is_module_class(cls):
                return Value(kind=Kind.MODULE, places=self.state.default_places, cls=cls.name)
            return Value(kind=Kind.OBJECT, cls=cls.name)
        return None

    def _after_a_call_of(self, info: FunctionInfo) -> None:
        """In a function, a call of one that stops without CUDA leaves the state checked. At the
        module's top it marks nothing: each function's walk starts from the module's final state,
        and ``main()`` at the bottom of a script would mark the CUDA used before its check."""
        if self.frame.function is not None and not self.state.cuda_checked:
            self.state.cuda_checked = self.stops_without_cuda(info)

    def stops_without_cuda(self, info: FunctionInfo) -> bool:
        """Does the function return only where CUDA is: one of its own statements, before any that
        may return, is ``assert torch.cuda.is_available()`` or ``if not torch.cuda.is_available():
        raise ...`` (or ``sys.exit(...)``), read as the same check written inline is (``if args.fp16
        and not torch.cuda.is_available(): raise`` stops only fp16 runs)? A generator runs nothing
        when called. Then what follows a call of it runs with CUDA, as after the check itself."""
        if info.evidence.generator:
            return False
        unchecked = State()
        for statement in statements(info.node.body):
            if type(statement) is cst.If and statement.orelse is None and _stops(statement.body):
                if self.narrow(unchecked, statement.test, False).cuda_checked:
                    return True
            elif type(statement) is cst.SimpleStatementLine:
                tests = [small.test for small in statement.body if type(small) is cst.Assert]
                if any(self.narrow(unchecked, test, True).cuda_checked for test in tests):
                    return True
            if any(type(node) is cst.Return for node in own_nodes(statement)):
                return False  # past an early return, a check guards only some calls
        return False

    def super_value(self, frame: Frame) -> Value:
        """``super()`` in a method: the instance, seen from the first base of this file."""
        function = frame.function
        owner = self.definitions.owner(function) if function is not None else None
        if owner is None or frame.self_value is None:
            return UNKNOWN
        classes = self.definitions.classes
        for base in owner.base_names():
            if base in classes:
                return Value(kind=frame.self_value.kind, places=frame.self_value.places, cls=base)
        return UNKNOWN

    def _apply_effects(self, node: cst.Call, method: FunctionInfo, effects: dict[str, Value]) -> None:
        """``self.build()`` in a method: what it assigned to ``self`` is assigned here too, or,
        where it may not have (``if flag: self.loss = loss.cuda()``), joined with what was there."""
        frame = self.frame
        function = frame.function
        if not effects or function is None or function.self_name is None or type(node.func) is not cst.Attribute:
            return
        receiver = node.func.value
        if type(receiver) is cst.Call:  # ``super().__init__()``
            receiver = cst.Name(function.self_name)
        if type(receiver) is cst.Name and receiver.value == function.self_name:
            memo = self.summary_memo.surely_assigned
            if method.key not in memo:  # asked at every self-call; the body never changes
                memo[method.key] = surely_assigned(statements(method.node.body), method.self_name or "")
            surely = memo[method.key]
            for attribute, value in effects.items():
                name = f"{function.self_name}.{attribute}"
                before = self.state.get(name)
                if attribute not in surely:
                    value = _or_as_it_was(value) if before is None else before.join(value)
                self.state.bind(name, value)

    def bind_arguments(
        self, info: FunctionInfo, node: cst.Call, arguments: tuple[Value, ...], skip_self: bool
    ) -> dict[str, Value]:
        params = list(info.node.params.posonly_params) + list(info.node.params.params)
        if skip_self and info.self_name is not None:
            params = params[1:]
        bound: dict[str, Value] = {}
        position = 0
        for arg, value in zip(node.args, arguments):
            if arg.star:
                return {}  # ``f(*args)``: which parameter gets what is not shown
            if arg.keyword is not None:
                bound[arg.keyword.value] = value
            elif position < len(params):
                bound[params[position].name.value] = value
                position += 1
        defaults = self.default_values
        for param in all_params(info.node.params):
            name = param.name.value
            if name not in bound and name != info.self_name:
                bound[name] = defaults.get(id(param), UNKNOWN)
        return bound

    def _summarise(self, info: FunctionInfo, bound: dict[str, Value], self_value: Value | None) -> Outcome:
        memo = self.summary_memo
        key: CallKey = (info.key, self_value, tuple(sorted(bound.items())))
        calls = memo.calls[info.key]
        if key not in calls and len(calls) >= MAX_BINDINGS:
            bound = dict.fromkeys(bound, UNKNOWN)
            key = (info.key, self_value, tuple(sorted(bound.items())))
        known = memo.recall(key)
        if known is not None:
            return known
        if not memo.admit(self.simple):
            return UNKNOWN, {}
        return memo.evaluate(key, lambda: self._evaluate(info, bound, self_value))

    def _evaluate(self, info: FunctionInfo, bound: dict[str, Value], self_value: Value | None) -> Outcome:
        # Every summary sees the globals of the outermost one: the module's state where the call
        # that started them was made (or its final state, once it is walked).
        started = self.summary_globals
        outer = self.summary_globals = self.globals_state() if started is None else started
        try:
            returned, exit_state = self.evaluate_function(info, outer, bound, self_value)
        finally:
            self.summary_globals = started
        effects = {}
        if info.self_name is not None and info.evidence.self_assigned:
            prefix = info.self_name + "."
            for name, value in exit_state.names.items():
                if name.startswith(prefix) and name[len(prefix) :] in info.evidence.self_assigned:
                    effects[name[len(prefix) :]] = value
        if returned is None:  # no ``return value``: None, unless it is a generator
            returned = UNKNOWN if info.evidence.generator or not exit_state.reachable else NONE
        return returned, effects


def _stops(body: cst.BaseSuite) -> bool:
    """A block whose last statement raises or exits the program."""
    last = statements(body)[-1:]
    small = last[0].body[-1:] if last and type(last[0]) is cst.SimpleStatementLine else []
    return bool(small) and (type(small[0]) is cst.Raise or is_exit_call(small[0]))


def _may_be_a_tensor(value: Value) -> bool:
    """A tensor, or a value of unknown kind (a number on one branch, a tensor on the other)."""
    return value.kind in TENSOR_KINDS or value.kind is Kind.UNKNOWN


def _or_as_it_was(value: Value) -> Value:
    """An attribute a method may leave as it was: a module or a tensor still, wherever it is."""
    placed = value.kind is Kind.MODULE or value.kind in TENSOR_KINDS
    return value.placed(value.places | NOWHERE) if placed else value.join(UNKNOWN)


def _misfit(method: FunctionInfo, attribute: str) -> bool:
    return method.self_name is not None and f"{method.self_name}.{attribute}" in method.evidence.misfits


def _where_its_parameters_are(module: Value) -> Value:
    """``model.device`` of a module whose class does not set it: the device of its parameters."""
    return Value(kind=Kind.DEVICE, places=module.places, origin=module.origin)
