"""Expressions: what each one evaluates to in the current state (part of the interpreter).

Names and attribute paths are read from the state (``self.x`` falls back to the class summary);
subscripts, arithmetic and comparisons of tensors are tensors where their operands are; ``and`` /
``or`` / ``x if c else y`` evaluate later operands in the state their test narrowed (a guard on the
left covers a call on the right). What is not modelled has its parts evaluated: no call unseen."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import libcst as cst

from ..knowledge import api
from .annotations import annotation_kind
from .containers import joined_lists, stored_into
from .domain import (
    ARRAY_KINDS,
    BOOLEANS,
    CPU,
    NONE,
    NOWHERE,
    SCALAR,
    TENSOR_KINDS,
    UNKNOWN,
    Kind,
    Origin,
    Value,
    accelerator,
    any_element,
    computed_places,
    join_places,
    mapping,
    sequence,
    tensor,
)
from .facts import LiteralFact, OperationFact, StoreFact
from .imports import dotted_name
from .literals import computed_cuda_device, is_cpu_literal, is_cuda_literal, string_value
from .methods import names_a_device
from .shapes import common_rank, indexed, maybe_shapeless, shapeless
from .syntax import all_params, children, is_a, literal_index, range_stop

if TYPE_CHECKING:
    from .parts import InterpreterParts as _Base
else:
    _Base = object

# Fields of the named tuples torch returns (``torch.max(x, 1)``, ``x.topk(k)``, ``x.sort()``).
_RESULT_FIELDS = frozenset({"values", "indices"})
# ``x.data`` and ``x.grad`` never require grad; ``x.T`` and the other views keep it.
_NO_GRAD_ATTRIBUTES = frozenset({"data", "grad"})
_SIZES = {"shape": sequence(item=SCALAR), "ndim": SCALAR}  # numbers, of a tensor or an ndarray alike


class ExpressionEvaluator(_Base):
    def evaluate(self, node: cst.BaseExpression) -> Value:
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            self.evaluate_children(node)
            return UNKNOWN
        value = handler(self, node)
        if self.recording:
            self.facts.values[id(node)] = value
        return value

    def evaluate_children(self, node: cst.CSTNode) -> None:
        """Evaluate the expressions inside a node the interpreter does not model."""
        for child in children(node):
            child_type = type(child)
            if child_type in _EXPRESSIONS:
                self.evaluate(cast(cst.BaseExpression, child))  # the table holds expression types only
            elif is_a(child_type, cst.BaseStatement):
                self.statement(child)
            else:
                self.evaluate_children(child)

    # ------------------------------------------------------------------ names
    def _name(self, node: cst.Name) -> Value:
        known = self.state.get(node.value)
        if known is not None:
            return known
        if node.value == "None":
            return NONE
        if node.value in ("True", "False"):
            return BOOLEANS[node.value == "True"]
        return UNKNOWN

    def _attribute(self, node: cst.Attribute) -> Value:
        path = dotted_name(node)
        if path is not None:
            known = self.state.get(path)
            if known is not None:
                return known
            if (option := self.option_never_false(node)) is not None:
                return option
            named = node.attr.value.endswith("Tensor") or node.attr.value in api.NUMBER_CONSTANT_NAMES
            if named and (constant := self._named_constant(node)) is not None:
                return constant
        owner = self.evaluate(node.value)
        return self.attribute_of(owner, node.attr.value, node)

    def _named_constant(self, node: cst.Attribute) -> Value | None:
        """A type that names a device (``torch.cuda.FloatTensor``: ``x.type(T)``, ``T(3)``), or ``np.pi``."""
        qualified = self.imports.qualify(node)
        if qualified in api.NUMBER_CONSTANTS:
            return SCALAR
        if qualified in api.LEGACY_CUDA_CONSTRUCTORS:
            if self.recording:
                self.facts.literals[id(node)] = LiteralFact(node, self.state.cuda_checked, self.frame.scope)
            return Value(kind=Kind.DEVICE, places=accelerator(qualified), origin=Origin(node, "a CUDA tensor type"))
        if qualified in api.LEGACY_CPU_CONSTRUCTORS and qualified != "torch.autograd.Variable":
            return Value(kind=Kind.DEVICE, places=CPU)
        return None

    def attribute_of(self, owner: Value, attribute: str, node: cst.CSTNode) -> Value:
        kind = owner.kind
        if attribute in _SIZES and kind is not Kind.MODULE and kind is not Kind.OBJECT:
            return _SIZES[attribute]
        if kind is Kind.SEQUENCE and attribute in _RESULT_FIELDS and owner.elements and len(owner.elements) == 2:
            return owner.elements[attribute == "indices"]  # ``x.max(dim=1).values``: torch's named tuple
        if kind is Kind.TENSOR or kind is Kind.ARRAYLIKE:
            if attribute in api.TENSOR_ATTRIBUTES:
                grad = owner.grad and attribute not in _NO_GRAD_ATTRIBUTES
                scalar = owner.scalar and attribute in _NO_GRAD_ATTRIBUTES  # ``loss.data`` is as 0-dim as ``loss``
                return Value(kind=Kind.TENSOR, places=owner.places, grad=grad, scalar=scalar, origin=owner.origin)
            if attribute == "device":  # where the tensor is: where that is shown, it follows it on every path
                origin = Origin(node, "the device of a value") if owner.places != NOWHERE else owner.origin
                return Value(kind=Kind.DEVICE, places=owner.places, origin=origin)
            if attribute in _RESULT_FIELDS:  # ``x.max(dim=1).values``: the fields of torch's named tuples
                grad = owner.grad and attribute == "values"
                return Value(kind=Kind.TENSOR, places=owner.places, grad=grad, origin=owner.origin)
            return UNKNOWN
        if kind is Kind.OUTPUT:
            if attribute in api.TENSOR_ATTRIBUTES:
                grad = owner.grad and attribute not in _NO_GRAD_ATTRIBUTES
                return Value(kind=Kind.TENSOR, places=owner.places, grad=grad, origin=owner.origin)
            if attribute in api.TENSOR_METADATA:  # ``outputs.dtype``: not part of the output
                return UNKNOWN
            # ``model(x).logits``: part of what the module returned
            return Value(kind=Kind.OUTPUT, places=owner.places, grad=owner.grad, origin=owner.origin)
        if kind is Kind.BATCH:  # ``batch.x`` of a graph batch: a CPU tensor
            return tensor(owner.places, owner.origin)
        if kind is Kind.MAPPING:  # ``encoding.input_ids``
            return owner.keyed(attribute)
        if kind is Kind.MODULE or kind is Kind.OBJECT:
            return self.instance_attribute(owner, attribute)
        if kind is Kind.DEVICE and attribute == "type":  # "cuda" of ``cuda:1``: ``.to()`` moves there too
            return owner
        if attribute == "device" and kind is Kind.UNKNOWN and not names_a_device(dotted_name(node) or ""):
            return Value(kind=Kind.DEVICE, places=NOWHERE, origin=Origin(node, "the device of a value"))
        return UNKNOWN

    # -------------------------------------------------------------- subscripts
    def _subscript(self, node: cst.Subscript) -> Value:
        owner = self.evaluate(node.value)
        index: Value | None = None  # a slice (the last index, where there are several)
        for element in node.slice:
            if type(element.slice) is cst.Index:
                index = self.evaluate(element.slice.value)
            else:
                self.evaluate_children(element)
        single = len(node.slice) == 1
        if self.recording and single and owner.kind in TENSOR_KINDS and index and index.kind in TENSOR_KINDS:
            # ``t[order]``: a tensor indexed by a tensor, which must be on the CPU or where ``t`` is
            self.facts.operations[id(node)] = OperationFact(
                node, owner, index, False, self.state.cuda_refused, self.frame.scope
            )
        value = self.subscripted(owner, node)
        if single and owner.kind in ARRAY_KINDS:  # ``betas[i]`` of a 1-dim tensor: 0-dim
            return indexed(owner, index, value)
        return value

    def subscripted(self, owner: Value, node: cst.Subscript) -> Value:
        kind = owner.kind
        if kind in ARRAY_KINDS:
            return Value(kind=kind, places=owner.places, grad=owner.grad, origin=owner.origin)
        if kind is Kind.BATCH:
            return tensor(owner.places, owner.origin)
        if kind is Kind.MODULE:  # ``self.layers[i]`` of a ModuleList: a submodule, where its owner is
            return Value(kind=Kind.MODULE, places=owner.places, origin=owner.origin)
        index = literal_index(node)
        if kind is Kind.SEQUENCE:
            return owner.element(index if type(index) is int else None)
        if kind is Kind.MAPPING:
            return owner.keyed(index) if type(index) is str else (owner.item or UNKNOWN)
        return UNKNOWN

    def store(self, target: cst.Subscript, value: Value) -> None:
        """``container[index] = value``: a tensor written in place, or a list/dict that grows."""
        container = self.evaluate(target.value)
        for element in target.slice:
            self.evaluate_children(element)
        if self.recording:
            self.facts.stores[id(target)] = StoreFact(target, container, value, self.frame.scope)
        name = dotted_name(target.value)
        every_element = id(target) in self.definitions.every_element_stores
        updated = stored_into(container, literal_index(target), value, every_element)
        if name is not None and updated is not None:
            self.state.bind(name, updated)

    # -------------------------------------------------------------- arithmetic
    def _binary(self, node: cst.BinaryOperation) -> Value:
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        if self.recording:
            self.facts.operations[id(node)] = OperationFact(
                node, left, right, False, self.state.cuda_refused, self.frame.scope
            )
        if computed_cuda_device(node):  # ``"cuda:" + str(rank)``, ``"cuda:%d" % rank``
            return self.hard_coded_device(node)
        if Kind.SEQUENCE in (left.kind, right.kind) and type(node.operator) in (cst.Add, cst.Multiply):
            return joined_lists(left, right, type(node.operator) is cst.Multiply)
        if type(node.operator) is cst.MatrixMultiply:  # ``v @ w`` of 1-dim tensors is 0-dim
            return replace(self.arithmetic(left, right), rank=None)
        return self.arithmetic(left, right)

    def arithmetic(self, left: Value, right: Value) -> Value:
        """``left <op> right``: a tensor where its non-0-dim tensor operands are."""
        tensors = [value for value in (left, right) if value.kind in ARRAY_KINDS]
        if not tensors:
            if left.kind is Kind.SCALAR and right.kind is Kind.SCALAR:
                return SCALAR
            # Unknown operands may be tensors: so may the result; 0-dim of numbers (``width // heads``).
            return Value(places=join_places(left.places, right.places), scalar=shapeless(left) and shapeless(right))
        if all(value.kind is Kind.NDARRAY for value in tensors):
            return Value(kind=Kind.NDARRAY, places=CPU)
        places, origin = computed_places(tensors)
        if all(maybe_shapeless(value) for value in tensors) and Kind.UNKNOWN in (left.kind, right.kind):
            places = join_places(places, NOWHERE)  # ``torch.tensor(2.0) + gamma``: wherever ``gamma`` is
        kind = Kind.TENSOR if any(value.kind in (Kind.TENSOR, Kind.OUTPUT) for value in tensors) else Kind.ARRAYLIKE
        return Value(
            kind=kind,
            places=places,
            grad=self.state.grad_enabled and any(value.grad for value in tensors),
            scalar=all(value.scalar for value in tensors) and all(shapeless(value) for value in (left, right)),
            may_be_scalar=any(value.may_be_scalar for value in tensors)
            and all(maybe_shapeless(value) for value in (left, right)),
            rank=common_rank([left, right]),
            origin=origin,
        )

    def _unary(self, node: cst.UnaryOperation) -> Value:
        operand = self.evaluate(node.expression)
        return SCALAR if type(node.operator) is cst.Not else operand

    def _comparison(self, node: cst.Comparison) -> Value:
        left = self.evaluate(node.left)
        for target in node.comparisons:
            self.evaluate(target.comparator)
        if left.kind in ARRAY_KINDS:
            return Value(
                kind=left.kind,
                places=left.places,
                scalar=left.scalar,
                may_be_scalar=left.may_be_scalar,
                origin=left.origin,
            )
        return SCALAR

    # ---------------------------------------------------------- control in expressions
    def _boolean(self, node: cst.BooleanOperation) -> Value:
        left = self.evaluate(node.left)
        before = self.state
        self.state = self.narrow(before, node.left, type(node.operator) is cst.And).copy()
        right = self.evaluate(node.right)
        self.state = before.join(self.state)
        return left.join(right)

    def _if_expression(self, node: cst.IfExp) -> Value:
        self.evaluate(node.test)
        before = self.state
        self.state = self.narrow(before, node.test, True).copy()
        body = self.evaluate(node.body)
        after_body = self.state
        self.state = self.narrow(before, node.test, False).copy()
        orelse = self.evaluate(node.orelse)
        if after_body.cuda_refused != self.state.cuda_refused:  # as State.join does for names
            body, orelse = (body.without_cpu(), orelse) if after_body.cuda_refused else (body, orelse.without_cpu())
        self.state = after_body.join(self.state)
        return body.join(orelse)

    def _named(self, node: cst.NamedExpr) -> Value:
        value = self.evaluate(node.value)
        self.bind_target(node.target, value)
        return value

    # ------------------------------------------------------------------ literals
    def _string(self, node: cst.SimpleString) -> Value:
        text = node.value
        if "cuda" not in text and "cpu" not in text:
            return UNKNOWN  # most strings: no need to decode them
        if is_cpu_literal(node):
            if self.recording and self.state.cuda_refused:
                self.facts.cpu_fallbacks[id(node)] = node
            return Value(kind=Kind.DEVICE, places=CPU)
        if is_cuda_literal(node):
            return self.hard_coded_device(node)
        return UNKNOWN

    def _formatted(self, node: cst.FormattedString) -> Value:
        self.evaluate_children(node)
        if computed_cuda_device(node):  # ``f"cuda:{rank}"``: a CUDA device, its index chosen at run time
            return self.hard_coded_device(node)
        return UNKNOWN

    def _number(self, node: cst.BaseNumber) -> Value:
        if type(node) is cst.Integer:  # remembered: ``device = 0`` ... ``.to(device)`` is CUDA device 0
            return Value(kind=Kind.SCALAR, origin=Origin(node, "a device index"))
        return SCALAR

    def _collection(self, node: cst.Tuple | cst.List | cst.Set) -> Value:
        values = []
        starred = False
        for element in node.elements:
            value = self.evaluate(element.value)
            if type(element) is cst.StarredElement:
                starred = True
                value = value.element()
            values.append(value)
        if type(node) is cst.Tuple and not starred:
            return sequence(elements=tuple(values))
        joined = any_element(values) if values else None
        return sequence(elements=None if starred or type(node) is cst.Set else tuple(values), item=joined)

    def _dict(self, node: cst.Dict) -> Value:
        items = []
        joined = None
        for element in node.elements:
            if type(element) is cst.DictElement:
                self.evaluate(element.key)
                value = self.evaluate(element.value)
                literal = string_value(element.key)
                if literal is not None:
                    items.append((literal, value))
            else:
                value = self.evaluate(element.value).item or UNKNOWN
            joined = value if joined is None else joined.join(value)
        return mapping(tuple(items), joined)

    # ------------------------------------------------------- nested scopes
    def _comprehension(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> Value:
        """Walk the clauses in a copy of the state (their names are their own)."""
        before = self.state
        self.state = before.copy()
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            element = self.iterated(self.evaluate(clause.iter))
            if (bound := range_stop(clause.iter)) is not None:  # ``range(torch.cuda.device_count())``
                self.state = self.narrow(self.state, bound, True).copy()
            self.bind_target(clause.target, element)
            for condition in clause.ifs:
                self.evaluate(condition.test)
                self.state = self.narrow(self.state, condition.test, True).copy()
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self.evaluate(node.key)
            result = mapping(item=self.evaluate(node.value))
        else:
            result = sequence(item=self.evaluate(node.elt))
        self.state = before
        return result

    def _lambda(self, node: cst.Lambda) -> Value:
        before = self.state
        self.state = before.copy()
        for param in all_params(node.params):
            if param.default is not None:
                self.evaluate(param.default)
            self.state.bind(param.name.value, UNKNOWN)
        self.evaluate(node.body)
        self.state = before
        return UNKNOWN

    def _call(self, node: cst.Call) -> Value:
        return self.call(node)

    def _await(self, node: cst.Await) -> Value:
        return self.evaluate(node.expression)

    # -------------------------------------------------------------- annotations
    def annotation_kind(self, annotation: cst.BaseExpression) -> Kind | None:
        return annotation_kind(annotation, self.imports, self.plain_class)


# Each handler takes the node type it is filed under.
_EXPRESSIONS: dict[type[cst.BaseExpression], Callable[[ExpressionEvaluator, Any], Value]] = {
    cst.Name: ExpressionEvaluator._name,
    cst.Attribute: ExpressionEvaluator._attribute,
    cst.Subscript: ExpressionEvaluator._subscript,
    cst.BinaryOperation: ExpressionEvaluator._binary,
    cst.UnaryOperation: ExpressionEvaluator._unary,
    cst.Comparison: ExpressionEvaluator._comparison,
    cst.BooleanOperation: ExpressionEvaluator._boolean,
    cst.IfExp: ExpressionEvaluator._if_expression,
    cst.NamedExpr: ExpressionEvaluator._named,
    cst.SimpleString: ExpressionEvaluator._string,
    cst.FormattedString: ExpressionEvaluator._formatted,
    cst.Integer: ExpressionEvaluator._number,
    cst.Float: ExpressionEvaluator._number,
    cst.Imaginary: ExpressionEvaluator._number,
    cst.Tuple: ExpressionEvaluator._collection,
    cst.List: ExpressionEvaluator._collection,
    cst.Set: ExpressionEvaluator._collection,
    cst.Dict: ExpressionEvaluator._dict,
    cst.ListComp: ExpressionEvaluator._comprehension,
    cst.SetComp: ExpressionEvaluator._comprehension,
    cst.GeneratorExp: ExpressionEvaluator._comprehension,
    cst.DictComp: ExpressionEvaluator._comprehension,
    cst.Lambda: ExpressionEvaluator._lambda,
    cst.Await: ExpressionEvaluator._await,
    cst.Call: ExpressionEvaluator._call,
}
