"""Calls: what a call returns and what it changes (part of the interpreter).

A call of something imported is looked up in the torch knowledge (factories allocate on
``device=`` or the default device, computations happen where their tensor arguments are,
moves go where their device argument says); a call of a module runs where the module is; a
method call on a tensor keeps its place; a call of a function or class of this file is
summarised (``summaries``). Calls are also evidence: ``x.unsqueeze(0)`` shows ``x`` is a
tensor, ``m.eval()`` a module, and the state remembers it from there on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import libcst as cst

from ..imported import ImportedClass
from ..knowledge import api, libraries
from ..knowledge.api import Effect
from .domain import (
    CPU,
    GIVEN,
    NONE,
    NOWHERE,
    SCALAR,
    UNKNOWN,
    Kind,
    Origin,
    Place,
    PlaceKind,
    Value,
    accelerator,
    computed_places,
    is_given,
    may_hold_data,
    must_be_on_accelerator,
    sequence,
    tensor,
    with_module,
)
from .facts import Called, CallFact
from .imports import dotted_name
from .libraries import LibraryEvaluator
from .literals import computed_cuda_device, string_value
from .methods import keyword_value, returns_values_and_indices
from .moves import helper_result
from .shapes import CONCATENATIONS, concatenated_rank, data_rank, maybe_shapeless, shape_rank, shaped_by_data
from .syntax import keyword_argument

_TENSOR_KINDS = frozenset({Kind.TENSOR, Kind.OUTPUT, Kind.ARRAYLIKE})
# The class marker of a value made by nn.Parameter / nn.Buffer: registered on a module, it moves with it.
PARAMETER = "torch.nn.Parameter"
BUFFER = "torch.nn.Buffer"


class CallEvaluator(LibraryEvaluator):
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
            if type(func) is cst.Attribute:
                method, receiver = func.attr.value, func.value
                receiver_value = self.evaluate(receiver)
                callee = self.state.get(dotted_name(func) or "") or self._member(receiver_value, method)
            else:
                callee = self.evaluate(func)
        arguments = tuple(self._argument(arg) for arg in node.args)
        result = self._result(Called(node, qualified, method, receiver, receiver_value, callee, arguments))
        if self.recording:
            self.facts.calls[id(node)] = CallFact(
                node,
                qualified,
                method,
                receiver,
                receiver_value,
                callee,
                arguments,
                result,
                self.state.cuda_checked,
                self.state.cuda_refused,
                self.state.grad_enabled,
                self.frame.scope,
                statement,
                self.state.cuda_by_default,
                self.state.cuda_required,
            )
        if method is not None and receiver is not None:
            self._learn_kind(node, receiver, receiver_value, method)
        self._hand_over_modules(node, qualified, arguments)
        return result

    def _hand_over_modules(self, node: cst.Call, qualified: str | None, arguments: tuple[Value, ...]) -> None:
        """``setup(model)``, ``fully_shard(model)``: a module handed to code that may move it may stay or move."""
        builtin = node.func.value if type(node.func) is cst.Name and qualified is None else None
        if qualified in api.MODULE_CONTAINERS:
            self._register_listed_modules(node, arguments)
        if api.leaves_modules_where_they_are(qualified, builtin):
            return
        for arg, value in zip(node.args, arguments):
            name = dotted_name(arg.value)
            if value.kind is Kind.MODULE and value.places != NOWHERE and name is not None and not arg.star:
                self.state.bind(name, value.placed(value.places | NOWHERE))

    def _register_listed_modules(self, node: cst.Call, arguments: tuple[Value, ...]) -> None:
        """``nn.ModuleList(self.blocks_list)`` in a module registers the list's modules: they move with it."""
        owner = self.frame.self_value
        if owner is None or owner.kind is not Kind.MODULE:
            return
        for arg, value in zip(node.args, arguments):
            name = dotted_name(arg.value)
            if name is not None and name.count(".") == 1 and value.kind is Kind.SEQUENCE:
                self.state.bind(name, value.each_module_placed(owner.places))

    def _argument(self, arg: cst.Arg) -> Value:
        return self.evaluate(arg.value)  # ``*seq`` / ``**mapping``: the sequence or mapping itself

    def _member(self, owner: Value, name: str) -> Value:
        """What ``owner.name`` holds when called (``self.encoder(x)``: a submodule)."""
        if owner.kind is Kind.MODULE or owner.kind is Kind.OBJECT:
            return self.instance_attribute(owner, name)
        return UNKNOWN

    def _result(self, called: Called) -> Value:
        node, qualified, method, receiver = called.node, called.qualified, called.method, called.receiver
        callee, arguments = called.callee, called.arguments
        library = self.library_result(called)
        if library is not None:  # a DataLoader, a tokenizer, a torchvision transform (knowledge/libraries)
            return library
        if method == "format" and computed_cuda_device(node):  # ``"cuda:{}".format(rank)``
            return self.hard_coded_device(node)
        imported = self.definitions.imported_class(node.func)
        if imported is not None and imported.module and self.state.get(dotted_name(node.func) or "") is None:
            return self._project_module(node, imported)
        helper = self.definitions.imported_helper(node.func)
        if helper is not None and self.state.get(dotted_name(node.func) or "") is None:
            result = helper_result(node, helper, arguments, self.device_places)
            if result is not None:
                return result
        if qualified is not None:
            return self._function_result(node, qualified, arguments)
        if callee.kind is Kind.MODULE:
            return self._module_call(node, callee, arguments)
        if callee.kind is Kind.UNKNOWN and callee.places != NOWHERE and method is None:
            # ``model = model.cuda()``, then ``model(x)``: a tensor is not callable, so what was
            # moved and is then called computes where it was moved, as a module does.
            return self._module_call(node, callee.with_kind(Kind.MODULE), arguments)
        if callee.kind is Kind.DEVICE:  # ``Tensor(3, 4)`` with ``Tensor = torch.cuda.FloatTensor``
            places = self.device_places(node.func, callee) or NOWHERE
            return tensor(places, callee.origin or Origin(node, "made by a tensor type"))
        if method is not None and receiver is not None:
            return self._method_result(node, method, receiver, called.receiver_value, arguments)
        name = dotted_name(node.func)
        if name is not None:
            return self._named_call(node, name, arguments)
        return UNKNOWN

    # -------------------------------------------------------- imported functions
    def _function_result(self, node: cst.Call, qualified: str, arguments: tuple[Value, ...]) -> Value:
        first = arguments[0] if arguments else UNKNOWN
        origin = Origin(node, f"made by {qualified}()")
        if qualified == "torch.device":
            places: frozenset[Place] | None
            named = keyword_argument(node, "type")  # ``torch.device(index=i, type="cuda")``
            if named is not None:
                first = keyword_value(node, arguments, "type")
            if first.kind is Kind.DEVICE:  # ``torch.device("cuda" if ... else "cpu")``: the same choice
                places = first.places
            elif named is not None or node.args:
                places = self.device_places(named or node.args[0].value, first)
            else:
                places = NOWHERE
            return Value(kind=Kind.DEVICE, places=places or NOWHERE, origin=first.origin or origin)
        if qualified == "torch.accelerator.current_accelerator":  # None where there is none: ``... or cpu``
            return Value(kind=Kind.DEVICE, places=accelerator(f"{qualified}()"), origin=origin)
        if qualified == "torch.set_default_device":
            if node.args:
                self.state.default_places = self.device_places(node.args[0].value, first) or NOWHERE
            return NONE
        if qualified == "torch.set_default_tensor_type" and node.args:  # ``("torch.cuda.FloatTensor")``
            type_name = string_value(node.args[0].value) or self.imports.qualify(node.args[0].value) or ""
            cpu = CPU if type_name.startswith("torch.") else NOWHERE
            placed = accelerator('"cuda"') if type_name.startswith("torch.cuda.") else cpu
            self.state.default_places = self.state.legacy_places = placed
            return NONE
        if qualified in api.PARAMETER_CLASSES:  # a parameter or buffer, frozen or not, moves with its module
            grad = qualified != "torch.nn.Buffer" and not _flag(node, "requires_grad", False)
            return Value(
                kind=Kind.TENSOR,
                places=first.places,
                grad=grad,
                scalar=first.scalar,
                cls=qualified if qualified == BUFFER else PARAMETER,
                origin=first.origin,
            )
        if qualified in api.LEGACY_CPU_CONSTRUCTORS:
            return self._legacy(node, qualified, first, origin)
        if qualified in api.LEGACY_CUDA_CONSTRUCTORS:
            return tensor(accelerator(qualified), origin)
        if qualified in api.COPIES:  # a copy is what it copies, on the same device
            return first
        if qualified in api.MODULE_WRAPPERS:
            return first.with_kind(Kind.MODULE)
        if qualified in api.SCATTERING_WRAPPERS:  # moves its inputs itself
            name = qualified.rsplit(".", 1)[-1]
            return Value(kind=Kind.MODULE, places=with_module(name), cls=qualified, origin=first.origin)
        if api.is_module_class(qualified) or libraries.is_pretrained_load(qualified):
            return self._new_module(node, qualified)
        if qualified in api.NUMPY_MATH and arguments and all(value.kind is Kind.SCALAR for value in arguments):
            return SCALAR  # ``np.log(2 * np.pi)``: a NumPy scalar, a number to torch
        if qualified.startswith("numpy."):
            return Value(kind=Kind.NDARRAY, places=CPU, rank=shape_rank(qualified, node, first), origin=origin)
        if qualified in ("tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"):
            return sequence(item=self.iterated(first))
        effect = api.function_effect(qualified)
        if effect is None:  # torch's own unknowns stay unknown; another library's helper is a guess
            if qualified.startswith("torch."):
                return UNKNOWN
            return self.guessed_result(node, dotted_name(node.func) or qualified, arguments)
        return self._torch_result(node, qualified, effect, arguments, origin)

    def _torch_result(
        self, node: cst.Call, qualified: str, effect: Effect, arguments: tuple[Value, ...], origin: Origin
    ) -> Value:
        if (written := keyword_value(node, arguments, "out")).kind in _TENSOR_KINDS:
            return written  # ``torch.eye(n, out=t)`` fills ``t`` and returns it, where it is
        first = arguments[0] if arguments else UNKNOWN
        device = keyword_argument(node, "device")
        named = keyword_value(node, arguments, "device")
        # ``device=None`` (a parameter's default, say) is the default device, as no ``device=`` is.
        places = self.device_places(device, named) if device is not None and named.kind is not Kind.NONE else None
        if places is None and _unpacks_keywords(node):  # ``torch.zeros(n, **factory_kwargs)`` may name one
            places = NOWHERE
        grad = _flag(node, "requires_grad", True) and self.state.grad_enabled
        if effect is Effect.FACTORY:
            if places is None and qualified in api.FACTORIES_FOLLOWING_TENSORS:
                # Where its tensors are, also where the code does not show where those are (a
                # caller's ``edge_index``); of numbers, on the CPU; of values the code does not show,
                # wherever those are. ``torch.normal(m, s, size=...)`` takes numbers only: it draws
                # on the default device.
                numbers_only = qualified == "torch.normal" and keyword_argument(node, "size") is not None
                data = () if numbers_only else arguments[:2]
                shown = any(value.kind in _TENSOR_KINDS or value.kind is Kind.UNKNOWN for value in _flattened(data))
                places = self.computed(data, differentiable=False).places if shown else None
            made = tensor(self.state.default_places if places is None else places, origin, grad=grad)
            return replace(made, rank=1) if qualified in api.ONE_DIM_FACTORIES else made
        if effect is Effect.HOST_DATA:
            if qualified == "torch.from_numpy":
                return tensor(CPU, origin)
            if places is None and first.kind in _TENSOR_KINDS:
                places = first.places
            elif places is None and qualified in _ENSURES_TENSOR and first.kind is Kind.UNKNOWN:
                places = NOWHERE  # ``torch.as_tensor(x)`` of what may be a tensor already: it stays put
            elif places is None:
                places = self.state.default_places
            return shaped_by_data(tensor(places, origin, grad=grad), first, _is_number(node), qualified)
        if effect is Effect.LIKE:
            return tensor(first.places if places is None else places, first.origin or origin, grad=grad)
        if effect is Effect.OTHER:
            return UNKNOWN
        arguments = arguments[api.placing_arguments(qualified, len(arguments))]
        computed = self.computed(arguments, qualified not in api.NO_GRAD_FUNCTIONS)
        if qualified in CONCATENATIONS and arguments:
            computed = replace(computed, rank=concatenated_rank(arguments[0]))
        name = qualified.removeprefix("torch.")
        if "." not in name and returns_values_and_indices(name, node.args[1:], arguments[1:]):
            indices = Value(kind=Kind.TENSOR, places=computed.places, origin=computed.origin)
            return sequence(elements=(computed, indices))  # ``_, predicted = torch.max(scores, 1)``
        if effect is Effect.COMPUTE_MANY:
            return sequence(item=computed)
        if _reduces_fully(node, qualified):  # ``torch.prod(x)``: 0-dim, a scalar on any device
            return replace(computed, scalar=True)
        return computed

    def computed(self, operands: tuple[Value, ...], differentiable: bool = True) -> Value:
        """A tensor computed from these operands (elements of list operands included)."""
        tensors = [value for value in _flattened(operands) if value.kind in _TENSOR_KINDS]
        if not tensors:  # computed from a function's input (not a size): where its caller put it
            given = bool(operands) and operands[0].kind is Kind.UNKNOWN and is_given(operands[0].places)
            return Value(kind=Kind.TENSOR, places=GIVEN if given else NOWHERE)
        places, origin = computed_places(tensors)
        grad = differentiable and self.state.grad_enabled and any(value.grad for value in tensors)
        # ``torch.sqrt(scale)`` of a 0-dim tensor is 0-dim (of a maybe 0-dim one, maybe); ``torch.stack`` is not.
        flat = not any(value.kind is Kind.SEQUENCE for value in operands)
        maybe = flat and any(value.may_be_scalar for value in tensors) and all(map(maybe_shapeless, tensors))
        scalar = flat and all(value.scalar for value in tensors)
        return Value(kind=Kind.TENSOR, places=places, grad=grad, scalar=scalar, may_be_scalar=maybe, origin=origin)

    def _legacy(self, node: cst.Call, qualified: str, first: Value, origin: Origin) -> Value:
        if qualified.endswith("Variable"):  # a wrapper that changes nothing
            return first.with_kind(Kind.TENSOR) if first.kind in (Kind.UNKNOWN, Kind.ARRAYLIKE) else first
        places = self.state.legacy_places if qualified == "torch.Tensor" else CPU  # typed ones: the CPU
        return replace(tensor(places, origin), rank=data_rank(first))  # ``torch.Tensor([x])``: 1-dim

    def _project_module(self, node: cst.Call, imported: ImportedClass) -> Value:
        """An instance of a module class from another of the project's files: built as torch's
        layers are, unless the class may place itself (a device parameter, a move of ``self``)."""
        name = dotted_name(node.func) or ""
        if imported.places_itself:
            return Value(kind=Kind.MODULE, places=NOWHERE, cls=name, origin=Origin(node, "built"))
        return self._new_module(node, name)

    def _new_module(self, node: cst.Call, qualified: str) -> Value:
        if libraries.is_pretrained_load(qualified):
            if not libraries.pretrained_is_model(qualified):
                return UNKNOWN
            loaded = self.pretrained_places(node)
            if loaded is not None:
                origin = Origin(node, "placed by from_pretrained()")
                return Value(kind=Kind.MODULE, places=loaded, cls=qualified, origin=origin)
        places = self.state.default_places  # ``with torch.device(d):`` builds modules on ``d``
        device = keyword_argument(node, libraries.MODULE_DEVICE_KEYWORD)
        if device is not None:  # ``nn.Linear(n, m, device=d)``: its parameters are made on ``d``
            places = self.device_places(device, self.peek(device, self.state)) or NOWHERE
        elif _unpacks_keywords(node):  # ``nn.Linear(n, m, **factory_kwargs)`` may name a device
            places = NOWHERE
        reason = "built on the CPU" if places == CPU else "built"
        return Value(kind=Kind.MODULE, places=places, cls=qualified, origin=Origin(node, reason))

    # ------------------------------------------------------------- module calls
    def _module_call(self, node: cst.Call, module: Value, arguments: tuple[Value, ...]) -> Value:
        summarised = self.call_method(module, "forward", node, arguments)
        if summarised is not None:
            return summarised
        # A module holding no tensor (``nn.ReLU()``, a project's loss keeping an ``eps``) computes where its inputs are.
        imported = self.definitions.project_classes.get(module.cls or "")
        stateless = module.cls in api.STATELESS_MODULES or (imported is not None and imported.holds_no_tensors)
        inputs = [value for value in _flattened(arguments, deep=True) if may_hold_data(value)]
        placed_inputs = [value for value in inputs if must_be_on_accelerator(value)]
        if stateless:
            places = inputs[0].places if inputs else NOWHERE
        elif must_be_on_accelerator(module, through_modules=False):
            places = module.places
        elif placed_inputs:
            # Where the call succeeds, the module is where its inputs are (a module on the CPU fails).
            places = NOWHERE if module.places == CPU else placed_inputs[0].places
        elif module.cls in api.SCATTERING_WRAPPERS:
            places = module.places  # it moved its CPU inputs to the device of the module it wraps
        elif self._part_of_this_module(module):
            places = module.places  # ``self.layer(x)`` in a method: where the module is, like ``x``
        elif not module_placed(module) and any(value.places == CPU for value in inputs):
            places = CPU  # a module whose place is not shown, fed CPU inputs, computes on the CPU
        elif module.places == NOWHERE:
            places = with_module(dotted_name(node.func) or "model")
        else:
            places = module.places
        kind = Kind.TENSOR if (module.cls or "").startswith("torch.nn.") else Kind.OUTPUT
        # A module class of another file of the project may have no parameters at all (a
        # normalisation step): only its inputs make its output require grad.
        parameters = not stateless and imported is None and api.may_own_parameters(module.cls)
        grad = self.state.grad_enabled and (parameters or any(value.grad for value in inputs))
        callee = dotted_name(node.func)
        origin = Origin(node, f"computed by `{callee}`" if callee else "computed by a module")
        return Value(kind=kind, places=places, grad=grad, origin=origin)

    def _part_of_this_module(self, module: Value) -> bool:
        """A submodule of the module whose method is being walked (``self.layer``)."""
        owner = self.frame.self_value
        return owner is not None and owner.kind is Kind.MODULE and module.places == owner.places


# Conversions that return a tensor argument as it is, where it is.
_ENSURES_TENSOR = frozenset({"torch.as_tensor", "torch.asarray"})


def module_placed(module: Value) -> bool:
    """The code shows where the module is (built here, moved with .to())."""
    return module.places != NOWHERE and not all(place.kind is PlaceKind.WITH_MODULE for place in module.places)


def _reduces_fully(node: cst.Call, qualified: str) -> bool:
    """``torch.sum(x)``: a reduction given one tensor and no dimension (``torch.max(a, b)`` is
    elementwise, ``torch.sum(x, 0)`` keeps the other dimensions)."""
    if qualified.rsplit(".", 1)[-1] not in api.FULL_REDUCTIONS or qualified.count(".") != 1:
        return False
    positional = [arg for arg in node.args if arg.keyword is None]
    keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
    return len(positional) == 1 and not positional[0].star and not keywords & {"dim", "axis"}


def _unpacks_keywords(node: cst.Call) -> bool:
    return any(arg.star == "**" for arg in node.args)


def _flag(node: cst.Call, keyword: str, expected: bool) -> bool:
    """Is ``keyword=`` given as the literal ``expected`` (``requires_grad=True``)?"""
    argument = keyword_argument(node, keyword)
    return type(argument) is cst.Name and argument.value == str(expected)


def _is_number(node: cst.Call) -> bool:
    """``torch.tensor(2.0)``: one number, a 0-dim tensor."""
    data = node.args[0].value if node.args else None
    if type(data) is cst.UnaryOperation:
        data = data.expression
    return type(data) in (cst.Integer, cst.Float)


def _flattened(values: tuple[Value, ...], deep: bool = False) -> Iterator[Value]:
    """The values, with the elements of sequences in their place (``torch.cat([a, b])``), and, when
    ``deep``, the values of mappings too (``model({"x": x})``, ``model(**inputs)``)."""
    for value in values:
        if value.kind is Kind.SEQUENCE:
            if value.elements:
                yield from value.elements
            elif value.item is not None:
                yield value.item
        elif deep and value.kind is Kind.MAPPING:
            yield from (item for _, item in value.items)
            if value.item is not None:
                yield value.item
        else:
            yield value
