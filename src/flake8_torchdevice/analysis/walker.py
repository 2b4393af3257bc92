"""One pass over the CST that records every fact the rules need.

The walker visits statements in source order, keeping for each scope an
environment from names (``x``, ``self.fc``) to ``Value``s, and a count of the CUDA
guards around the current node. Branches are walked on copies of the environment
and joined afterwards; a branch that always leaves (``return``, ``raise``...) does
not flow into the join. Loops are walked once: a fact seen on the first iteration
is a real fact.

It dispatches on node types itself and reads child fields directly instead of
using libcst's visitor machinery, which rebuilds every node it visits and costs
about as much as the parse; walking the fields costs a tenth of it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import libcst as cst

from . import torch_api
from .arguments import keyword_argument, positional_argument
from .facts import Assignment, CallSite, ModuleAnalysis, Operation, ParameterDefault, Scope
from .guards import GuardClassifier, Polarity, always_leaves, mentions_cuda
from .imports import ImportTable, dotted_name
from .values import (
    BATCH,
    CPU,
    UNKNOWN,
    UNKNOWN_PLACE,
    Kind,
    Place,
    Value,
    is_cpu_literal,
    is_cuda_literal,
    on_device,
    string_value,
)

Env = dict[str, Value]

_SKIPPED_FIELDS = frozenset(
    {"lpar", "rpar", "comma", "semicolon", "header", "footer", "leading_lines", "lines_after_decorators"}
)
_FIELDS_BY_TYPE: dict[type, tuple[str, ...]] = {}


def _child_fields(node_type: type) -> tuple[str, ...]:
    names = _FIELDS_BY_TYPE.get(node_type)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(node_type)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELDS_BY_TYPE[node_type] = names
    return names


@functools.cache
def _is_a(kind: type, base: type) -> bool:
    """``issubclass``, remembered: libcst's node classes are ABCs, and ``isinstance`` on an ABC
    costs several times a plain one; the walk asks it millions of times about a few hundred types.
    """
    return issubclass(kind, base)


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if _is_a(type(value), cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if _is_a(type(item), cst.CSTNode):
                    yield item


def _statements(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    return [cst.SimpleStatementLine(body=suite.body)]


def _bound_names(target: cst.CSTNode) -> Iterator[str]:
    """Names bound by an assignment, ``for`` or comprehension target."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _bound_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _bound_names(target.value)


def _join(left: Env, right: Env) -> Env:
    return {name: value.join(right[name]) for name, value in left.items() if name in right}


class Walker:
    def __init__(self, module: cst.Module, guard_functions: frozenset[str]) -> None:
        self.imports = ImportTable()
        self.analysis = ModuleAnalysis(module=module, imports=self.imports)
        self.env: Env = {}
        self.guard_variables: dict[str, Polarity] = {}
        self.guards = GuardClassifier(self.imports, guard_functions, self.guard_variables.get)
        self.guard_depth = 0
        self.module_classes: set[str] = set()
        self.class_attributes: Env | None = None  # ``self.x`` values of the enclosing Module class
        self.scopes: list[Scope] = [Scope()]
        self.default_place: Place = CPU  # where a factory without ``device=`` allocates
        self.expression_statement: cst.Expr | None = None  # the expression statement being walked
        self.grad_enabled = True  # False inside ``torch.no_grad()`` / ``inference_mode()``
        self.module_self: str | None = None  # ``self`` while walking a method of an nn.Module class

    # ------------------------------------------------------------------ blocks
    def walk(self) -> ModuleAnalysis:
        self.block(self.analysis.module.body)
        return self.analysis

    def block(self, statements: Sequence[cst.CSTNode]) -> bool:
        """Walk statements in order; return True if the block always leaves."""
        extra_guards = 0
        try:
            for statement in statements:
                if self.statement(statement):
                    self.guard_depth += 1
                    extra_guards += 1
            return bool(statements) and always_leaves(statements[-1])
        finally:
            self.guard_depth -= extra_guards

    def statement(self, node: cst.CSTNode) -> bool:
        """Walk one statement; return True if it guards the statements after it."""
        if isinstance(node, cst.SimpleStatementLine):
            return any([self.small_statement(small) for small in node.body])
        handler = getattr(self, "_" + type(node).__name__, None)
        if handler is not None:
            return bool(handler(node))
        self.scan_children(node)
        return False

    @contextmanager
    def guarded(self, active: bool = True) -> Iterator[None]:
        self.guard_depth += int(active)
        try:
            yield
        finally:
            self.guard_depth -= int(active)

    def branch(self, suite: cst.BaseSuite, env: Env, guarded: bool) -> tuple[Env, bool]:
        self.env = dict(env)
        with self.guarded(guarded):
            leaves = self.block(_statements(suite))
        return self.env, leaves

    def join_branches(self, outcomes: list[tuple[Env, bool]]) -> None:
        flowing = [env for env, leaves in outcomes if not leaves] or [env for env, _ in outcomes]
        joined = flowing[0]
        for env in flowing[1:]:
            joined = _join(joined, env)
        self.env = joined

    # ------------------------------------------------------ compound statements
    def _If(self, node: cst.If) -> bool:
        self.value(node.test)
        polarity = self.guards.polarity(node.test)
        before = self.env
        narrowed = dict(before)
        for name in self._tensor_checks(node.test):
            narrowed[name] = dataclasses.replace(narrowed.get(name, UNKNOWN), kind=Kind.TENSOR)
        body = self.branch(node.body, narrowed, polarity is Polarity.POSITIVE)
        orelse_node = node.orelse
        if orelse_node is None:
            orelse = (dict(before), False)
        elif isinstance(orelse_node, cst.If):
            self.env = dict(before)
            with self.guarded(polarity is Polarity.NEGATIVE):
                self._If(orelse_node)
            orelse = (self.env, False)
        else:
            orelse = self.branch(orelse_node.body, before, polarity is Polarity.NEGATIVE)
        self.join_branches([body, orelse])
        # ``if not torch.cuda.is_available(): return`` guards everything after it.
        return polarity is Polarity.NEGATIVE and body[1]

    def _While(self, node: cst.While) -> None:
        self.value(node.test)
        polarity = self.guards.polarity(node.test)
        before = self.env
        body = self.branch(node.body, before, polarity is Polarity.POSITIVE)
        self.join_branches([(dict(before), False), (body[0], False)])
        if node.orelse is not None:
            self.block(_statements(node.orelse.body))

    def _For(self, node: cst.For) -> None:
        iterated = self.value(node.iter)
        before = self.env
        inner = dict(before)
        self.bind_loop_target(node.target, node.iter, iterated, inner)
        body = self.branch(node.body, inner, False)
        self.join_branches([(dict(before), False), (body[0], False)])
        if node.orelse is not None:
            self.block(_statements(node.orelse.body))

    def _With(self, node: cst.With) -> None:
        previous_place, previous_grad = self.default_place, self.grad_enabled
        for item in node.items:
            self.value(item.item)
            context = self.imports.qualify(item.item.func) if isinstance(item.item, cst.Call) else None
            if context == "torch.device":
                # ``with torch.device(d):`` makes factories allocate on ``d``.
                self.default_place = UNKNOWN_PLACE
            elif context in torch_api.GRAD_DISABLING_CONTEXTS:
                self.grad_enabled = False
            if item.asname is not None:
                for name in _bound_names(item.asname.name):
                    self.env[name] = UNKNOWN
        try:
            self.block(_statements(node.body))
        finally:
            self.default_place, self.grad_enabled = previous_place, previous_grad

    def _Try(self, node: cst.Try) -> None:
        before = self.env
        # A ``try`` whose handlers catch the failure is a guard of its own.
        catches = any(_catches_device_errors(handler) for handler in node.handlers)
        outcomes = [self.branch(node.body, before, catches)]
        for handler in node.handlers:
            if handler.type is not None:
                self.value(handler.type)
            outcomes.append(self.branch(handler.body, before, False))
        if node.orelse is not None:
            self.env = outcomes[0][0]
            outcomes[0] = (self.env, self.block(_statements(node.orelse.body)))
        self.join_branches(outcomes)
        if node.finalbody is not None:
            self.block(_statements(node.finalbody.body))

    _TryStar = _Try

    def _Match(self, node: cst.Match) -> None:
        self.value(node.subject)
        before = self.env
        outcomes = [(dict(before), False)]
        for case in node.cases:
            self.env = dict(before)
            self.scan(case.pattern)
            if case.guard is not None:
                self.value(case.guard)
            outcomes.append(self.branch(case.body, self.env, False))
        self.join_branches(outcomes)

    def _FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            self.value(decorator.decorator)
        cuda_specific = mentions_cuda(node.name.value) or self._decorated_with_guard(node.decorators)
        scope = Scope()
        for param in _all_params(node.params):
            if param.default is not None:
                self.value(param.default)
                self.analysis.parameter_defaults.append(
                    ParameterDefault(param, param.default, self.guard_depth > 0 or cuda_specific, scope)
                )
            if param.annotation is not None:
                self.scan(param.annotation)
        if node.returns is not None:
            self.scan(node.returns)
        outer_env = self.env
        self.env = dict(outer_env)
        if self.class_attributes is not None:
            self.env.update(self.class_attributes)
        self.scopes.append(scope)
        for param in _all_params(node.params):
            self.env[param.name.value] = self._parameter_value(param)
        outer_self = self.module_self
        self.module_self = None
        if self.class_attributes is not None and node.params.params:
            self.module_self = node.params.params[0].name.value
            self.env[self.module_self] = Value(kind=Kind.MODULE)
        class_attributes, self.class_attributes = self.class_attributes, None
        outer_grad = self.grad_enabled
        self.grad_enabled = not any(self._disables_grad(decorator.decorator) for decorator in node.decorators)
        try:
            with self.guarded(cuda_specific):
                self.block(_statements(node.body))
            if class_attributes is not None:
                for name, value in self.env.items():
                    if name.startswith("self."):
                        class_attributes[name] = value
        finally:
            self.env = outer_env
            self.scopes.pop()
            self.class_attributes, self.grad_enabled = class_attributes, outer_grad
            self.module_self = outer_self

    def _ClassDef(self, node: cst.ClassDef) -> None:
        for decorator in node.decorators:
            self.value(decorator.decorator)
        for base in node.bases:
            self.value(base.value)
        cuda_specific = mentions_cuda(node.name.value) or self._decorated_with_guard(node.decorators)
        is_module = any(self._is_module_base(base.value) for base in node.bases)
        if is_module:
            self.module_classes.add(node.name.value)
        outer_env, outer_attributes = self.env, self.class_attributes
        self.env = dict(outer_env)
        self.class_attributes = {} if is_module else None
        try:
            with self.guarded(cuda_specific):
                self.block(_statements(node.body))
        finally:
            self.env, self.class_attributes = outer_env, outer_attributes

    # --------------------------------------------------------- small statements
    def small_statement(self, node: cst.BaseSmallStatement) -> bool:
        if isinstance(node, cst.Expr):
            self.expression_statement = node
            self.value(node.value)
            self.expression_statement = None
            return False
        if isinstance(node, cst.Assign):
            value = self.value(node.value)
            for target in node.targets:
                self.bind(target.target, node.value, value)
            return self._is_guard_marker(node)
        if isinstance(node, cst.AnnAssign):
            self.scan(node.annotation)
            if node.value is None:
                return False
            value = self.value(node.value)
            if _annotation_is_tensor(node.annotation, self.imports):
                value = dataclasses.replace(value, kind=Kind.TENSOR)
            self.bind(node.target, node.value, value)
            return False
        if isinstance(node, cst.AugAssign):
            self.value(node.target)
            right = self.value(node.value)
            name = dotted_name(node.target)
            if name is not None:
                left = self.env.get(name, UNKNOWN)
                updated = self._arithmetic(left, right)
                if left.kind is Kind.TENSOR:  # in place: the tensor keeps its place and its grad flag
                    updated = dataclasses.replace(updated, place=left.place, requires_grad=left.requires_grad)
                self.env[name] = updated
            return False
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            self.imports.record(node)
            return False
        if isinstance(node, cst.Assert):
            self.value(node.test)
            if node.msg is not None:
                self.value(node.msg)
            return self.guards.polarity(node.test) is Polarity.POSITIVE
        self.scan(node)
        return False

    def _is_guard_marker(self, node: cst.Assign) -> bool:
        """``pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), ...)``"""
        names = [dotted_name(target.target) for target in node.targets]
        return "pytestmark" in names and self.guards.mentions_guard(node.value)

    # ----------------------------------------------------------------- binding
    def bind(self, target: cst.BaseExpression, value_node: cst.BaseExpression, value: Value) -> None:
        name = dotted_name(target)
        if name is not None:
            if self.module_self is not None and name.startswith(self.module_self + "."):
                value = _owned_by_module(value)
            self.env[name] = value
            self.analysis.assignments.append(Assignment(name, value_node, self.guard_depth > 0, self.scopes[-1]))
            if _DEVICE_LIKE_NAME.search(name.rsplit(".", 1)[-1]):
                self._note_placement(value_node)  # ``self.device = device`` passes the device on
            polarity = self.guards.polarity(value_node)
            if polarity is not Polarity.NONE:
                self.guard_variables[name] = polarity
            else:
                self.guard_variables.pop(name, None)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            element_value = _element_of(value)
            for element in target.elements:
                inner = element.value
                self.bind(
                    inner,
                    value_node,
                    element_value if not isinstance(element, cst.StarredElement) else UNKNOWN,
                )
            return
        if isinstance(target, cst.StarredElement):
            self.bind(target.value, value_node, UNKNOWN)
            return
        self.value(target)

    def bind_loop_target(
        self, target: cst.BaseExpression, iterated_node: cst.BaseExpression, iterated: Value, env: Env
    ) -> None:
        loader_arg = self._wrapped_loader(iterated_node)
        if loader_arg is not None and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
            # ``for i, (x, y) in enumerate(loader)``: the second element is the batch.
            index, item = target.elements
            for name in _bound_names(index.value):
                env[name] = UNKNOWN
            self._bind_batch(item.value, env)
            return
        if iterated.kind is Kind.LOADER:
            self._bind_batch(target, env)
            return
        for name in _bound_names(target):
            env[name] = UNKNOWN

    def _bind_batch(self, target: cst.BaseExpression, env: Env) -> None:
        """A DataLoader item: a collection of CPU tensors, or the tensors it unpacks to."""
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                for name in _bound_names(element.value):
                    env[name] = Value(kind=Kind.TENSOR, place=CPU) if isinstance(element.value, cst.Name) else UNKNOWN
        else:
            for name in _bound_names(target):
                env[name] = BATCH

    def _wrapped_loader(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        if isinstance(node, cst.Call) and node.args and dotted_name(node.func) in ("enumerate", "tqdm", "tqdm.tqdm"):
            inner = node.args[0].value
            if self.env.get(dotted_name(inner) or "", UNKNOWN).kind is Kind.LOADER:
                return inner
        return None

    # ------------------------------------------------------------- expressions
    def value(self, node: cst.BaseExpression) -> Value:
        """Evaluate an expression, recording every call inside it."""
        node_type = type(node)  # exact types, as in ``dotted_name``: the walk's hottest test
        if node_type is cst.Name or node_type is cst.Attribute:
            name = dotted_name(node)
            if name is not None:
                known = self.env.get(name)
                if known is not None:
                    return known
            if node_type is cst.Attribute:
                owner = self.value(node.value)
                if owner.kind is Kind.TENSOR and node.attr.value in torch_api.TENSOR_ATTRIBUTES:
                    return dataclasses.replace(owner, requires_grad=False)
                if owner.kind is Kind.MODULE and node.attr.value in torch_api.MODULE_PARAMETERS:
                    return Value(kind=Kind.TENSOR, place=owner.place, requires_grad=True)
            return UNKNOWN
        if node_type is cst.Call:
            return self.call(node)
        if node_type is cst.BinaryOperation:
            left, right = self.value(node.left), self.value(node.right)
            self.analysis.operations.append(Operation(node, left, right))
            return self._arithmetic(left, right)
        if node_type is cst.Subscript:
            owner = self.value(node.value)
            for element in node.slice:
                self.scan(element)
            if owner.kind is Kind.TENSOR:
                return owner
            if owner is BATCH:
                return Value(kind=Kind.TENSOR, place=CPU)
            return UNKNOWN
        if node_type is cst.IfExp:
            self.value(node.test)
            polarity = self.guards.polarity(node.test)
            with self.guarded(polarity is Polarity.POSITIVE):
                body = self.value(node.body)
            with self.guarded(polarity is Polarity.NEGATIVE):
                return body.join(self.value(node.orelse))
        if node_type is cst.SimpleString:
            if "cpu" not in node.value and "cuda" not in node.value:
                return UNKNOWN  # most strings: no need to decode them
            if is_cpu_literal(node):
                return Value(kind=Kind.DEVICE, place=CPU)
            if is_cuda_literal(node):
                return Value(kind=Kind.DEVICE, place=on_device(f'"{string_value(node)}"'))
            return UNKNOWN
        if node_type in _SHADOWING_EXPRESSIONS:
            self._scan_shadowed(node)
            return UNKNOWN
        self.scan(node)
        return UNKNOWN

    def _scan_shadowed(self, node: cst.CSTNode) -> None:
        """Lambdas and comprehensions bind names that hide the enclosing ones."""
        hidden: list[str] = []
        if isinstance(node, cst.Lambda):
            hidden = [param.name.value for param in _all_params(node.params)]
        else:
            comprehension = node.for_in
            while comprehension is not None:
                hidden.extend(_bound_names(comprehension.target))
                comprehension = comprehension.inner_for_in
        saved = {name: self.env.pop(name) for name in hidden if name in self.env}
        try:
            self.scan_children(node)
        finally:
            self.env.update(saved)

    def scan(self, node: cst.CSTNode) -> None:
        """Record the calls inside a node the walker does not model."""
        node_type = type(node)
        if node_type in _MODELLED_EXPRESSIONS:
            self.value(node)
            return
        if _is_a(node_type, cst.BaseStatement):
            self.statement(node)
            return
        if node_type is cst.Arg and node.star == "**":
            name = dotted_name(node.value)
            if name is not None:
                self.scopes[-1].mapping_names.add(name)
        if node_type is cst.StarredDictElement:
            name = dotted_name(node.value)
            if name is not None:
                self.scopes[-1].mapping_names.add(name)
        self.scan_children(node)

    def scan_children(self, node: cst.CSTNode) -> None:
        for child in _children(node):
            self.scan(child)

    def call(self, node: cst.Call) -> Value:
        statement = self.expression_statement
        if statement is not None and statement.value is not node:
            statement = None
        self.expression_statement = None
        func = node.func
        qualified = self.imports.qualify(func)
        method: str | None = None
        receiver: cst.BaseExpression | None = None
        receiver_value = callee = UNKNOWN
        if qualified is None:
            if isinstance(func, cst.Attribute):
                method, receiver = func.attr.value, func.value
                receiver_value = self.value(receiver)
                callee = self.env.get(dotted_name(func) or "", UNKNOWN)  # ``self.encoder(x)``
            elif isinstance(func, cst.Name):
                callee = self.env.get(func.value, UNKNOWN)
            else:
                callee = self.value(func)  # ``nn.L1Loss()(prediction, target)``
        arguments = [self._argument_value(arg) for arg in node.args]
        if qualified == "torch.set_default_device":
            self.default_place = UNKNOWN_PLACE
        for device in _placement_arguments(node, qualified, method):
            self._note_placement(device)
        result = self._call_result(node, qualified, method, receiver, receiver_value, callee, arguments)
        self.analysis.add_call(
            CallSite(
                node=node,
                qualified=qualified,
                method=method,
                receiver=receiver,
                receiver_value=receiver_value,
                value=result,
                guarded=self.guard_depth > 0,
                statement=statement,
                scope=self.scopes[-1],
                argument_values=(*arguments, *self._element_values(node)),
                callee_value=callee,
            )
        )
        return result

    def _note_placement(self, device: cst.BaseExpression) -> None:
        name = dotted_name(device)
        if name is not None:
            for scope in self.scopes:
                scope.placement_names.add(name)

    def _argument_value(self, arg: cst.Arg) -> Value:
        if arg.star == "**":
            self.scan(arg)
            return UNKNOWN
        return self.value(arg.value)

    def _element_values(self, node: cst.Call) -> tuple[Value, ...]:
        """Values of a literal list/tuple argument's elements (``torch.cat([a, b])``), already walked."""
        values = []
        for arg in node.args:
            if isinstance(arg.value, (cst.List, cst.Tuple)):
                for element in arg.value.elements:
                    name = dotted_name(element.value)
                    values.append(self.env.get(name, UNKNOWN) if name is not None else UNKNOWN)
        return tuple(values)

    def _call_result(
        self,
        node: cst.Call,
        qualified: str | None,
        method: str | None,
        receiver: cst.BaseExpression | None,
        receiver_value: Value,
        callee: Value,
        arguments: list[Value],
    ) -> Value:
        if qualified is not None:
            return self._function_result(node, qualified, arguments)
        if callee.kind is Kind.MODULE:  # calling a module runs its forward()
            return self._module_output(callee)
        if method is not None:
            return self._method_result(node, method, receiver, receiver_value)
        callee_name = dotted_name(node.func)
        if callee_name in self.module_classes:
            return Value(kind=Kind.MODULE, place=CPU)
        if callee_name == "DataLoader":
            return Value(kind=Kind.LOADER)
        return UNKNOWN

    def _function_result(self, node: cst.Call, qualified: str, arguments: list[Value]) -> Value:
        if qualified in torch_api.DATA_LOADERS:
            return Value(kind=Kind.LOADER)
        if qualified == "torch.device":
            return Value(
                kind=Kind.DEVICE,
                place=self._device_argument_place(node.args[0].value) if node.args else UNKNOWN_PLACE,
            )
        if qualified in torch_api.PARAMETER_CLASSES:
            data = arguments[0] if arguments else UNKNOWN
            return Value(
                kind=Kind.TENSOR,
                place=data.place,
                requires_grad=qualified != "torch.nn.Buffer",
                scalar=data.scalar,
            )
        if torch_api.is_module_class(qualified):
            return Value(kind=Kind.MODULE, place=CPU)
        if qualified.endswith(".from_pretrained"):
            return self._pretrained(qualified)
        if qualified == "torch.from_numpy":
            return Value(kind=Kind.TENSOR, place=CPU)
        if qualified in torch_api.TENSOR_FACTORIES:
            return Value(
                kind=Kind.TENSOR,
                place=self._factory_place(node),
                requires_grad=_requires_grad(node),
                scalar=qualified in ("torch.tensor", "torch.as_tensor") and _is_number_literal(node),
            )
        if qualified in torch_api.LIKE_FACTORIES:
            like = arguments[0] if arguments else UNKNOWN
            device = keyword_argument(node, "device")
            place = self._device_argument_place(device) if device is not None else like.place
            return Value(kind=Kind.TENSOR, place=place, requires_grad=_requires_grad(node))
        if torch_api.is_tensor_function(qualified):
            places = {value.place for value in arguments if value.kind is Kind.TENSOR}
            place = places.pop() if len(places) == 1 else UNKNOWN_PLACE
            return Value(kind=Kind.TENSOR, place=place, requires_grad=any(v.requires_grad for v in arguments))
        return UNKNOWN

    def _pretrained(self, name: str) -> Value:
        if torch_api.pretrained_kind_is_model(name):
            return Value(kind=Kind.MODULE)
        return UNKNOWN

    def _method_result(
        self, node: cst.Call, method: str, receiver: cst.BaseExpression | None, receiver_value: Value
    ) -> Value:
        kind = receiver_value.kind
        if method in ("to", "cuda", "cpu"):
            place = self._conversion_place(node, method, receiver_value)
            moved = receiver_value.moved_to(place)
            if kind is Kind.MODULE and receiver is not None:
                name = dotted_name(receiver)
                if name is not None:  # ``model.to(device)`` moves the module itself
                    self.env[name] = moved
            return moved
        if method == "from_pretrained":
            return self._pretrained(dotted_name(node.func) or "")
        if kind is Kind.MODULE and method in (
            "eval",
            "train",
            "float",
            "half",
            "double",
            "bfloat16",
            "requires_grad_",
        ):
            return receiver_value
        if kind is Kind.TENSOR and method.endswith("_") and not method.startswith("_"):
            return receiver_value  # in-place methods return the tensor itself
        if kind is Kind.TENSOR and method in torch_api.PLACE_PRESERVING_METHODS:
            return Value(
                kind=Kind.TENSOR,
                place=receiver_value.place,
                requires_grad=receiver_value.requires_grad and method != "detach" and self.grad_enabled,
                scalar=receiver_value.scalar or (method in torch_api.REDUCTIONS and not node.args),
            )
        if method in torch_api.TENSOR_ONLY_METHODS:
            return Value(kind=Kind.TENSOR, place=receiver_value.place)
        if kind is Kind.MODULE and method == "forward":
            return self._module_output(receiver_value)
        return UNKNOWN

    def _module_output(self, module: Value) -> Value:
        """A module moved to a device computes there; one never moved may be parameter-free
        (an activation, a loss) and compute wherever its input is."""
        place = module.place if module.place.is_device else UNKNOWN_PLACE
        return Value(kind=Kind.TENSOR, place=place, requires_grad=self.grad_enabled)

    def _arithmetic(self, left: Value, right: Value) -> Value:
        tensors = [value for value in (left, right) if value.kind is Kind.TENSOR]
        if not tensors:
            return UNKNOWN
        places = {value.place for value in tensors if not value.scalar} or {value.place for value in tensors}
        return Value(
            kind=Kind.TENSOR,
            place=places.pop() if len(places) == 1 else UNKNOWN_PLACE,
            requires_grad=self.grad_enabled and any(value.requires_grad for value in tensors),
            scalar=all(value.scalar for value in tensors),
        )

    # ------------------------------------------------------------------ places
    def _conversion_place(self, node: cst.Call, method: str, receiver_value: Value) -> Place:
        if method == "cpu":
            return CPU
        if method == "cuda":
            return on_device('"cuda"')
        target = keyword_argument(node, "device")
        if target is None and node.args and node.args[0].keyword is None and node.args[0].star == "":
            target = node.args[0].value
        if target is None:  # ``.to(dtype=...)``, ``.to(memory_format=...)``
            return receiver_value.place
        return self._device_argument_place(target, keep=receiver_value.place)

    def _device_argument_place(self, node: cst.BaseExpression, keep: Place = UNKNOWN_PLACE) -> Place:
        """Where ``device=node`` / ``.to(node)`` puts a value."""
        if is_cpu_literal(node):
            return CPU
        literal = string_value(node)
        if literal is not None:
            return on_device(f'"{literal}"')
        qualified = self.imports.qualify(node)
        if qualified in torch_api.DTYPES or (isinstance(node, cst.Attribute) and node.attr.value == "dtype"):
            return keep
        if isinstance(node, cst.Call) and self.imports.qualify(node.func) == "torch.device" and node.args:
            return self._device_argument_place(node.args[0].value)
        if isinstance(node, cst.Attribute) and node.attr.value == "device":
            return self.env.get(dotted_name(node.value) or "", UNKNOWN).place
        name = dotted_name(node)
        if name is None:
            return UNKNOWN_PLACE
        known = self.env.get(name)
        if known is not None and known.kind is Kind.TENSOR:  # ``.to(other)``
            return known.place
        if known is not None and known.kind is Kind.DEVICE and known.place.is_cpu:
            return CPU
        if known is not None and known.kind is Kind.DEVICE:
            return on_device(name)
        if _DEVICE_LIKE_NAME.search(name.rsplit(".", 1)[-1]):
            return on_device(name)
        return UNKNOWN_PLACE  # ``.to(dtype)``, ``.to(other)``: not provably a device

    def _factory_place(self, node: cst.Call) -> Place:
        device = keyword_argument(node, "device")
        if device is None:
            return self.default_place
        return self._device_argument_place(device)

    # ------------------------------------------------------------------ helpers
    def _parameter_value(self, param: cst.Param) -> Value:
        if param.annotation is not None and _annotation_is_tensor(param.annotation.annotation, self.imports):
            return Value(kind=Kind.TENSOR)
        return UNKNOWN

    def _disables_grad(self, decorator: cst.BaseExpression) -> bool:
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        return self.imports.qualify(target) in torch_api.GRAD_DISABLING_CONTEXTS

    def _decorated_with_guard(self, decorators: Sequence[cst.Decorator]) -> bool:
        return any(self.guards.mentions_guard(decorator.decorator) for decorator in decorators)

    def _is_module_base(self, base: cst.BaseExpression) -> bool:
        qualified = self.imports.qualify(base)
        if qualified is not None:
            return qualified in torch_api.MODULE_BASES or torch_api.is_module_class(qualified)
        return dotted_name(base) in self.module_classes

    def _tensor_checks(self, test: cst.BaseExpression) -> Iterator[str]:
        """Names proven to be tensors by ``torch.is_tensor(x)`` / ``isinstance(x, torch.Tensor)``."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            yield from self._tensor_checks(test.left)
            yield from self._tensor_checks(test.right)
            return
        if not isinstance(test, cst.Call) or not test.args:
            return
        subject = dotted_name(test.args[0].value)
        if subject is None:
            return
        if self.imports.qualify(test.func) == "torch.is_tensor" or (
            dotted_name(test.func) == "isinstance"
            and len(test.args) == 2
            and self.imports.qualify(test.args[1].value) in torch_api.TENSOR_TYPES
        ):
            yield subject


# Names that hold a device by convention (``device``, ``dev``, ``gpu_id``, ``local_rank``).
_DEVICE_LIKE_NAME = re.compile(r"dev|cuda|gpu|rank", re.IGNORECASE)

# Expressions that bind names of their own, hiding the enclosing ones.
_SHADOWING_EXPRESSIONS = frozenset({cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
# The expressions ``Walker.value`` models; ``scan`` hands them over.
_MODELLED_EXPRESSIONS = frozenset(
    {cst.Name, cst.Attribute, cst.Call, cst.BinaryOperation, cst.Subscript, cst.IfExp, cst.SimpleString}
    | _SHADOWING_EXPRESSIONS
)


def _element_of(value: Value) -> Value:
    """What unpacking ``value`` binds to each target."""
    if value is BATCH:
        return Value(kind=Kind.TENSOR, place=CPU)
    return UNKNOWN


def _placement_arguments(node: cst.Call, qualified: str | None, method: str | None) -> Iterator[cst.BaseExpression]:
    """The arguments of a call that say where something is placed."""
    if qualified not in torch_api.DEVICE_TYPE_CALLS:
        for name in ("device", "map_location"):
            value = keyword_argument(node, name)
            if value is not None:
                yield value
    if qualified in ("torch.device", "torch.load", "torch.set_default_device") or method in ("to", "cuda"):
        index = 1 if qualified == "torch.load" else 0
        value = positional_argument(node, index)
        if value is not None:
            yield value


def _owned_by_module(value: Value) -> Value:
    """Submodules and parameters stored on a module move with it: where they are is unknown."""
    if value.kind is Kind.MODULE or (value.kind is Kind.TENSOR and value.requires_grad):
        return dataclasses.replace(value, place=UNKNOWN_PLACE)
    return value


def _is_number_literal(node: cst.Call) -> bool:
    """``torch.tensor(2.0)``: one number, a 0-dim tensor."""
    data = node.args[0].value if node.args else None
    if isinstance(data, cst.UnaryOperation):
        data = data.expression
    return isinstance(data, (cst.Integer, cst.Float))


def _requires_grad(node: cst.Call) -> bool:
    flag = keyword_argument(node, "requires_grad")
    return isinstance(flag, cst.Name) and flag.value == "True"


def _annotation_is_tensor(annotation: cst.BaseExpression, imports: ImportTable) -> bool:
    return imports.qualify(annotation) in torch_api.TENSOR_TYPES


def _all_params(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


_BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException", "RuntimeError", "AssertionError", "AttributeError"})


def _catches_device_errors(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    caught = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    for element in caught:
        node = element.value if isinstance(element, cst.Element) else element
        name = dotted_name(node)
        if name is not None and name.rsplit(".", 1)[-1] in _BROAD_EXCEPTIONS:
            return True
    return False


def analyse(module: cst.Module, guard_functions: frozenset[str] = frozenset()) -> ModuleAnalysis:
    """Build the shared analysis of a parsed module in one pass."""
    return Walker(module, guard_functions).walk()
