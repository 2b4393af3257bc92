"""Method calls and moves (part of the interpreter): what ``x.method(...)`` returns, where
``.to()`` / ``.cuda()`` / ``.cpu()`` put a value, and what a call teaches about its receiver.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeGuard

import libcst as cst

from ..knowledge import api
from ..knowledge.api import Effect
from .containers import stored_into
from .domain import (
    CPU,
    NOWHERE,
    SCALAR,
    UNKNOWN,
    Kind,
    Origin,
    Place,
    Value,
    accelerator,
    any_element,
    is_device_of_a_value,
    may_be_on_accelerator,
    may_hold_data,
    must_be_on_accelerator,
    sequence,
    tensor,
)
from .facts import LiteralFact
from .imports import dotted_name
from .literals import cuda_fstring, is_cpu_literal, is_cuda_literal, string_value
from .moves import placed_throughout
from .syntax import (
    fits_module_method,
    fits_tensor_move,
    keyword_argument,
    literal_index,
    passes_false,
    type_string_receiver,
)

if TYPE_CHECKING:
    from .parts import InterpreterParts as _Base
else:
    _Base = object

# Names that hold a device by convention (``device``, ``dev``, ``gpu_id``, ``local_rank``).
DEVICE_LIKE_NAME = re.compile(r"dev|cuda|gpu|rank", re.IGNORECASE)
_ARRAYS = frozenset({Kind.TENSOR, Kind.OUTPUT, Kind.ARRAYLIKE})
# Methods that take one element: ``pop``, and an iterator's ``__next__`` (``next`` before Python 3
# and in torch's DataLoader iterators of old, which tutorials still call: ``dataiter.next()``).
_NEXT_ELEMENT = frozenset({"pop", "__next__", "next"})
# Builtins whose result iterates over the same elements as their first argument.
_PASS_THROUGH = frozenset({"iter", "list", "tuple", "sorted", "reversed", "tqdm", "set", "trange"})
# Tensor methods that return a Python number (``size`` only with a dimension: else a ``torch.Size``).
_PYTHON_NUMBERS = frozenset("item size numel nelement dim ndimension element_size get_device".split())
_TO_SCALAR = frozenset({"float", "int", "bool", "len", "round", "abs", "isinstance", "hasattr", "callable", "str"})
# Objects whose ``.device`` is a setting (``args.device``), not where a value is.
_SETTINGS_OWNERS = frozenset(
    "self cls args opt opts option options cfg conf config configs hparams hp params settings flags trainer "
    "accelerator state".split()
)
# ... also by the end of their name: ``training_args``, ``eval_cfg``; and the device a model or a
# Lightning module runs on (``pl_module.device``, ``model.device``) is the run's device.
_SETTINGS_OWNER_ENDINGS = ("args", "_cfg", "_config", "_opts", "model", "module", "net")
# Receivers whose ``.to()`` changes them in place and returns them.
_MOVED_IN_PLACE = frozenset({Kind.MODULE, Kind.MAPPING})


class MethodEvaluator(_Base):
    def _method_result(
        self,
        node: cst.Call,
        method: str,
        receiver: cst.BaseExpression,
        receiver_value: Value,
        arguments: tuple[Value, ...],
    ) -> Value:
        if not fits_tensor_move(node, method):  # ``quantizer.cuda(q, meta=m)``: another class's method
            return UNKNOWN
        if (
            method in api.MOVE_METHODS
            or method == "type_as"
            or (method == "type" and arguments and arguments[0].kind is Kind.DEVICE)
            or (method == "type" and node.args and type_string_receiver(node.args[0].value) is not None)
        ):
            return self._moved(node, method, receiver, receiver_value, arguments)
        summarised = self.call_method(receiver_value, method, node, arguments)
        if summarised is not None:
            return summarised
        kind = receiver_value.kind
        if kind is Kind.UNKNOWN:
            kind = _kind_shown_by(node, method)
            receiver_value = receiver_value.with_kind(kind)
        if kind is Kind.OUTPUT and method in ("items", "values"):  # a dict-like output of a module
            part = Value(kind=Kind.OUTPUT, places=receiver_value.places, grad=receiver_value.grad)
            return sequence(item=part if method == "values" else sequence(elements=(UNKNOWN, part)))
        if kind in _ARRAYS:
            return self._array_method(node, method, receiver_value, arguments)
        if kind is Kind.MODULE:
            return self._module_method(node, method, receiver, receiver_value, arguments)
        if kind is Kind.SEQUENCE:
            return self._sequence_method(method, receiver, receiver_value, arguments)
        if kind is Kind.MAPPING:
            return self._mapping_method(node, method, receiver_value)
        if kind is Kind.NDARRAY:
            return receiver_value if method not in ("tolist", "item") else UNKNOWN
        if kind is Kind.UNKNOWN:  # ``helper.postprocess(x)`` of an object the code does not show
            return self.guessed_result(node, method, arguments)
        return UNKNOWN

    def _array_method(self, node: cst.Call, method: str, receiver: Value, arguments: tuple[Value, ...]) -> Value:
        if method == "type" and not node.args:
            return UNKNOWN  # ``x.type()``: the type's name, a string
        if method == "type" and not self._names_a_dtype(node.args[0].value):
            # ``x.type(dtype)`` handed ``other.type()`` (YOLOX): a type string names a device too
            return receiver.placed(NOWHERE)
        effect = api.method_effect(method)
        if effect is Effect.IN_PLACE:
            if method == "requires_grad_":
                return replace(receiver, grad=not passes_false(node))
            return receiver
        if effect is Effect.OTHER or effect is None:
            if method == "numpy":
                return Value(kind=Kind.NDARRAY, places=CPU)
            if method == "tolist" or (method == "size" and not node.args):
                return sequence(item=SCALAR)  # ``x.size()``: its numbers, as ``x.shape``
            if method in _PYTHON_NUMBERS:
                return SCALAR  # ``x.item()``, ``x.size(-1)``: a Python number, not a tensor
            return UNKNOWN
        if method == "float" and not node.args and receiver.cls in api.PARAMETER_CLASSES:
            # float32, the default: the same Parameter (semantics/holds_float_of_a_float32_parameter_is_itself.py)
            return receiver
        kind = Kind.TENSOR if receiver.kind is not Kind.ARRAYLIKE or api.proves_tensor(method) else Kind.ARRAYLIKE
        grad = receiver.grad and self.state.grad_enabled and method not in api.NO_GRAD_METHODS
        reduced = method in api.FULL_REDUCTIONS and not node.args
        scalar = (receiver.scalar and method not in api.ADDS_DIMENSIONS) or reduced
        maybe = receiver.may_be_scalar and not scalar and method not in api.SHAPE_ARGUMENT_METHODS  # not ``.view(n)``
        values = Value(kind=kind, places=receiver.places, grad=grad, scalar=scalar, may_be_scalar=maybe)
        values = replace(values, origin=receiver.origin)
        if returns_values_and_indices(method, node.args, arguments):
            indices = Value(kind=Kind.TENSOR, places=receiver.places, origin=receiver.origin)
            return sequence(elements=(values, indices))  # ``_, predicted = scores.max(1)``
        if effect is Effect.COMPUTE_MANY:
            return sequence(item=replace(values, scalar=False))
        return values

    def _module_method(
        self, node: cst.Call, method: str, receiver: cst.BaseExpression, module: Value, arguments: tuple[Value, ...]
    ) -> Value:
        if method in api.MODULE_CHAIN_METHODS:
            return module
        if method in ("register_buffer", "register_parameter") and len(arguments) >= 2:
            name, owner = string_value(node.args[0].value), dotted_name(receiver)
            if name is not None and owner is not None:  # a buffer moves with its module
                self.state.bind(f"{owner}.{name}", arguments[1].placed(module.places))
            return UNKNOWN
        if method in ("parameters", "buffers"):
            return sequence(item=tensor(module.places, module.origin, grad=method == "parameters"))
        if method == "state_dict":
            return Value(kind=Kind.MAPPING, item=tensor(module.places, module.origin))
        if api.runs_module(method):
            # ``model.generate(ids)``, ``clip.encode_image(x)``: computed with the module's parameters.
            result = self._module_call(node, module, arguments)
            # Generated tokens, predictions and samples are drawn, not differentiated through:
            # ``generate`` runs under ``no_grad`` in Hugging Face, ``sample`` returns indices.
            return replace(result, grad=False) if api.draws(method) else result
        return self.guessed_result(node, method, arguments)  # a method of a module the file does not show

    def _sequence_method(
        self, method: str, receiver: cst.BaseExpression, value: Value, arguments: tuple[Value, ...]
    ) -> Value:
        name = dotted_name(receiver)
        if method in ("append", "insert") and arguments:
            added = arguments[-1]
        elif method == "extend" and arguments:
            added = arguments[0].element()
        else:
            return value.element() if method in _NEXT_ELEMENT else UNKNOWN
        if name is not None:
            item = added if value.item is None and not value.elements else any_element((value.element(), added))
            self.state.bind(name, sequence(item=item))
        return UNKNOWN

    def _mapping_method(self, node: cst.Call, method: str, value: Value) -> Value:
        if method in ("values",):
            return sequence(item=value.element())
        if method == "items":
            return sequence(item=sequence(elements=(UNKNOWN, value.element())))
        if method in ("get", "pop") and node.args:
            key = string_value(node.args[0].value)
            return value.keyed(key) if key is not None else value.element()
        return UNKNOWN

    # ------------------------------------------------------------------- moves
    def _moved(
        self, node: cst.Call, method: str, receiver: cst.BaseExpression, value: Value, arguments: tuple[Value, ...]
    ) -> Value:
        target = self._move_target(node, method, arguments)
        places = value.places if target is None else target  # ``.to(torch.float16)``: stays where it is
        unchecked = not self.state.cuda_checked and not self.state.cuda_refused
        if unchecked and value.kind is not Kind.OBJECT and _uses_cuda_itself(node, method):
            self.state.cuda_required = True  # what follows runs only where this did not raise
        moved = placed_throughout(value, places, Origin(node, f"moved by .{method}()"))
        if value.cls in api.PARAMETER_CLASSES and not _returns_itself(node, target, value):
            # ``nn.Parameter(w).to(device)``: a copy, a plain tensor (a module does not own it)
            moved = replace(moved, cls=None)
        if any(self.imports.qualify(arg.value) in api.INTEGER_OR_BOOL_DTYPES for arg in node.args):
            moved = replace(moved, grad=False)  # ``.to(torch.uint8)``: an integer tensor never requires grad
        name = dotted_name(receiver)
        if value.kind in _MOVED_IN_PLACE and name is not None:
            self.state.bind(name, moved)
        elif value.kind in _MOVED_IN_PLACE and type(receiver) is cst.Subscript:  # ``models["depth"].to(d)``
            owner, key = dotted_name(receiver.value), literal_index(receiver)
            held = self.state.get(owner) if owner is not None else None
            if owner is not None and held is not None and held.kind is Kind.MAPPING and type(key) is str:
                self.state.bind(owner, stored_into(held, key, moved, False) or held)
        return moved

    def _move_target(self, node: cst.Call, method: str, arguments: tuple[Value, ...]) -> frozenset[Place] | None:
        if method == "cpu":
            return CPU
        if method == "type":
            typed_like = type_string_receiver(node.args[0].value)
            if typed_like is not None:  # ``x.type(other.type())``: the other tensor's type names its device
                return self.peek(typed_like, self.state).places
            # ``x.type(torch.cuda.FloatTensor)``: a legacy type names a device too
            return self.device_places(node.args[0].value, arguments[0])
        if method == "type_as":  # the other tensor's type, CUDA or not: its device
            return arguments[0].places if arguments else None
        if method == "cuda":
            return accelerator('"cuda"')
        device = keyword_argument(node, "device")
        if device is not None:
            return self.device_places(device, keyword_value(node, arguments, "device"))
        if node.args and node.args[0].keyword is None and not node.args[0].star:
            return self.device_places(node.args[0].value, arguments[0])
        return None

    def _names_a_dtype(self, node: cst.BaseExpression) -> bool:
        """``torch.float16``, ``x.dtype``: a dtype the code shows (a name ``dtype`` may hold a type string)."""
        return self.imports.qualify(node) in api.DTYPES or (type(node) is cst.Attribute and node.attr.value == "dtype")

    def device_places(self, node: cst.BaseExpression, value: Value) -> frozenset[Place] | None:
        """Where ``device=node`` / ``.to(node)`` puts a value; None when ``node`` is not a device
        (a dtype). Places on a device variable are named by the variable."""
        if is_cpu_literal(node) or (value.kind is Kind.DEVICE and value.places == CPU):
            return CPU
        if self._names_a_dtype(node):
            return None
        if value.kind in _ARRAYS:  # ``.to(other)``: where the other tensor is
            return value.places
        name = dotted_name(node)
        if value.kind is Kind.DEVICE:
            if self._is_device_of_a_value(node) or is_device_of_a_value(value):  # ``x.device``, ``d = x.device``
                return value.places  # wherever ``x`` is, on every path
            if may_be_on_accelerator(value):  # chosen by availability: the accelerator when present
                return accelerator(name or self.module.code_for_node(node))
            return accelerator(name) if name is not None else value.places
        if type(node) is cst.Integer:  # ``.to(0)``: CUDA device 0
            return accelerator(f"cuda:{node.value}")
        if cuda_fstring(node) or string_value(node) is not None:
            return accelerator(self.module.code_for_node(node))
        if self._is_device_of_a_value(node):  # ``x.device``: wherever ``x`` is
            return self.peek(node.value, self.state).places
        if (
            name is not None
            and names_a_device(name)
            and (DEVICE_LIKE_NAME.search(name.rsplit(".", 1)[-1]) or self._placed_with(name))
        ):
            return accelerator(name, guessed=True)  # a device by its name alone
        return NOWHERE

    def hard_coded_device(self, node: cst.BaseExpression) -> Value:
        """A CUDA device written into the code: ``"cuda:0"``, or built with its index chosen at run
        time (``f"cuda:{rank}"``): either way it fails where CUDA is missing. Recorded where it is
        written, for the rules that report hard-coded devices."""
        if self.recording:
            self.facts.literals[id(node)] = LiteralFact(node, self.state.cuda_checked, self.frame.scope)
        code = node.value if type(node) is cst.SimpleString else self.module.code_for_node(node)
        return Value(kind=Kind.DEVICE, places=accelerator(code), origin=Origin(node, "a hard-coded device"))

    def _is_device_of_a_value(self, node: cst.BaseExpression) -> TypeGuard[cst.Attribute]:
        """``x.device`` of a tensor or module (where ``x`` is), not a stored ``self.device``."""
        if type(node) is not cst.Attribute or node.attr.value != "device":
            return False
        owner = self.peek(node.value, self.state)
        if self.stores_attribute(owner, "device"):  # ``self.device = ...``: a setting
            return False
        return owner.kind in (*_ARRAYS, Kind.MODULE) or owner.places != NOWHERE

    def _placed_with(self, name: str) -> bool:
        function = self.frame.function
        evidence = function.evidence if function is not None else self.definitions.module_evidence
        return name in evidence.placements and name.endswith(("device", "dev"))

    # --------------------------------------------------------------- named calls
    def _named_call(self, node: cst.Call, name: str, arguments: tuple[Value, ...]) -> Value:
        summarised = self.call_named(name, node, arguments)
        if summarised is not None:
            return summarised
        first = arguments[0] if arguments else UNKNOWN
        if name == "super":
            return self.super_value(self.frame)
        if name in _PASS_THROUGH:
            return sequence(item=self.iterated(first))
        if name == "enumerate":
            return sequence(item=sequence(elements=(SCALAR, self.iterated(first))))
        if name == "zip":
            return sequence(item=sequence(elements=tuple(self.iterated(value) for value in arguments)))
        if name == "next":
            return self.iterated(first)
        if name in _TO_SCALAR or name == "range":
            return SCALAR if name != "range" else sequence(item=SCALAR)
        if name == "getattr" and len(node.args) >= 2:
            attribute = string_value(node.args[1].value)
            return self.attribute_of(first, attribute, node) if attribute is not None else UNKNOWN
        return self.guessed_result(node, name, arguments)

    def guessed_result(self, node: cst.Call, name: str, arguments: tuple[Value, ...]) -> Value:
        """What a function the analysis cannot see into returns (another module's helper, a method
        of an object it does not know) when every tensor it is given is on the same device: taken to
        be there too, as a guess (the place is marked guessed, so a finding resting on it is only
        likely). Not for constructors (``Name(...)``), nor for names that say their result leaves
        the device (``to_numpy``, ``tensor2cpu``, ``save_image``).

        Otherwise the result is unknown, but a value of its own, not the shared ``UNKNOWN``: names
        bound to it are aliases of one another and of nothing else (``_leave_behind``)."""
        last = name.rsplit(".", 1)[-1]
        tensors = [value for value in arguments if may_hold_data(value)]
        if (
            last[:1].isupper()
            or api.leaves_the_device(last)
            or not tensors
            or not all(must_be_on_accelerator(value) and value.places == tensors[0].places for value in tensors)
        ):
            return Value(origin=Origin(node, f"returned by `{name}`"))
        places = tensors[0].places
        return Value(
            places=frozenset(replace(place, guessed=True) for place in places),
            origin=Origin(node, f"if `{name}` keeps it there"),
        )

    # ---------------------------------------------------------------- evidence
    def _learn_kind(self, node: cst.Call, receiver: cst.BaseExpression, value: Value, method: str) -> None:
        """A method only one kind has: the receiver is of that kind from here on."""
        if value.kind is Kind.UNKNOWN:
            kind = _kind_shown_by(node, method)
        elif value.kind is Kind.ARRAYLIKE and (api.proves_tensor(method) or method in api.MOVE_METHODS):
            kind = Kind.TENSOR  # NumPy arrays have no ``.to()`` / ``.cpu()``
        else:
            return
        name = dotted_name(receiver)
        if name is not None and kind is not Kind.UNKNOWN:
            self.state.bind(name, value.with_kind(kind))


def names_a_device(name: str) -> bool:
    """``device``, ``self.device``, ``args.device``: a variable or setting holding a device. Not
    ``x.device`` of some other value, which is wherever ``x`` is (unknown when ``x`` is)."""
    owner, _, attribute = name.rpartition(".")
    if not owner or attribute != "device":
        return True
    last = owner.rsplit(".", 1)[-1]
    return last in _SETTINGS_OWNERS or last.lower().endswith(_SETTINGS_OWNER_ENDINGS)


def _uses_cuda_itself(node: cst.Call, method: str) -> bool:
    """``x.cuda()``, ``x.to("cuda:0")`` of a tensor or module (or what may be one: not an object of
    a plain class, which may define its own ``cuda``): raises where CUDA is missing
    (``AssertionError: Torch not compiled with CUDA enabled``, or no driver)."""
    first = node.args[0] if method == "to" and node.args else None
    return method == "cuda" or (first is not None and first.keyword is None and is_cuda_literal(first.value))


def _returns_itself(node: cst.Call, target: frozenset[Place] | None, value: Value) -> bool:
    """Does this move return its receiver unchanged (``.to("cpu")`` of a tensor known to be on the
    CPU, with no dtype)? Any other move or conversion returns a new tensor."""
    return target is not None and target == value.places and value.places != NOWHERE and len(node.args) <= 1


def _kind_shown_by(node: cst.Call, method: str) -> Kind:
    """What a call of ``method`` shows its receiver is: nothing where its arguments do not fit the
    method of that kind (a framework's ``model.train(dataset=d)`` is not ``nn.Module.train``)."""
    if api.proves_tensor(method):
        return Kind.TENSOR
    if method in api.MODULE_ONLY_METHODS:
        return Kind.MODULE if fits_module_method(node, method) else Kind.UNKNOWN
    if api.proves_array(method):
        return Kind.ARRAYLIKE
    return Kind.UNKNOWN


def keyword_value(node: cst.Call, arguments: tuple[Value, ...], keyword: str) -> Value:
    """The value of argument ``keyword=`` among a call's evaluated arguments."""
    for arg, value in zip(node.args, arguments):
        if arg.keyword is not None and arg.keyword.value == keyword:
            return value
    return UNKNOWN


def returns_values_and_indices(name: str, args: Sequence[cst.Arg], arguments: tuple[Value, ...]) -> bool:
    """``x.topk(k)``, ``x.max(1)``, ``x.max(dim=1)``; not ``x.max()`` nor ``x.max(other)``. ``args``
    and ``arguments`` are what follows the tensor: ``torch.max(x, 1)`` passes those after ``x``."""
    if name in api.VALUES_AND_INDICES:
        return True
    if name not in api.VALUES_AND_INDICES_ALONG_A_DIM or not args:
        return False
    first = args[0]
    if first.keyword is not None:
        return first.keyword.value == "dim"
    return type(first.value) is cst.Integer or (bool(arguments) and arguments[0].kind is Kind.SCALAR)
